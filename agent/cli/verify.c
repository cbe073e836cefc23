/* verify: `kedge verify` (verify.h): the walk of DIR, each part file
 * checked by verify_file.c, then the partitions' offsets, the hours'
 * manifests and the sentence that sums it up. */
#include "agent/cli/verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "agent/cli/verify_int.h"
#include "agent/complete/manifest.h"
#include "agent/complete/mfcheck.h"
#include "agent/parse/rejects.h"
#include "agent/write/sidecar.h"
#include "agent/write/spool.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/grow.h"
#include "lib/jsondoc.h"

/* What a directory holds, from DIR down: tables, days, hours. */
enum level { L_ROOT, L_TABLE, L_DAY, L_HOUR };

/* Writes "verify: <what>" and returns 1 (verify_int.h). */
__attribute__((format(printf, 2, 3)))
int
verify_violation(struct verify *v, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (v->msglen == 0)
		return 1;
	n = snprintf(v->msg, v->msglen, "verify: ");
	if (n >= 0 && (size_t)n < v->msglen) {
		va_start(ap, fmt);
		err_vset(v->msg + n, v->msglen - (size_t)n, 1, fmt, ap);
		va_end(ap);
	}
	return 1;
}

/* Writes "verify: <what>: <strerror>" and returns r, a negative errno. */
__attribute__((format(printf, 3, 4)))
int
verify_failure(struct verify *v, int r, const char *fmt, ...)
{
	char what[PATH_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(v->msg, v->msglen, r, "verify: %s: %s", what,
	    fs_strerror(-r));
}

/* Writes "verify: out of memory" and returns -ENOMEM. */
int
verify_nomem(struct verify *v)
{
	return err_set(v->msg, v->msglen, -ENOMEM, "verify: out of memory");
}

/* Reads up to len bytes, fewer only at the end of the file.  Returns the
 * count or -errno. */
ssize_t
verify_read_some(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int
verify_walk_table(struct verify *v, const char *name)
{
	if (grow_array((void **)&v->tables, &v->captables, v->ntables + 1,
	    sizeof(*v->tables)) < 0)
		return verify_nomem(v);
	if ((v->tables[v->ntables] = strdup(name)) == NULL)
		return verify_nomem(v);
	v->ntables++;
	return 0;
}

/* Records the part file (is_part) or the sidecar of name[0..len) in the
 * hour directory rel. */
static int
verify_walk_file(struct verify *v, const char *rel, const char *name,
    size_t len, int is_part)
{
	size_t rl = strlen(rel);
	struct vfile *f;
	char *path;

	if (grow_array((void **)&v->files, &v->capfiles, v->nfiles + 1,
	    sizeof(*v->files)) < 0)
		return verify_nomem(v);
	if ((path = malloc(rl + len + 2)) == NULL)
		return verify_nomem(v);
	memcpy(path, rel, rl);
	path[rl] = '/';
	memcpy(path + rl + 1, name, len);
	path[rl + 1 + len] = '\0';
	f = &v->files[v->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->dir_len = rl;
	f->table_len = strcspn(rel, "/");
	f->has_part = is_part;
	f->has_sidecar = !is_part;
	return 0;
}

/* Notes a _MANIFEST.json or _SUCCESS in the hour directory rel. */
static int
verify_walk_mark(struct verify *v, const char *rel, const char *name)
{
	struct vhour *h;
	int manifest = strcmp(name, MANIFEST_NAME) == 0;

	if (!manifest && strcmp(name, MANIFEST_SUCCESS) != 0)
		return 0;
	/* readdir() gives one directory's entries together */
	if (v->nhours == 0 || strcmp(v->hours[v->nhours - 1].dir, rel) != 0) {
		if (grow_array((void **)&v->hours, &v->caphours, v->nhours + 1,
		    sizeof(*v->hours)) < 0)
			return verify_nomem(v);
		h = &v->hours[v->nhours];
		memset(h, 0, sizeof(*h));
		if ((h->dir = strdup(rel)) == NULL)
			return verify_nomem(v);
		v->nhours++;
	}
	h = &v->hours[v->nhours - 1];
	if (manifest)
		h->has_manifest = 1;
	else
		h->has_success = 1;
	return 0;
}

static int
verify_walk_entry(struct verify *v, const char *rel, int dfd, const char *name)
{
	size_t len = strlen(name);
	struct stat st;

	if (name[0] == '_')
		return verify_walk_mark(v, rel, name);
	if (name[0] == '.') {
		/* .<name>.json is a sidecar; any other hidden name (a copy's
		 * .<name>.tmp) is not a landed file */
		if (len > 6 && strcmp(name + len - 5, ".json") == 0 &&
		    name[1] != '.' && name[1] != '_')
			return verify_walk_file(v, rel, name + 1, len - 6, 0);
		return 0;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return verify_failure(v, -errno, "%s/%s: cannot stat", rel,
		    name);
	if (!S_ISREG(st.st_mode))
		return 0;
	return verify_walk_file(v, rel, name, len, 1);
}

static int
verify_walk_wants(enum level level, const char *name)
{
	switch (level) {
	case L_ROOT:
		/* table names never start with '_' (config.c): what does is
		 * kedge's own (_kedge) or the rejects table */
		return name[0] != '.' &&
		    (name[0] != '_' || strcmp(name, REJECTS_TABLE) == 0);
	case L_TABLE:
		return strncmp(name, "dt=", 3) == 0;
	case L_DAY:
		return strncmp(name, "hr=", 3) == 0;
	case L_HOUR:
		break;
	}
	return 0;
}

/* Collects the part files and sidecars under rel, a directory at level. */
static int
verify_walk(struct verify *v, const char *rel, enum level level)
{
	const char *shown = level == L_ROOT ? v->dir : rel;
	char child[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, r = 0;

	if ((fd = fs_opendir_beneath(v->rootfd, rel)) < 0)
		return verify_failure(v, fd, "%s: cannot open", shown);
	if ((d = fdopendir(fd)) == NULL) {
		r = -errno;
		close(fd);
		return verify_failure(v, r, "%s: cannot open", shown);
	}
	while (r == 0) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0)
				r = verify_failure(v, -errno, "%s: cannot read",
				    shown);
			break;
		}
		if (level == L_HOUR) {
			r = verify_walk_entry(v, rel, dirfd(d), de->d_name);
			continue;
		}
		if (!verify_walk_wants(level, de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = verify_failure(v, -errno, "%s/%s: cannot stat",
			    shown, de->d_name);
			break;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s%s%s",
		    level == L_ROOT ? "" : rel, level == L_ROOT ? "" : "/",
		    de->d_name) >= sizeof(child)) {
			r = verify_failure(v, -ENAMETOOLONG, "%s/%s", shown,
			    de->d_name);
			break;
		}
		if (level == L_ROOT && strcmp(de->d_name, REJECTS_TABLE) != 0)
			r = verify_walk_table(v, de->d_name);
		if (r == 0)
			r = verify_walk(v, child, (enum level)(level + 1));
	}
	closedir(d);
	return r;
}

static int
verify_cmp_file(const void *a, const void *b)
{
	const struct vfile *fa = a, *fb = b;

	return strcmp(fa->path, fb->path);
}

/* Sorts the files by path and pairs each part file with its sidecar. */
static void
verify_merge_files(struct verify *v)
{
	size_t w = 0;

	if (v->nfiles > 1) /* an empty array may be NULL, which qsort refuses */
		qsort(v->files, v->nfiles, sizeof(*v->files), verify_cmp_file);
	for (size_t i = 0; i < v->nfiles; i++) {
		if (w > 0 && strcmp(v->files[w - 1].path, v->files[i].path) == 0) {
			v->files[w - 1].has_part |= v->files[i].has_part;
			v->files[w - 1].has_sidecar |= v->files[i].has_sidecar;
			free(v->files[i].path);
			continue;
		}
		v->files[w++] = v->files[i];
	}
	v->nfiles = w;
}

/* Reads path, a sidecar or manifest (what), into *text (the caller frees
 * it) and its length into *len.  Returns 0, 1 after writing a violation, or
 * a negative errno. */
int
verify_text_load(struct verify *v, const char *path, const char *what,
    char **text, size_t *len)
{
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	*text = NULL;
	/* a FIFO must not hang verify, nor a link show another file */
	if ((fd = fs_open_beneath(v->rootfd, path, O_RDONLY)) == -ELOOP ||
	    fd == -ENXIO || fd == -EISDIR)
		return verify_violation(v, "%s: not a %s: %s", path, what,
		    fs_strerror(-fd));
	if (fd < 0)
		return verify_failure(v, fd, "%s: cannot open", path);
	if (fstat(fd, &st) < 0)
		r = verify_failure(v, -errno, "%s: cannot stat", path);
	else if (st.st_size > SIDECAR_MAX)
		r = verify_violation(v,
		    "%s: not a %s (a regular file up to %d MiB)",
		    path, what, SIDECAR_MAX >> 20);
	else if ((*text = malloc((size_t)st.st_size + 1)) == NULL)
		r = verify_nomem(v);
	else if ((n = verify_read_some(fd, *text, (size_t)st.st_size)) < 0)
		r = verify_failure(v, (int)n, "%s: cannot read", path);
	else
		*len = (size_t)n;
	close(fd);
	if (r != 0) {
		free(*text);
		*text = NULL;
	}
	return r;
}

static int
verify_cmp_claim(const void *pa, const void *pb)
{
	const struct claim *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->table, b->table)) != 0 ||
	    (c = strcmp(a->topic, b->topic)) != 0)
		return c;
	if (a->partition != b->partition)
		return a->partition < b->partition ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->last != b->last)
		return a->last < b->last ? -1 : 1;
	return (a->file > b->file) - (a->file < b->file);
}

