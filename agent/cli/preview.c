#include "agent/cli/preview.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/parse/table.h"
#include "agent/write/format.h"
#include "agent/write/tz.h"
#include "lib/buf.h"
#include "lib/jsondoc.h"

#define PREVIEW_BATCH 256       /* records parsed at a time */

struct preview {
	const struct preview_opts *o;
	const struct conf_table *tc;
	const struct udtf_column *cols;
	size_t ncols;
	struct tz *tz;
	FILE *out;
	size_t first_line;          /* of the batch: line numbers from 1 */
	struct buf row;
	int failed;                 /* out of memory while printing */
};

/* Appends the hive-text row in p->row (fields split by tabs, escaped as
 * Hive text escapes them, its line end included) to out as one readable
 * line: the tab Hive text writes after a backslash (one in a value) as
 * "t", every other control byte as \xHH. */
static void
preview_hive_line(const struct buf *row, FILE *out)
{
	size_t len = row->len;

	if (len > 0 && row->data[len - 1] == '\n')
		len--;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)row->data[i];

		if (ch == '\\' && i + 1 < len) {
			fputc('\\', out);
			ch = (unsigned char)row->data[++i];
			if (ch == '\t')
				ch = 't';
		}
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			fprintf(out, "\\x%02x", ch);
		else
			fputc(ch, out);
	}
}

/* Renders row v in p->row as the table lands it: jsonl as its line, any
 * other format as hive-text with tabs between the fields. */
static int
preview_render(struct preview *p, const struct udtf_value *v, int json)
{
	struct format f = { json || p->tc->format == FORMAT_JSONL ?
	    FORMAT_JSONL : FORMAT_HIVE_TEXT, '\t', p->tz };

	buf_reset(&p->row);
	return format_row(&f, p->cols, v, p->ncols, &p->row);
}

static void
preview_text(struct preview *p, size_t line, const struct table_landing *l)
{
	if (l->reason != NULL) {
		fprintf(p->out, "%zu\trejected\t%s\n", line, l->reason);
		return;
	}
	if (l->nrows == 0)
		fprintf(p->out, "%zu\tno rows\n", line);
	for (size_t i = 0; i < l->nrows; i++) {
		if (preview_render(p, l->rows + i * p->ncols, 0) < 0) {
			p->failed = 1;
			return;
		}
		fprintf(p->out, "%zu\tdt=%s/hr=%s\t", line, l->hours[i].dt,
		    l->hours[i].hr);
		if (p->tc->format == FORMAT_JSONL)
			fwrite(p->row.data, 1, p->row.len, p->out);
		else {
			preview_hive_line(&p->row, p->out);
			fputc('\n', p->out);
		}
	}
}

/* {"dt": ..., "hr": ..., "row": {...}} of row i of l; NULL: out of
 * memory. */
static json_t *
preview_json_row(struct preview *p, const struct table_landing *l, size_t i)
{
	json_error_t e;
	json_t *row;

	if (preview_render(p, l->rows + i * p->ncols, 1) < 0 ||
	    (row = json_loadb(p->row.data, p->row.len, 0, &e)) == NULL)
		return NULL;
	return json_pack("{s:s,s:s,s:o}", "dt", l->hours[i].dt, "hr",
	    l->hours[i].hr, "row", row);
}

static void
preview_json(struct preview *p, size_t line, const struct table_landing *l)
{
	json_t *doc, *rows = NULL, *row;
	char *text;

	if (l->reason != NULL)
		doc = json_pack("{s:I,s:o}", "line", (json_int_t)line,
		    "rejected", jsondoc_text(l->reason));
	else {
		rows = json_array();
		for (size_t i = 0; rows != NULL && i < l->nrows; i++)
			if ((row = preview_json_row(p, l, i)) == NULL ||
			    json_array_append_new(rows, row) < 0) {
				json_decref(rows);
				rows = NULL;
			}
		doc = rows == NULL ? NULL : json_pack("{s:I,s:o}", "line",
		    (json_int_t)line, "rows", rows);
	}
	if (doc == NULL || (text = json_dumps(doc, JSON_COMPACT |
	    JSON_PRESERVE_ORDER)) == NULL) {
		json_decref(doc);
		p->failed = 1;
		return;
	}
	fprintf(p->out, "%s\n", text);
	free(text);
	json_decref(doc);
}

