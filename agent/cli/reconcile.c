/*
 * reconcile: the hours of `kedge reconcile`, its passes over both sides,
 * the verdicts and the rows --explain names (reconcile_int.h).
 */
#include "agent/cli/reconcile_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/parse/table.h"
#include "agent/write/fingerprint.h"
#include "lib/err.h"
#include "lib/grow.h"

static const char *const rc_formats[] = {
	[RC_RAW] = "raw", [RC_HIVE_TEXT] = "hive-text", [RC_TSV] = "tsv",
	[RC_CSV] = "csv", [RC_JSONL] = "jsonl",
};

/* "YYYYMMDDHH" with an hour 00..23 and a real date. */
static int
rc_parse_key(const char *s, int64_t *key)
{
	struct tm tm = { 0 };
	time_t t;
	int y, mo, d, h;

	if (strlen(s) != 10 || strspn(s, "0123456789") != 10 ||
	    sscanf(s, "%4d%2d%2d%2d", &y, &mo, &d, &h) != 4 || h > 23 ||
	    mo < 1 || mo > 12 || d < 1)
		return -EINVAL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	t = timegm(&tm);
	if (gmtime_r(&t, &tm) == NULL || tm.tm_mday != d)
		return -EINVAL;
	*key = (int64_t)y * 1000000 + mo * 10000 + d * 100 + h;
	return 0;
}

int
reconcile_check(const struct reconcile_opts *o, char *err, size_t errlen)
{
	int64_t from, to;
	int modes = (o->offline != NULL) + (o->offline_counts != NULL) +
	    (o->print_sql != NULL);

	if (o->table == NULL)
		return err_set(err, errlen, -EINVAL, "--table: name the table "
		    "to reconcile");
	if (o->from == NULL || rc_parse_key(o->from, &from) < 0)
		return err_set(err, errlen, -EINVAL, "--from %s: give the first "
		    "hour as YYYYMMDDHH", o->from ? o->from : "missing");
	if (o->to == NULL || rc_parse_key(o->to, &to) < 0)
		return err_set(err, errlen, -EINVAL, "--to %s: give the last "
		    "hour as YYYYMMDDHH", o->to ? o->to : "missing");
	if (to < from)
		return err_set(err, errlen, -EINVAL, "--to %s is before --from "
		    "%s", o->to, o->from);
	if (modes != 1)
		return err_set(err, errlen, -EINVAL, "give one of --offline "
		    "DIR|URL, --offline-counts FILE and --print-sql spark");
	if (o->print_sql != NULL && strcmp(o->print_sql, "spark") != 0)
		return err_set(err, errlen, -EINVAL, "--print-sql %s: the "
		    "dialect kedge prints is spark", o->print_sql);
	if ((o->print_sql != NULL) != (o->offline_table != NULL))
		return err_set(err, errlen, -EINVAL, "--offline-table DB.TABLE "
		    "goes with --print-sql, and --print-sql needs it");
	if (o->explain != 0 && o->offline == NULL)
		return err_set(err, errlen, -EINVAL, "--explain reads the rows: "
		    "it goes with --offline DIR|URL");
	if (o->explain < 0)
		return err_set(err, errlen, -EINVAL, "--explain %ld: give a "
		    "number of rows, 1 or more", o->explain);
	if (o->offline == NULL && (o->offline_format != NULL ||
	    o->user != NULL || o->ca_file != NULL))
		return err_set(err, errlen, -EINVAL, "--offline-format, --user "
		    "and --ca-file go with --offline DIR|URL");
	if (o->offline_counts != NULL && (o->offline_layout != NULL ||
	    o->offline_time != NULL || o->lookback >= 0 || o->lateness >= 0))
		return err_set(err, errlen, -EINVAL, "--offline-counts FILE "
		    "holds hours already counted: --offline-layout, "
		    "--offline-time, --lookback and --lateness go with "
		    "--offline or --print-sql");
	for (const char *l = o->offline_layout; l != NULL && *l != '\0'; l++)
		if (*l == '%' && (l[1] == '\0' || strchr("YmdH%", *++l) == NULL))
			return err_set(err, errlen, -EINVAL, "--offline-layout "
			    "%s: a partition's path takes %%Y, %%m, %%d, %%H and "
			    "%%%%", o->offline_layout);
	if (o->print_sql != NULL && o->json)
		return err_set(err, errlen, -EINVAL, "--json goes with a "
		    "report, not --print-sql");
	return 0;
}