static int
verify_same_partition(const struct claim *a, const struct claim *b)
{
	return a->partition == b->partition && strcmp(a->table, b->table) == 0 &&
	    strcmp(a->topic, b->topic) == 0;
}

/* Checks the sorted claims c[0..n) of one (table, topic, partition): own
 * claims first, by offset, then the spills. */
static int
verify_partition(struct verify *v, const struct claim *c, size_t n)
{
	const struct claim *prev = NULL;
	size_t i;

	/* sorted and so far disjoint, so prev ends the highest */
	for (i = 0; i < n && c[i].kind == CLAIM_OWN; i++) {
		if (prev != NULL && c[i].first <= prev->last)
			return verify_violation(v,
			    "%s: offsets %" PRId64 "..%" PRId64
			    " already in %s (a duplicate)",
			    v->files[c[i].file].path, c[i].first,
			    c[i].last < prev->last ? c[i].last : prev->last,
			    v->files[prev->file].path);
		if (prev != NULL && c[i].first - 1 > prev->last)
			return verify_violation(v,
			    "%s %s[%" PRId64 "]: offsets %" PRId64
			    "..%" PRId64 " are missing (a gap)", c->table,
			    c->topic, c->partition, prev->last + 1,
			    c[i].first - 1);
		prev = &c[i];
	}
	for (; i < n; i++) {
		if (prev == NULL || c[i].first < c[0].first ||
		    c[i].last > prev->last)
			return verify_violation(v,
			    "%s: spilled offsets %" PRId64 "..%"
			    PRId64 " have their first row in no file of %s "
			    "and are not rejected", v->files[c[i].file].path,
			    c[i].first, c[i].last, c[i].table);
	}
	return 0;
}

