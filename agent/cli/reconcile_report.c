/*
 * reconcile_report: the report of `kedge reconcile` (reconcile_int.h), as
 * TSV or one JSON document.  TSV: a header, a line per hour,
 *
 *   table dt hr kedge_rows offline_rows difference kedge_fingerprint
 *   offline_fingerprint verdict
 *
 * (difference: kedge's rows less the offline side's), then a line per row
 * --explain names,
 *
 *   explain table dt hr side kind copies where row
 *
 * (side kedge or offline; kind "only" or, when the side holds it more than
 * once, "duplicate"; copies "N/M", on its side and the other; where the
 * topic, partition, offset and file row of a row of kedge's, the file and
 * line of an offline one; row its canonical text, a TAB between values),
 * and the summary line.
 */
#include "agent/cli/reconcile_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agent/write/fingerprint.h"
#include "lib/err.h"
#include "lib/jsondoc.h"

static const char *const rc_verdicts[RC_NVERDICTS] = {
	[RC_MATCH] = "match", [RC_MISSING] = "missing", [RC_EXTRA] = "extra",
	[RC_DIFFER] = "differ", [RC_INCOMPLETE] = "incomplete",
	[RC_EMPTY] = "empty",
};

/* Where a row comes from, into buf[size]. */
static const char *
rc_where(const struct rc *rc, const struct rc_row *r, char *buf, size_t size)
{
	const struct rc_file *f = &rc->files[r->file];
	uint64_t i = r->line - 1;

	if (f->side == RC_OFFLINE) {
		snprintf(buf, size, "%s:%" PRIu64, f->path, r->line);
		return buf;
	}
	if (!f->one_row_each) {
		snprintf(buf, size, "topic %s partition %" PRId32 ", row %"
		    PRIu64 " of %s/%s (its records give several rows each)",
		    f->topic, f->partition, r->line, target_where(rc->kedge_t),
		    f->path);
		return buf;
	}
	for (size_t k = 0; k < f->records.n; k++) {
		const struct sidecar_range *g = &f->records.v[k];
		uint64_t n = (uint64_t)(g->last - g->first) + 1;

		if (i < n) {
			snprintf(buf, size, "topic %s partition %" PRId32
			    " offset %" PRId64 ", row %" PRIu64 " of %s/%s",
			    f->topic, f->partition, g->first + (int64_t)i,
			    r->line, target_where(rc->kedge_t), f->path);
			return buf;
		}
		i -= n;
	}
	snprintf(buf, size, "row %" PRIu64 " of %s/%s", r->line,
	    target_where(rc->kedge_t), f->path);
	return buf;
}

/* A row's canonical text for a TSV line: a TAB between values, control
 * bytes as \xNN (a TAB as \t). */
static void
rc_print_row(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	for (; *p != '\0'; p++) {
		if (*p == '\\' && p[1] != '\0') {
			/* an escape of the text: the byte after it is data */
			fputc('\\', out);
			if (*++p < 0x20)
				fprintf(out, "x%02x", *p);
			else
				fputc(*p, out);
		} else if (*p == FINGERPRINT_SEP) {
			fputc('\t', out);
		} else if (*p == '\t') {
			fputs("\\t", out);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\x%02x", *p);
		} else {
			fputc(*p, out);
		}
	}
}

/* The summary's counts. */
static void
rc_count(const struct rc *rc, size_t n[RC_NVERDICTS])
{
	memset(n, 0, RC_NVERDICTS * sizeof(*n));
	for (size_t i = 0; i < rc->nhours; i++)
		n[rc->hours[i].verdict]++;
}

