/*
 * verify_file: `kedge verify` of one part file (verify_int.h): its sidecar
 * loaded, its name and table directory against it, its content (rows,
 * bytes, digests, and rows enough for the records it names), then the
 * records it accounts for noted for the partitions' checks of verify.c.
 */
#include "agent/cli/verify_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/write/format.h"
#include "agent/write/sidecar.h"
#include "agent/write/spool.h"
#include "lib/codec.h"
#include "lib/fsutil.h"
#include "lib/grow.h"

static int
verify_sidecar_load(struct verify *v, struct vfile *f, const char *scpath)
{
	char err[512], *text;
	size_t len = 0;
	int r;

	if ((r = verify_text_load(v, scpath, "sidecar", &text, &len)) != 0)
		return r;
	r = sidecar_parse(text, len, &f->sc, err, sizeof(err));
	if (r == -ENOMEM)
		r = verify_nomem(v);
	else if (r != 0)
		r = verify_violation(v, "%s: malformed sidecar: %s", scpath,
		    err);
	free(text);
	return r;
}

static int
verify_names(struct verify *v, const struct vfile *f)
{
	const struct sidecar *sc = &f->sc;
	const char *name = f->path + f->dir_len + 1;
	char want[1024];
	int n;

	if (strlen(sc->table) != f->table_len ||
	    memcmp(sc->table, f->path, f->table_len) != 0)
		return verify_violation(v, "%s: its sidecar says table %s",
		    f->path, sc->table);
	n = snprintf(want, sizeof(want), "%s+%" PRId64 "+%" PRId64 "+%s.%s%s",
	    sc->topic, sc->partition, sc->first_offset, sc->host,
	    format_kind_ext(sc->format), format_codec_ext(sc->format,
	    sc->codec));
	if (n < 0 || (size_t)n >= sizeof(want) || strcmp(want, name) != 0)
		return verify_violation(v, "%s: its sidecar names it %s",
		    f->path, want);
	return 0;
}

static uint64_t
verify_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Rows a file must hold for the records its sidecar names: a rejects file
 * one per rejected record, a data file at least one per record it claims
 * or spills.  Returns the count; *exact tells which of the two. */
static uint64_t
verify_rows_needed(const struct sidecar *sc, int *exact)
{
	uint64_t n = 0;

	*exact = strcmp(sc->table, REJECTS_TABLE) == 0;
	for (size_t i = 0; i < sc->nrejected; i++)
		n = verify_add_sat(n,
		    sidecar_ranges_count(&sc->rejected[i].ranges));
	n = verify_add_sat(n, sidecar_ranges_count(&sc->offsets));
	return verify_add_sat(n, sidecar_ranges_count(&sc->spill));
}

/* Starts taking the digests of f's bytes its sidecar has as they are
 * read: its CRC-32C, its SHA-256 (an earlier kedge's), both, or none
 * (sidecars of versions before either). */
static int
verify_digest_begin(struct verify *v, const struct vfile *f)
{
	unsigned kinds = (f->sc.crc32c[0] != '\0' ? SPOOL_CRC32C : 0) |
	    (f->sc.sha256[0] != '\0' ? SPOOL_SHA256 : 0);

	spool_hash_free(v->hash); /* a file before that ended in a violation */
	v->hash = NULL;
	if (kinds != 0 && (v->hash = spool_hash_new(kinds)) == NULL)
		return verify_nomem(v);
	return 0;
}

/* Compares the digests of what was read of f with its sidecar's. */
static int
verify_digest(struct verify *v, const struct vfile *f)
{
	struct spool_digest d;
	int r;

	if (v->hash == NULL)
		return 0;
	r = spool_hash_done(v->hash, &d);
	spool_hash_free(v->hash);
	v->hash = NULL;
	if (r < 0)
		return verify_nomem(v);
	if (strcmp(d.crc32c, f->sc.crc32c) != 0)
		return verify_violation(v,
		    "crc32c of %s is %s, its sidecar says %s",
		    f->path, d.crc32c, f->sc.crc32c);
	if (strcmp(d.sha256, f->sc.sha256) != 0)
		return verify_violation(v,
		    "sha256 of %s is %s, its sidecar says %s",
		    f->path, d.sha256, f->sc.sha256);
	v->crc32c_files += f->sc.crc32c[0] != '\0';
	v->sha256_files += f->sc.sha256[0] != '\0';
	return 0;
}

/* Reads the text part file fd of f with its codec's decoder. */
static int
verify_decode_text(struct verify *v, const struct vfile *f, int fd,
    struct lines *l, uint64_t *bytes)
{
	switch (f->sc.codec) {
	case CODEC_NONE:
		return decode_none(v, fd, f->path, l, bytes);
	case CODEC_GZIP:
		return decode_gzip(v, fd, f->path, l, bytes);
	case CODEC_ZSTD:
		return decode_zstd(v, fd, f->path, l, bytes);
	case CODEC_SNAPPY:
		break;
	}
	return verify_violation(v, "%s: codec %s in a %s file", f->path,
	    codec_kind_name(f->sc.codec), format_kind_name(f->sc.format));
}