static int
verify_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The table directories and the tables the claims name, counted once:
 * both lists are sorted, so a merge meets equal names side by side. */
static size_t
verify_count_tables(struct verify *v)
{
	const char *last = NULL, *t;
	size_t n = 0, i = 0, k = 0;

	if (v->ntables > 1)
		qsort(v->tables, v->ntables, sizeof(*v->tables),
		    verify_cmp_str);
	while (i < v->ntables || k < v->nclaims) {
		if (k == v->nclaims || (i < v->ntables &&
		    strcmp(v->tables[i], v->claims[k].table) <= 0))
			t = v->tables[i++];
		else
			t = v->claims[k++].table;
		if (last == NULL || strcmp(last, t) != 0)
			n++;
		last = t;
	}
	return n;
}

/* Whether m lists the part file name. */
static int
verify_manifest_lists(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (strcmp(m->files[i].name, name) == 0)
			return 1;
	return 0;
}

/* Checks the manifest m at path against the part files of its hour. */
static int
verify_manifest_files(struct verify *v, const char *path,
    const struct manifest *m, const char *dir)
{
	char key[PATH_MAX], why[1024];
	struct mfcheck_file *hf;
	size_t lo = 0, hi = v->nfiles, mid, n, kl, hn = 0;
	int r;

	/* the files are sorted by path, so those under dir are together */
	kl = (size_t)snprintf(key, sizeof(key), "%s/", dir);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(v->files[mid].path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo + n < v->nfiles &&
	    strncmp(v->files[lo + n].path, key, kl) == 0; n++)
		;
	if ((hf = calloc(n + 1, sizeof(*hf))) == NULL)
		return verify_nomem(v);
	/* a file that landed after the manifest (late rows, or another host's
	 * file) waits for the next revision: counted, not a violation */
	for (size_t i = 0, k = 0; i < n; i++) {
		const char *name = v->files[lo + i].path + kl;

		if (!verify_manifest_lists(m, name)) {
			v->awaiting++;
			continue;
		}
		hf[k].name = name;
		hf[k++].sc = &v->files[lo + i].sc;
		hn = k;
	}
	r = mfcheck_hour(m, hf, hn, why, sizeof(why));
	free(hf);
	if (r < 0)
		return verify_nomem(v);
	return r == 0 ? 0 : verify_violation(v, "%s: %s", path, why);
}

