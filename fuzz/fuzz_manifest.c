/*
 * fuzz_manifest: the input is the text of an hour's _MANIFEST.json, as
 * `kedge verify`, `kedge report` and the completer read it from a target
 * anyone may write to.  manifest_parse() must refuse it with a reason or
 * read it; what it reads, manifest_format() must write, that text must read
 * back, and write again byte for byte.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/complete/manifest.h"
#include "fuzz/fuzzkit.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest sc, back;
	struct buf once = { 0 }, twice = { 0 };
	char err[512];
	int r;

	err[0] = '\0';
	r = manifest_parse((const char *)data, size, &sc, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die("manifest_parse", "err without its NUL");
	if (r != 0) {
		if (r != -EINVAL || err[0] == '\0')
			fuzzkit_die("manifest_parse", "failed (%d) without a "
			    "reason", r);
		manifest_clear(&sc);
		return 0;
	}
	if ((r = manifest_format(&sc, &once)) != 0)
		fuzzkit_die("manifest_format", "refused what was read: %d", r);
	if (manifest_parse(once.data, once.len, &back, err, sizeof(err)) != 0)
		fuzzkit_die("manifest_parse", "refused what manifest_format() "
		    "wrote: %s: %.*s", err, (int)once.len, once.data);
	if (manifest_format(&back, &twice) != 0 || once.len != twice.len ||
	    memcmp(once.data, twice.data, once.len) != 0)
		fuzzkit_die("manifest_format", "wrote it back otherwise: %.*s",
		    (int)once.len, once.data);
	manifest_clear(&sc);
	manifest_clear(&back);
	buf_clear(&once);
	buf_clear(&twice);
	return 0;
}
