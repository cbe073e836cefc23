/*
 * fuzz_progress: the input is the text of a progress file, as the
 * completer reads it from the target, where every host writes its own.  progress_parse() must refuse it with a reason or
 * read it; what it reads, progress_format() must write, that text must read
 * back, and write again byte for byte.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/complete/progress.h"
#include "fuzz/fuzzkit.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct progress sc, back;
	struct buf once = { 0 }, twice = { 0 };
	char err[512];
	int r;

	err[0] = '\0';
	r = progress_parse((const char *)data, size, &sc, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die("progress_parse", "err without its NUL");
	if (r != 0) {
		if (r != -EINVAL || err[0] == '\0')
			fuzzkit_die("progress_parse", "failed (%d) without a "
			    "reason", r);
		progress_clear(&sc);
		return 0;
	}
	if ((r = progress_format(&sc, &once)) != 0)
		fuzzkit_die("progress_format", "refused what was read: %d", r);
	if (progress_parse(once.data, once.len, &back, err, sizeof(err)) != 0)
		fuzzkit_die("progress_parse", "refused what progress_format() "
		    "wrote: %s: %.*s", err, (int)once.len, once.data);
	if (progress_format(&back, &twice) != 0 || once.len != twice.len ||
	    memcmp(once.data, twice.data, once.len) != 0)
		fuzzkit_die("progress_format", "wrote it back otherwise: %.*s",
		    (int)once.len, once.data);
	progress_clear(&sc);
	progress_clear(&back);
	buf_clear(&once);
	buf_clear(&twice);
	return 0;
}