/* Hour h's manifest: it parses, belongs there, has its _SUCCESS beside it
 * and agrees with the part files there. */
static int
verify_manifest(struct verify *v, const struct vhour *h)
{
	char path[PATH_MAX], want[PATH_MAX], err[512], *text;
	struct manifest m;
	size_t len = 0;
	int r;

	if (!h->has_manifest)
		return verify_violation(v, "%s: " MANIFEST_SUCCESS " without "
		    MANIFEST_NAME, h->dir);
	if ((size_t)snprintf(path, sizeof(path), "%s/" MANIFEST_NAME,
	    h->dir) >= sizeof(path))
		return verify_failure(v, -ENAMETOOLONG, "%s", h->dir);
	if ((r = verify_text_load(v, path, "manifest", &text, &len)) != 0)
		return r;
	r = manifest_parse(text, len, &m, err, sizeof(err));
	free(text);
	if (r == -ENOMEM)
		r = verify_nomem(v);
	else if (r != 0)
		r = verify_violation(v, "%s: malformed manifest: %s", path,
		    err);
	else if (snprintf(want, sizeof(want), "%s/dt=%s/hr=%s", m.table, m.dt,
	    m.hr) < 0 || strcmp(want, h->dir) != 0)
		r = verify_violation(v, "%s: says it is the manifest of %s",
		    path, want);
	else if (!h->has_success)
		r = verify_violation(v, "%s: no " MANIFEST_SUCCESS " beside it",
		    path);
	else
		r = verify_manifest_files(v, path, &m, h->dir);
	manifest_clear(&m);
	if (r == 0)
		v->manifests++;
	return r;
}

static int
verify_cmp_hour(const void *a, const void *b)
{
	return strcmp(((const struct vhour *)a)->dir,
	    ((const struct vhour *)b)->dir);
}

/* Every hour with a manifest or a _SUCCESS, in the order of their paths. */
static int
verify_manifests(struct verify *v)
{
	int r;

	if (v->nhours > 1)
		qsort(v->hours, v->nhours, sizeof(*v->hours), verify_cmp_hour);
	for (size_t i = 0; i < v->nhours; i++)
		if ((r = verify_manifest(v, &v->hours[i])) != 0)
			return r;
	return 0;
}

static void
verify_clear(struct verify *v)
{
	for (size_t i = 0; i < v->nfiles; i++) {
		free(v->files[i].path);
		sidecar_clear(&v->files[i].sc);
	}
	free(v->files);
	for (size_t i = 0; i < v->ntables; i++)
		free(v->tables[i]);
	free(v->tables);
	free(v->claims);
	for (size_t i = 0; i < v->nhours; i++)
		free(v->hours[i].dir);
	free(v->hours);
	for (size_t i = 0; i < v->npqtables; i++) {
		free(v->pqtables[i].table);
		free(v->pqtables[i].columns);
	}
	free(v->pqtables);
	free(v->in);
	free(v->out);
	ZSTD_freeDStream(v->zds);
	spool_hash_free(v->hash);
	if (v->rootfd >= 0)
		close(v->rootfd);
}