static int
verify_content(struct verify *v, struct vfile *f)
{
	const struct sidecar *sc = &f->sc;
	struct lines l = { 0, 0 };
	uint64_t bytes = 0, need;
	int fd, r = 0, exact;

	if ((r = verify_digest_begin(v, f)) != 0)
		return r;
	if ((fd = fs_open_beneath(v->rootfd, f->path, O_RDONLY)) == -ELOOP ||
	    fd == -ENXIO)
		return verify_violation(v, "%s: not a part file: %s", f->path,
		    fs_strerror(-fd));
	if (fd < 0)
		return verify_failure(v, fd, "%s: cannot open", f->path);
	/* a Parquet file's rows are its footer's, checked against the rest
	 * of its sidecar there */
	if (sc->format == FORMAT_PARQUET)
		r = verify_parquet(v, f, fd, &l.n, &bytes);
	else
		r = verify_decode_text(v, f, fd, &l, &bytes);
	close(fd);
	if (r != 0)
		return r;
	if (l.open)
		return verify_violation(v, "%s: the last row has no line end",
		    f->path);
	if (l.n != (uint64_t)sc->rows)
		return verify_violation(v,
		    "%s: %" PRIu64 " rows, its sidecar says %"
		    PRId64, f->path, l.n, sc->rows);
	if (bytes != (uint64_t)sc->bytes)
		return verify_violation(v,
		    "%s: %" PRIu64 " bytes, its sidecar says %"
		    PRId64, f->path, bytes, sc->bytes);
	/* after the checks that say what is wrong: it catches the rest */
	if ((r = verify_digest(v, f)) != 0)
		return r;
	need = verify_rows_needed(sc, &exact);
	if (exact && l.n != need)
		return verify_violation(v, "%s: %" PRIu64 " rows for %" PRIu64
		    " rejected records", f->path, l.n, need);
	if (l.n < need)
		return verify_violation(v,
		    "%s: %" PRIu64 " rows cannot hold the %"
		    PRIu64 " records its sidecar claims or spills", f->path,
		    l.n, need);
	v->rows += l.n;
	return 0;
}

static int
verify_claim(struct verify *v, size_t file, const char *table,
    enum claim_kind kind, const struct sidecar_ranges *r)
{
	const struct sidecar *sc = &v->files[file].sc;

	for (size_t i = 0; i < r->n; i++) {
		if (grow_array((void **)&v->claims, &v->capclaims,
		    v->nclaims + 1, sizeof(*v->claims)) < 0)
			return verify_nomem(v);
		v->claims[v->nclaims++] = (struct claim){ table, sc->topic,
		    sc->partition, kind, r->v[i].first, r->v[i].last, file };
	}
	return 0;
}

static int
verify_claims(struct verify *v, size_t file)
{
	const struct sidecar *sc = &v->files[file].sc;
	int r;

	if ((r = verify_claim(v, file, sc->table, CLAIM_OWN, &sc->offsets)) ||
	    (r = verify_claim(v, file, sc->table, CLAIM_OWN, &sc->empty)) ||
	    (r = verify_claim(v, file, sc->table, CLAIM_OWN, &sc->unread)) ||
	    (r = verify_claim(v, file, sc->table, CLAIM_SPILL, &sc->spill)))
		return r;
	for (size_t i = 0; i < sc->nrejected; i++)
		if ((r = verify_claim(v, file, sc->rejected[i].table,
		    CLAIM_OWN, &sc->rejected[i].ranges)) != 0)
			return r;
	return 0;
}

int
verify_file(struct verify *v, size_t i)
{
	struct vfile *f = &v->files[i];
	const char *name = f->path + f->dir_len + 1;
	char scpath[PATH_MAX];
	int r;

	if ((size_t)snprintf(scpath, sizeof(scpath), "%.*s/.%s.json",
	    (int)f->dir_len, f->path, name) >= sizeof(scpath))
		return verify_failure(v, -ENAMETOOLONG, "%s", f->path);
	if (!f->has_sidecar)
		return verify_violation(v, "%s: no sidecar .%s.json", f->path,
		    name);
	if (!f->has_part)
		return verify_violation(v, "%s: its part file %s is missing",
		    scpath, name);
	if ((r = verify_sidecar_load(v, f, scpath)) != 0 ||
	    (r = verify_names(v, f)) != 0 ||
	    (r = verify_content(v, f)) != 0)
		return r;
	v->unread = verify_add_sat(v->unread,
	    sidecar_ranges_count(&f->sc.unread));
	return verify_claims(v, i);
}
