/*
 * fuzz_sidecar: the input is the text of a part file's sidecar, as
 * `kedge verify`, the publisher and the completer read it from a target
 * anyone may write to.  sidecar_parse() must refuse it with a reason or
 * read it; what it reads, sidecar_format() must write, that text must read
 * back, and write again byte for byte.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/write/sidecar.h"
#include "fuzz/fuzzkit.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sidecar sc = { 0 }, back = { 0 };
	struct buf once = { 0 }, twice = { 0 };
	char err[512];
	int r;

	err[0] = '\0';
	r = sidecar_parse((const char *)data, size, &sc, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die("sidecar_parse", "err without its NUL");
	if (r != 0) {
		if (r != -EINVAL || err[0] == '\0')
			fuzzkit_die("sidecar_parse", "failed (%d) without a "
			    "reason", r);
		sidecar_clear(&sc);
		return 0;
	}
	if ((r = sidecar_format(&sc, &once)) != 0)
		fuzzkit_die("sidecar_format", "refused what was read: %d", r);
	if (sidecar_parse(once.data, once.len, &back, err, sizeof(err)) != 0)
		fuzzkit_die("sidecar_parse", "refused what sidecar_format() "
		    "wrote: %s: %.*s", err, (int)once.len, once.data);
	if (sidecar_format(&back, &twice) != 0 || once.len != twice.len ||
	    memcmp(once.data, twice.data, once.len) != 0)
		fuzzkit_die("sidecar_format", "wrote it back otherwise: %.*s",
		    (int)once.len, once.data);
	sidecar_clear(&sc);
	sidecar_clear(&back);
	buf_clear(&once);
	buf_clear(&twice);
	return 0;
}