static int
rc_report_tsv(struct rc *rc, FILE *out)
{
	char a[FINGERPRINT_HEX + 1], b[FINGERPRINT_HEX + 1], where[8192];
	size_t n[RC_NVERDICTS];

	fprintf(out, "table\tdt\thr\tkedge_rows\toffline_rows\tdifference\t"
	    "kedge_fingerprint\toffline_fingerprint\tverdict\n");
	for (size_t i = 0; i < rc->nhours; i++) {
		const struct rc_hour *h = &rc->hours[i];

		fprintf(out, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64
		    "\t%s\t%s\t%s\n", rc->ct->name, h->dt, h->hr,
		    h->rows[RC_KEDGE], h->rows[RC_OFFLINE],
		    (int64_t)(h->rows[RC_KEDGE] - h->rows[RC_OFFLINE]),
		    fingerprint_format(h->fp[RC_KEDGE], a),
		    fingerprint_format(h->fp[RC_OFFLINE], b),
		    rc_verdicts[h->verdict]);
	}
	for (size_t i = 0; i < rc->nrows; i++) {
		const struct rc_row *r = &rc->rows[i];
		const struct rc_hour *h = &rc->hours[r->hour];

		if (!r->named)
			continue;
		fprintf(out, "explain\t%s\t%s\t%s\t%s\t%s\t%" PRIu64 "/%" PRIu64
		    "\t%s\t", rc->ct->name, h->dt, h->hr, r->side == RC_KEDGE ?
		    "kedge" : "offline", r->here > 1 ? "duplicate" : "only",
		    r->here, r->there, rc_where(rc, r, where, sizeof(where)));
		rc_print_row(out, r->text ? r->text : "");
		fputc('\n', out);
	}
	rc_count(rc, n);
	fprintf(out, "reconcile: %zu hours: %zu match, %zu missing, %zu extra, "
	    "%zu differ, %zu incomplete, %zu empty; rejects: kedge %" PRIu64
	    ", offline ", rc->nhours, n[RC_MATCH], n[RC_MISSING], n[RC_EXTRA],
	    n[RC_DIFFER], n[RC_INCOMPLETE], n[RC_EMPTY], rc->rejects[RC_KEDGE]);
	if (rc->offline_rejects_known)
		fprintf(out, "%" PRIu64 "\n", rc->rejects[RC_OFFLINE]);
	else
		fprintf(out, "-\n");
	return 0;
}

/* The rows --explain names in hour h, as a JSON array. */
static json_t *
rc_json_explain(struct rc *rc, size_t h)
{
	json_t *a = json_array(), *o;
	char where[8192];

	for (size_t i = 0; a != NULL && i < rc->nrows; i++) {
		const struct rc_row *r = &rc->rows[i];

		if (!r->named || r->hour != h)
			continue;
		o = json_pack("{s:s, s:s, s:I, s:I, s:s, s:s}",
		    "side", r->side == RC_KEDGE ? "kedge" : "offline",
		    "kind", r->here > 1 ? "duplicate" : "only",
		    "copies", (json_int_t)r->here,
		    "copies_other_side", (json_int_t)r->there,
		    "where", rc_where(rc, r, where, sizeof(where)),
		    "row", r->text ? r->text : "");
		if (o == NULL || json_array_append_new(a, o) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

static int
rc_report_json(struct rc *rc, FILE *out)
{
	char a[FINGERPRINT_HEX + 1], b[FINGERPRINT_HEX + 1];
	json_t *doc, *hours = json_array(), *sum, *o;
	struct buf text = { 0 };
	size_t n[RC_NVERDICTS];
	int r = -ENOMEM;

	rc_count(rc, n);
	sum = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
	    "hours", (json_int_t)rc->nhours,
	    "match", (json_int_t)n[RC_MATCH],
	    "missing", (json_int_t)n[RC_MISSING],
	    "extra", (json_int_t)n[RC_EXTRA],
	    "differ", (json_int_t)n[RC_DIFFER],
	    "incomplete", (json_int_t)n[RC_INCOMPLETE],
	    "empty", (json_int_t)n[RC_EMPTY],
	    "kedge_rejects", (json_int_t)rc->rejects[RC_KEDGE],
	    "offline_rejects", rc->offline_rejects_known ?
	    json_integer((json_int_t)rc->rejects[RC_OFFLINE]) : json_null());
	doc = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}",
	    "table", rc->ct->name, "from", rc->o->from, "to", rc->o->to,
	    "timezone", rc->c->output.timezone, "hours", hours,
	    "summary", sum);
	if (doc == NULL)
		goto out;
	for (size_t i = 0; i < rc->nhours; i++) {
		const struct rc_hour *h = &rc->hours[i];

		o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:s, s:s, s:s, s:o}",
		    "dt", h->dt, "hr", h->hr,
		    "kedge_rows", (json_int_t)h->rows[RC_KEDGE],
		    "offline_rows", (json_int_t)h->rows[RC_OFFLINE],
		    "difference", (json_int_t)(h->rows[RC_KEDGE] -
		    h->rows[RC_OFFLINE]),
		    "kedge_fingerprint", fingerprint_format(h->fp[RC_KEDGE], a),
		    "offline_fingerprint", fingerprint_format(h->fp[RC_OFFLINE],
		    b), "verdict", rc_verdicts[h->verdict],
		    "explain", rc_json_explain(rc, i));
		if (o == NULL || json_array_append_new(hours, o) < 0)
			goto out;
	}
	if ((r = jsondoc_dump(doc, &text)) == 0)
		fwrite(text.data, 1, text.len, out);
out:
	json_decref(doc);
	buf_clear(&text);
	return r < 0 ? err_set(rc->err, rc->errlen, r, "out of memory") : 0;
}

int
rc_report(struct rc *rc, FILE *out)
{
	return rc->o->json ? rc_report_json(rc, out) : rc_report_tsv(rc, out);
}