int
verify_check(const char *dir, struct verify_summary *sum, char *msg,
    size_t msglen)
{
	struct verify v;
	size_t i, j, partitions = 0;
	int r;

	memset(&v, 0, sizeof(v));
	memset(sum, 0, sizeof(*sum));
	v.dir = dir;
	v.msg = msg;
	v.msglen = msglen;
	if ((v.rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = verify_failure(&v, -errno, "%s", dir);
		goto out;
	}
	if ((v.in = malloc(CHUNK)) == NULL || (v.out = malloc(CHUNK)) == NULL) {
		r = verify_nomem(&v);
		goto out;
	}
	if ((r = verify_walk(&v, ".", L_ROOT)) != 0)
		goto out;
	verify_merge_files(&v);
	for (i = 0; i < v.nfiles; i++)
		if ((r = verify_file(&v, i)) != 0)
			goto out;
	if (v.nclaims > 1)
		qsort(v.claims, v.nclaims, sizeof(*v.claims), verify_cmp_claim);
	for (i = 0; i < v.nclaims; i = j) {
		for (j = i + 1; j < v.nclaims &&
		    verify_same_partition(&v.claims[i], &v.claims[j]); j++)
			;
		if ((r = verify_partition(&v, v.claims + i, j - i)) != 0)
			goto out;
		partitions++;
	}
	if ((r = verify_manifests(&v)) != 0)
		goto out;
	*sum = (struct verify_summary){ v.nfiles, v.rows, partitions,
	    verify_count_tables(&v), v.manifests, v.unread, v.awaiting,
	    v.crc32c_files, v.sha256_files };
	snprintf(msg, msglen, "verify OK: %zu files (%zu checked by crc32c, "
	    "%zu by sha256), %" PRIu64 " rows, %zu partitions in %zu tables, "
	    "%zu manifests", sum->files, sum->crc32c_files, sum->sha256_files,
	    sum->rows, sum->partitions, sum->tables, sum->manifests);
	if (sum->unread > 0) {
		size_t len = strlen(msg);
		snprintf(msg + len, msglen - len, "; %" PRIu64 " offsets deleted "
		    "by the broker before kedge read them", sum->unread);
	}
	if (sum->awaiting > 0) {
		size_t len = strlen(msg);
		snprintf(msg + len, msglen - len, " (%zu files landed after "
		    "their hour's manifest, for its next revision)",
		    sum->awaiting);
	}
out:
	verify_clear(&v);
	return r;
}

int
verify_print_json(int r, const struct verify_summary *sum, const char *msg,
    FILE *out)
{
	static const char prefix[] = "verify: ";
	json_t *o = json_object();
	int e = -ENOMEM;

	if (o == NULL || jsondoc_set(o, "ok", json_boolean(r == 0)) < 0)
		goto out;
	if (r != 0) {
		if (strncmp(msg, prefix, sizeof(prefix) - 1) == 0)
			msg += sizeof(prefix) - 1;
		if (jsondoc_set(o, "violation", jsondoc_text(msg)) < 0)
			goto out;
	} else if (jsondoc_set_int(o, "files", (int64_t)sum->files) < 0 ||
	    jsondoc_set_int(o, "rows", (int64_t)sum->rows) < 0 ||
	    jsondoc_set_int(o, "partitions", (int64_t)sum->partitions) < 0 ||
	    jsondoc_set_int(o, "tables", (int64_t)sum->tables) < 0 ||
	    jsondoc_set_int(o, "manifests", (int64_t)sum->manifests) < 0 ||
	    jsondoc_set_int(o, "unread_offsets", (int64_t)sum->unread) < 0 ||
	    jsondoc_set_int(o, "awaiting_files", (int64_t)sum->awaiting) < 0 ||
	    jsondoc_set_int(o, "crc32c_files", (int64_t)sum->crc32c_files) < 0 ||
	    jsondoc_set_int(o, "sha256_files", (int64_t)sum->sha256_files) < 0)
		goto out;
	e = jsondoc_print(o, out);
out:
	json_decref(o);
	return e;
}