int64_t
rc_local_us(struct rc *rc, int y, int mo, int d, int h, int mi, int s, int us)
{
	struct tm tm = { 0 };
	int64_t key = (int64_t)y * 1000000 + mo * 10000 + d * 100 + h;
	int64_t civil;

	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	civil = (int64_t)timegm(&tm);
	/* one local hour has one offset (the hour a clock goes back takes
	 * either: its local times read the same) */
	if (key != rc->local_key) {
		tm.tm_isdst = -1;
		rc->local_off = civil - (int64_t)mktime(&tm);
		rc->local_key = key;
	}
	return (civil - rc->local_off + (int64_t)mi * 60 + s) * 1000000 + us;
}

int64_t
rc_key_us(struct rc *rc, int64_t key)
{
	return rc_local_us(rc, (int)(key / 1000000), (int)(key / 10000 % 100),
	    (int)(key / 100 % 100), (int)(key % 100), 0, 0, 0);
}

int64_t
rc_hour_key(struct rc *rc, int64_t us)
{
	struct tz_hour h;

	return tz_hour_of(rc->tz, us, &h) < 0 ? -1 : h.key;
}

long
rc_hour_find(const struct rc *rc, int64_t key)
{
	size_t lo = 0, hi = rc->nhours, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rc->hours[mid].key == key)
			return (long)mid;
		if (rc->hours[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int
rc_hour_wanted(const struct rc *rc, size_t h)
{
	const struct rc_hour *hr = &rc->hours[h];

	return rc->pass == RC_COUNT || (hr->verdict != RC_MATCH &&
	    hr->verdict != RC_EMPTY && hr->verdict != RC_INCOMPLETE);
}

long
rc_file_id(struct rc *rc, enum rc_side side, const char *path)
{
	struct rc_file *f;

	for (size_t i = 0; i < rc->nfiles; i++)
		if (rc->files[i].side == side &&
		    strcmp(rc->files[i].path, path) == 0)
			return (long)i;
	if (grow_array((void **)&rc->files, &rc->files_cap, rc->nfiles + 1,
	    sizeof(*rc->files)) < 0)
		return err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
	f = &rc->files[rc->nfiles];
	memset(f, 0, sizeof(*f));
	if ((f->path = strdup(path)) == NULL)
		return err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
	f->side = side;
	return (long)rc->nfiles++;
}

static int rc_origin_cmp(const void *pa, const void *pb);

/* The named row of side from (file, line, sub), or NULL. */
static struct rc_row *
rc_named_find(struct rc *rc, enum rc_side side, long file, uint64_t line,
    uint32_t sub)
{
	struct rc_row key = { .side = side, .file = (uint32_t)file,
	    .line = line, .sub = sub }, *kp = &key, **at;

	if (rc->nnamed == 0)
		return NULL;
	at = bsearch(&kp, rc->named, rc->nnamed, sizeof(*rc->named),
	    rc_origin_cmp);
	return at != NULL ? *at : NULL;
}

int
rc_row(struct rc *rc, enum rc_side side, size_t h,
    const struct udtf_value *vals, long file, uint64_t line, uint32_t sub)
{
	struct rc_row *r;
	uint64_t hash;

	if (!rc_hour_wanted(rc, h))
		return 0;
	buf_reset(&rc->text);
	if (fingerprint_text(rc->tz, vals, rc->pick_index, rc->npick,
	    &rc->text) < 0)
		return err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
	hash = fingerprint_hash(rc->text.data, rc->text.len);
	switch (rc->pass) {
	case RC_COUNT:
		rc->hours[h].rows[side]++;
		rc->hours[h].fp[side] += hash;
		return 0;
	case RC_COLLECT:
		if (grow_array((void **)&rc->rows, &rc->rows_cap, rc->nrows + 1,
		    sizeof(*rc->rows)) < 0)
			return err_set(rc->err, rc->errlen, -ENOMEM,
			    "out of memory");
		r = &rc->rows[rc->nrows++];
		memset(r, 0, sizeof(*r));
		r->hash = hash;
		r->hour = (uint32_t)h;
		r->file = (uint32_t)file;
		r->line = line;
		r->sub = sub;
		r->side = side;
		return 0;
	case RC_FETCH:
		if ((r = rc_named_find(rc, side, file, line, sub)) != NULL &&
		    r->text == NULL && (r->text = strndup(rc->text.data,
		    rc->text.len)) == NULL)
			return err_set(rc->err, rc->errlen, -ENOMEM,
			    "out of memory");
		return 0;
	}
	return 0;
}

/* The hours from --from to --to, each local hour once. */
static int
rc_hours(struct rc *rc)
{
	int64_t us = rc_key_us(rc, rc->from_key), key, last = -1;
	struct rc_hour *h;
	size_t cap = 0;

	/* an hour's start, then the hours after it: a local hour that the
	 * clock skips is none, one it repeats is one */
	while ((key = rc_hour_key(rc, us)) >= 0 && key <= rc->to_key) {
		if (key != last && key >= rc->from_key) {
			if (grow_array((void **)&rc->hours, &cap,
			    rc->nhours + 1, sizeof(*rc->hours)) < 0)
				return err_set(rc->err, rc->errlen, -ENOMEM,
				    "out of memory");
			h = &rc->hours[rc->nhours++];
			memset(h, 0, sizeof(*h));
			h->key = key;
			snprintf(h->dt, sizeof(h->dt), "%08d",
			    (int)(key / 100 % 100000000));
			snprintf(h->hr, sizeof(h->hr), "%02d", (int)(key % 100));
		}
		last = key;
		us += (int64_t)3600 * 1000000;
	}
	if (key < 0)
		return err_set(rc->err, rc->errlen, -ERANGE, "--from %s to --to "
		    "%s: hours out of the range of time kedge handles "
		    "(1970 to 9999)", rc->o->from, rc->o->to);
	return 0;
}

/* The columns compared (--columns, default all) and their offline names. */
static int
rc_columns(struct rc *rc)
{
	char *list = NULL, *item, *save = NULL, *eq;
	const char **names;
	int r = 0;

	if ((rc->names = names = calloc(rc->ncols + 1, sizeof(char *))) ==
	    NULL ||
	    (rc->offline_names = calloc(rc->ncols + 1, sizeof(char *))) == NULL ||
	    (rc->pick = calloc(rc->ncols, sizeof(*rc->pick))) == NULL ||
	    (rc->pick_index = calloc(rc->ncols, sizeof(size_t))) == NULL)
		return err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < rc->ncols; i++)
		names[i] = rc->offline_names[i] = rc->cols[i].name;
	if (rc->o->columns == NULL) {
		for (size_t i = 0; i < rc->ncols; i++)
			rc->pick[i].index = i;
		rc->npick = rc->ncols;
	} else {
		if ((list = strdup(rc->o->columns)) == NULL)
			return err_set(rc->err, rc->errlen, -ENOMEM,
			    "out of memory");
		for (item = strtok_r(list, ",", &save); item != NULL && r == 0;
		    item = strtok_r(NULL, ",", &save)) {
			size_t i;

			if ((eq = strchr(item, '=')) != NULL)
				*eq++ = '\0';
			for (i = 0; i < rc->ncols; i++)
				if (strcmp(rc->cols[i].name, item) == 0)
					break;
			if (i == rc->ncols || (eq != NULL && *eq == '\0')) {
				r = err_set(rc->err, rc->errlen, -EINVAL,
				    "--columns: %s%s", eq != NULL && i <
				    rc->ncols ? "no offline name for " :
				    "the table has no column ", item);
				break;
			}
			for (size_t k = 0; k < rc->npick; k++)
				if (rc->pick[k].index == i)
					r = err_set(rc->err, rc->errlen, -EINVAL,
					    "--columns: %s is named twice", item);
			rc->pick[rc->npick++].index = i;
			if (eq != NULL && (rc->offline_names[i] =
			    strdup(eq)) == NULL)
				r = err_set(rc->err, rc->errlen, -ENOMEM,
				    "out of memory");
		}
		free(list);
		if (r < 0)
			return r;
	}
	rc->all_columns = rc->npick == rc->ncols;
	for (size_t k = 0; k < rc->npick; k++) {
		rc->pick[k].offline = rc->offline_names[rc->pick[k].index];
		rc->pick_index[k] = rc->pick[k].index;
		rc->all_columns &= rc->pick[k].index == k;
	}
	return 0;
}

/* The event-time columns of both sides. */
static int
rc_event_columns(struct rc *rc)
{
	const char *want = rc->o->offline_time;

	rc->event_col = rc->offline_time_col = -1;
	for (size_t i = 0; i < rc->ncols; i++)
		if (strcmp(rc->cols[i].name, rc->ct->event_time) == 0)
			rc->event_col = (int)i;
	if (want == NULL) {
		rc->offline_time_col = rc->event_col;
		if (rc->event_col < 0 && rc->o->offline_counts == NULL)
			return err_set(rc->err, rc->errlen, -EINVAL, "table %s "
			    "takes its event time from the Kafka timestamp, "
			    "which %s has none of: name the offline column "
			    "that holds it with --offline-time",
			    rc->ct->name, rc->format == RC_RAW ? "a dump of "
			    "the records" : "the offline rows");
		return 0;
	}
	if (rc->format == RC_RAW && rc->o->offline != NULL)
		return err_set(rc->err, rc->errlen, -EINVAL, "--offline-time: "
		    "a raw dump's event time is the table's own (%s)",
		    rc->ct->event_time);
	for (size_t i = 0; i < rc->ncols && rc->offline_time_col < 0; i++)
		if (strcmp(rc->offline_names[i], want) == 0)
			rc->offline_time_col = (int)i;
	for (size_t i = 0; i < rc->ncols && rc->offline_time_col < 0; i++)
		if (strcmp(rc->cols[i].name, want) == 0)
			rc->offline_time_col = (int)i;
	if (rc->offline_time_col < 0)
		return err_set(rc->err, rc->errlen, -EINVAL, "--offline-time %s:"
		    " the table %s has no such column", want, rc->ct->name);
	if (rc->cols[rc->offline_time_col].type != UDTF_TIMESTAMP)
		return err_set(rc->err, rc->errlen, -EINVAL, "--offline-time %s:"
		    " not a timestamp column", want);
	return 0;
}

/* The table, its UDTFs, the time zone, the columns and the hours. */
static int
rc_setup(struct rc *rc)
{
	const struct reconcile_opts *o = rc->o;
	const char *fmt = o->offline_format ? o->offline_format : "raw";
	char why[1024];
	size_t i;
	int r;

	for (i = 0; i < rc->c->n_tables; i++)
		if (strcmp(rc->c->tables[i].name, o->table) == 0)
			break;
	if (i == rc->c->n_tables)
		return err_set(rc->err, rc->errlen, -EINVAL, "--table %s: %s "
		    "has no such table", o->table, rc->c->path);
	rc->ct = &rc->c->tables[i];
	rc->table_index = i;
	for (i = 0; i < sizeof(rc_formats) / sizeof(rc_formats[0]); i++)
		if (strcmp(fmt, rc_formats[i]) == 0)
			break;
	if (i == sizeof(rc_formats) / sizeof(rc_formats[0]))
		return err_set(rc->err, rc->errlen, -EINVAL, "--offline-format "
		    "%s: give raw, hive-text, tsv, csv or jsonl", fmt);
	rc->format = (enum rc_format)i;
	rc->layout = o->offline_layout ? o->offline_layout : RECONCILE_LAYOUT;
	if ((rc->tz = tz_open(rc->c->output.timezone, why,
	    sizeof(why))) == NULL)
		return err_set(rc->err, rc->errlen, -EINVAL, "%s", why);
	if ((rc->chain = chain_new(rc->c, rc->table_index, why,
	    sizeof(why))) == NULL)
		return err_set(rc->err, rc->errlen, -EINVAL, "%s", why);
	chain_columns(rc->chain, &rc->cols, &rc->ncols);
	if ((r = rc_columns(rc)) < 0 || (r = rc_event_columns(rc)) < 0)
		return r;
	/* no reader of Parquet rows: only the sums the files were written
	 * with, of all the columns */
	if (rc->ct->format == FORMAT_PARQUET && o->print_sql == NULL &&
	    (o->explain > 0 || !rc->all_columns))
		return err_set(rc->err, rc->errlen, -ENOTSUP, "%s: table %s is "
		    "Parquet, whose rows reconcile does not read back: it "
		    "compares all its columns, from the fingerprints of its "
		    "manifests and sidecars", o->explain > 0 ? "--explain" :
		    "--columns", rc->ct->name);
	rc_parse_key(o->from, &rc->from_key);
	rc_parse_key(o->to, &rc->to_key);
	rc->local_key = -1;
	rc->load_lo = rc_hour_key(rc, rc_key_us(rc, rc->from_key) -
	    (o->lookback >= 0 ? o->lookback : RECONCILE_LOOKBACK) *
	    (int64_t)3600000000);
	rc->load_hi = rc_hour_key(rc, rc_key_us(rc, rc->to_key) +
	    (o->lateness >= 0 ? o->lateness : RECONCILE_LATENESS) *
	    (int64_t)3600000000);
	if (rc->load_lo < 0 || rc->load_hi < 0)
		return err_set(rc->err, rc->errlen, -ERANGE, "--lookback or "
		    "--lateness: load hours out of the range of time kedge "
		    "handles (1970 to 9999)");
	return rc_hours(rc);
}

static void
rc_verdicts(struct rc *rc)
{
	for (size_t i = 0; i < rc->nhours; i++) {
		struct rc_hour *h = &rc->hours[i];
		uint64_t k = h->rows[RC_KEDGE], o = h->rows[RC_OFFLINE];

		if (h->kedge_files && !h->complete)
			h->verdict = RC_INCOMPLETE;
		else if (k == 0 && o == 0)
			h->verdict = RC_EMPTY;
		else if (k < o)
			h->verdict = RC_MISSING;
		else if (k > o)
			h->verdict = RC_EXTRA;
		else if (h->fp[RC_KEDGE] != h->fp[RC_OFFLINE])
			h->verdict = RC_DIFFER;
		else
			h->verdict = RC_MATCH;
	}
}

static int
rc_row_cmp(const void *pa, const void *pb)
{
	const struct rc_row *a = pa, *b = pb;

	if (a->hour != b->hour)
		return a->hour < b->hour ? -1 : 1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (a->sub > b->sub) - (a->sub < b->sub);
}

static int
rc_origin_cmp(const void *pa, const void *pb)
{
	const struct rc_row *a = *(const struct rc_row *const *)pa;
	const struct rc_row *b = *(const struct rc_row *const *)pb;

	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (a->sub > b->sub) - (a->sub < b->sub);
}

/* Names, per hour that does not match, up to --explain rows of each side
 * that the other lacks: of a row one side holds k times and the other o
 * times, the last k - o copies.  Then lists them by where they are, for
 * rc_named_find(). */
static int
rc_name_rows(struct rc *rc)
{
	size_t i = 0, j, named[2] = { 0, 0 };
	uint32_t hour = UINT32_MAX;

	if (rc->nrows > 1)
		qsort(rc->rows, rc->nrows, sizeof(*rc->rows), rc_row_cmp);
	while (i < rc->nrows) {
		uint64_t n[2] = { 0, 0 }, surplus;
		enum rc_side more;

		if (rc->rows[i].hour != hour) {
			hour = rc->rows[i].hour;
			named[0] = named[1] = 0;
		}
		for (j = i; j < rc->nrows && rc->rows[j].hour == hour &&
		    rc->rows[j].hash == rc->rows[i].hash; j++)
			n[rc->rows[j].side]++;
		more = n[RC_KEDGE] > n[RC_OFFLINE] ? RC_KEDGE : RC_OFFLINE;
		surplus = n[more] - n[!more];
		for (size_t k = j; k > i && surplus > 0; k--) {
			struct rc_row *r = &rc->rows[k - 1];

			if (r->side != more)
				continue;
			surplus--;
			if (named[more] >= (size_t)rc->o->explain)
				continue;
			r->named = 1;
			r->here = n[more];
			r->there = n[!more];
			rc->files[r->file].wanted = 1;
			named[more]++;
			rc->nnamed++;
		}
		i = j;
	}
	if ((rc->named = calloc(rc->nnamed + 1, sizeof(*rc->named))) == NULL)
		return err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
	for (i = 0, j = 0; i < rc->nrows; i++)
		if (rc->rows[i].named)
			rc->named[j++] = &rc->rows[i];
	if (rc->nnamed > 1)
		qsort(rc->named, rc->nnamed, sizeof(*rc->named), rc_origin_cmp);
	return 0;
}

/* Reads the offline side as rc->o says. */
static int
rc_offline(struct rc *rc)
{
	if (rc->o->offline_counts != NULL)
		return rc->pass == RC_COUNT ? rc_read_counts(rc,
		    rc->o->offline_counts) : 0;
	return rc_offline_read(rc);
}

/* The passes COLLECT and FETCH over the hours that do not match. */
static int
rc_explain(struct rc *rc)
{
	int r;
	size_t bad = 0;

	for (size_t i = 0; i < rc->nhours; i++)
		bad += rc->hours[i].verdict == RC_MISSING ||
		    rc->hours[i].verdict == RC_EXTRA ||
		    rc->hours[i].verdict == RC_DIFFER;
	if (bad == 0)
		return 0;
	rc->pass = RC_COLLECT;
	if ((r = rc_kedge_read(rc)) < 0 || (r = rc_offline(rc)) < 0)
		return r;
	if ((r = rc_name_rows(rc)) < 0)
		return r;
	rc->pass = RC_FETCH;
	if ((r = rc_kedge_read(rc)) < 0 || (r = rc_offline(rc)) < 0)
		return r;
	return 0;
}

static void
rc_clear(struct rc *rc)
{
	for (size_t i = 0; i < rc->nfiles; i++) {
		free(rc->files[i].path);
		free(rc->files[i].topic);
		sidecar_ranges_clear(&rc->files[i].records);
	}
	free(rc->files);
	for (size_t i = 0; i < rc->nrows; i++)
		free(rc->rows[i].text);
	free(rc->rows);
	free(rc->named);
	for (size_t i = 0; rc->offline_names != NULL && i < rc->ncols; i++)
		if (rc->offline_names[i] != rc->cols[i].name)
			free((char *)rc->offline_names[i]);
	free(rc->offline_names);
	free((void *)rc->names);
	free(rc->pick);
	free(rc->pick_index);
	free(rc->hours);
	target_close(rc->kedge_t);
	target_close(rc->offline_t);
	chain_free(rc->chain);
	tz_close(rc->tz);
	buf_clear(&rc->text);
}

int
reconcile_run(const struct conf *c, const struct reconcile_opts *o,
    FILE *out, char *err, size_t errlen)
{
	struct rc rc = { 0 };
	char why[1024];
	struct webhdfs_opts wo = { .user = o->user, .ca_file = o->ca_file,
	    .connect_timeout = 10, .timeout = 600 };
	int r;

	rc.c = c;
	rc.o = o;
	rc.err = err;
	rc.errlen = errlen;
	if ((r = rc_setup(&rc)) < 0)
		goto out;
	if (o->print_sql != NULL) {
		r = rc_print_sql(&rc, out);
		goto out;
	}
	if ((rc.kedge_t = target_open(c, err, errlen)) == NULL) {
		r = -EIO;
		goto out;
	}
	if (o->offline != NULL && (rc.offline_t = target_open_at(o->offline,
	    &wo, why, sizeof(why))) == NULL) {
		r = err_set(err, errlen, -EIO, "--offline %s", why);
		goto out;
	}
	rc.pass = RC_COUNT;
	if ((r = rc_kedge_read(&rc)) < 0 || (r = rc_offline(&rc)) < 0)
		goto out;
	rc_verdicts(&rc);
	if (o->explain > 0 && (r = rc_explain(&rc)) < 0)
		goto out;
	if ((r = rc_report(&rc, out)) < 0)
		goto out;
	r = 0;
	for (size_t i = 0; i < rc.nhours; i++)
		if (rc.hours[i].verdict != RC_MATCH &&
		    rc.hours[i].verdict != RC_EMPTY)
			r = 1;
out:
	rc_clear(&rc);
	return r;
}
