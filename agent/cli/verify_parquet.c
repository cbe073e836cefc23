/*
 * verify_parquet: `kedge verify` of a Parquet part file (verify_int.h):
 * its bytes hashed as a text file's are, then its footer, read with
 * pqfooter.h, against its sidecar and the table's other Parquet files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli/verify_int.h"
#include "agent/parquet/parquet.h"
#include "agent/parquet/pqfooter.h"
#include "lib/grow.h"

/* The columns of m as one string, to compare a table's files. */
static char *
verify_pq_columns(const struct pqf_meta *m)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; i < m->ncols; i++)
		len += strlen(m->cols[i].name) + 16;
	if ((s = p = malloc(len)) == NULL)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < m->ncols; i++)
		p += snprintf(p, len - (size_t)(p - s), "%s%s:%d:%d", i ? "," : "",
		    m->cols[i].name, m->cols[i].physical, m->cols[i].logical);
	return s;
}

/* Checks that a table's Parquet files have the same columns: the first
 * one seen sets them. */
static int
verify_pq_same_columns(struct verify *v, const struct vfile *f,
    const struct pqf_meta *m)
{
	char *cols = verify_pq_columns(m);
	int r = 0;

	if (cols == NULL)
		return verify_nomem(v);
	for (size_t i = 0; i < v->npqtables; i++) {
		if (strcmp(v->pqtables[i].table, f->sc.table) != 0)
			continue;
		if (strcmp(v->pqtables[i].columns, cols) != 0)
			r = verify_violation(v, "%s: columns %s, other files of "
			    "table %s have %s", f->path, cols, f->sc.table,
			    v->pqtables[i].columns);
		free(cols);
		return r;
	}
	if (grow_array((void **)&v->pqtables, &v->cappqtables,
	    v->npqtables + 1, sizeof(*v->pqtables)) < 0 ||
	    (v->pqtables[v->npqtables].table = strdup(f->sc.table)) == NULL) {
		free(cols);
		return verify_nomem(v);
	}
	v->pqtables[v->npqtables++].columns = cols;
	return 0;
}

/* Checks the key-value pair key of m against want. */
static int
verify_pq_kv(struct verify *v, const struct vfile *f,
    const struct pqf_meta *m, const char *key, const char *want)
{
	const char *got = pqf_meta_value(m, key);

	if (got == NULL)
		return verify_violation(v, "%s: its footer has no %s", f->path,
		    key);
	if (strcmp(got, want) != 0)
		return verify_violation(v, "%s: its footer says %s %s, its "
		    "sidecar %s", f->path, key, got, want);
	return 0;
}

static int
verify_pq_footer(struct verify *v, const struct vfile *f,
    const struct pqf_meta *m)
{
	const struct sidecar *sc = &f->sc;
	char partition[24], first[24];
	int r;

	if (m->num_rows != sc->rows)
		return verify_violation(v, "%s: its footer says %" PRId64
		    " rows, its sidecar %" PRId64, f->path, m->num_rows,
		    sc->rows);
	snprintf(partition, sizeof(partition), "%" PRId64, sc->partition);
	snprintf(first, sizeof(first), "%" PRId64, sc->first_offset);
	if ((r = verify_pq_kv(v, f, m, "kedge.table", sc->table)) != 0 ||
	    (r = verify_pq_kv(v, f, m, "kedge.topic", sc->topic)) != 0 ||
	    (r = verify_pq_kv(v, f, m, "kedge.partition", partition)) != 0 ||
	    (r = verify_pq_kv(v, f, m, "kedge.first_offset", first)) != 0)
		return r;
	for (size_t i = 0; i < m->nrow_groups * m->ncols; i++)
		if (m->chunks[i].codec != (int)pq_codec_of(sc->codec))
			return verify_violation(v, "%s: a column chunk of row "
			    "group %zu has codec %d, its sidecar says %s",
			    f->path, i / m->ncols, m->chunks[i].codec,
			    codec_kind_name(sc->codec));
	return verify_pq_same_columns(v, f, m);
}

int
verify_parquet(struct verify *v, const struct vfile *f, int fd,
    uint64_t *rows, uint64_t *bytes)
{
	struct pqf_meta m;
	char err[512];
	int r;

	if ((r = decode_none(v, fd, f->path, NULL, bytes)) != 0)
		return r;
	r = pqf_read(fd, *bytes, &m, err, sizeof(err));
	if (r == -ENOMEM) {
		r = verify_nomem(v);
	} else if (r == -EINVAL) {
		r = verify_violation(v, "%s: %s", f->path, err);
	} else if (r < 0) {
		r = verify_failure(v, r, "%s: cannot read", f->path);
	} else {
		*rows = (uint64_t)m.num_rows;
		r = verify_pq_footer(v, f, &m);
	}
	pqf_meta_clear(&m);
	return r;
}
