/*
 * fuzz_pqfooter: the input is the end of a Parquet file (the whole input
 * is the file's tail and the file).  pqf_parse() must refuse it with a
 * reason (-EINVAL, or -E2BIG for a footer longer than the input, which
 * cannot happen here since the tail is the whole file), or read a footer
 * whose parts agree: a schema of named, typed columns, row groups whose
 * rows add up to the file's, each with a chunk per column starting in the
 * file's data; and pqf_meta_clear() frees it all.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/parquet/pqfooter.h"
#include "fuzz/fuzzkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pqf_meta m;
	char err[512];
	int64_t sum = 0;
	int r;

	err[0] = '\0';
	r = pqf_parse(data, size, size, &m, err, sizeof(err));
	if (memchr(err, '\0', sizeof(err)) == NULL)
		fuzzkit_die("pqf_parse", "err without its NUL");
	if (r != 0) {
		if ((r != -EINVAL && r != -ENOMEM) || err[0] == '\0')
			fuzzkit_die("pqf_parse", "failed (%d) without a reason",
			    r);
		pqf_meta_clear(&m);
		return 0;
	}
	if (m.ncols == 0 || m.num_rows < 0)
		fuzzkit_die("pqf_parse", "took %zu columns, %lld rows", m.ncols,
		    (long long)m.num_rows);
	for (size_t i = 0; i < m.ncols; i++)
		if (m.cols[i].name == NULL || m.cols[i].physical < 0)
			fuzzkit_die("pqf_parse", "took column %zu without a name "
			    "or a type", i);
	for (size_t g = 0; g < m.nrow_groups; g++) {
		sum += m.rg_rows[g];
		for (size_t i = 0; i < m.ncols; i++) {
			const struct pqf_chunk *c = &m.chunks[g * m.ncols + i];
			if (c->data_page_offset < 4 ||
			    (uint64_t)c->data_page_offset >= size)
				fuzzkit_die("pqf_parse", "took a chunk at %lld in "
				    "a file of %zu bytes",
				    (long long)c->data_page_offset, size);
		}
	}
	if (sum != m.num_rows)
		fuzzkit_die("pqf_parse", "took row groups of %lld rows for %lld",
		    (long long)sum, (long long)m.num_rows);
	for (size_t i = 0; i < m.nkv; i++)
		if (m.kv_keys[i] == NULL)
			fuzzkit_die("pqf_parse", "took a key-value pair without "
			    "its key");
	pqf_meta_clear(&m);
	return 0;
}