static void
preview_one(void *arg, size_t i, const struct table_landing *l)
{
	struct preview *p = arg;

	if (p->o->json)
		preview_json(p, p->first_line + i, l);
	else
		preview_text(p, p->first_line + i, l);
}

/* Reads up to PREVIEW_BATCH lines of in into lines (kept, the caller
 * frees them) and recs.  Returns how many, or -1 when in cannot be read. */
static long
preview_read(FILE *in, char **lines, size_t *caps, struct udtf_record *recs,
    const char *topic, size_t first)
{
	int64_t now_ms = (int64_t)time(NULL) * 1000;
	long n = 0;
	ssize_t len;

	while (n < PREVIEW_BATCH &&
	    (len = getline(&lines[n], &caps[n], in)) >= 0) {
		if (len > 0 && lines[n][len - 1] == '\n')
			len--;
		recs[n] = (struct udtf_record){ .data = lines[n],
		    .len = (size_t)len, .topic = topic, .partition = 0,
		    .offset = (int64_t)(first + (size_t)n - 1),
		    .timestamp_ms = now_ms };
		n++;
	}
	return ferror(in) ? -1 : n;
}

/* The first line of the text: the columns. */
static void
preview_header(const struct preview *p)
{
	fprintf(p->out, "# line\thour");
	for (size_t i = 0; p->tc->format != FORMAT_JSONL && i < p->ncols; i++)
		fprintf(p->out, "\t%s", p->cols[i].name);
	fprintf(p->out, "%s\n", p->tc->format == FORMAT_JSONL ? "\trow" : "");
}

int
preview_print(const struct conf *c, const struct preview_opts *o,
    FILE *in, FILE *out)
{
	struct preview p = { .o = o, .out = out, .first_line = 1 };
	struct udtf_record recs[PREVIEW_BATCH];
	char *lines[PREVIEW_BATCH] = { NULL }, err[1024];
	size_t caps[PREVIEW_BATCH] = { 0 }, index;
	struct table *t = NULL;
	int status = 1;
	long n;

	for (index = 0; index < c->n_tables; index++)
		if (strcmp(c->tables[index].name, o->table) == 0)
			break;
	if (index == c->n_tables) {
		fprintf(stderr, "kedge parse: %s has no table \"%s\"\n", c->path,
		    o->table);
		return 1;
	}
	p.tc = &c->tables[index];
	if ((p.tz = tz_open(c->output.timezone, err, sizeof(err))) == NULL ||
	    (t = table_new(c, index, p.tz, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	chain_columns(table_chain(t), &p.cols, &p.ncols);
	if (!o->json)
		preview_header(&p);
	while ((n = preview_read(in, lines, caps, recs, p.tc->topics.v[0],
	    p.first_line)) > 0) {
		if (table_preview(t, recs, (size_t)n, preview_one, &p, err,
		    sizeof(err)) < 0 || p.failed) {
			fprintf(stderr, "kedge parse: %s\n", p.failed ?
			    "out of memory" : err);
			goto out;
		}
		p.first_line += (size_t)n;
	}
	if (n < 0) {
		fprintf(stderr, "kedge parse: cannot read the records: %s\n",
		    strerror(errno));
		goto out;
	}
	status = fflush(out) == 0 ? 0 : 1;
out:
	table_free(t);
	tz_close(p.tz);
	buf_clear(&p.row);
	for (size_t i = 0; i < PREVIEW_BATCH; i++)
		free(lines[i]);
	return status;
}
