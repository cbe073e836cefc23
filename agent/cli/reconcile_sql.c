/*
 * reconcile_sql: `kedge reconcile --print-sql spark`, the query that makes
 * the offline side on the warehouse's own engine, with Spark's built-in
 * functions only, and --offline-counts, reading its result back
 * (reconcile_int.h).  Per event hour: the rows and the sum modulo 2^64 of
 * xxhash64() of each row's canonical text (agent/write/fingerprint.h),
 * summed as DECIMAL so that no BIGINT overflows (which ANSI mode refuses).
 */
#include "agent/cli/reconcile_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli/textin.h"
#include "agent/write/fingerprint.h"
#include "lib/err.h"
#include "lib/escape.h"

#include <fcntl.h>

/* A well-formed UTF-8 sequence (lib/utf8.h's) in the hex of a string's
 * bytes, as a Java regular expression inside an SQL literal. */
#define RC_SQL_UTF8 "(?:[0-7][0-9A-F]|(?:C[2-9A-F]|D[0-9A-F])[89AB][0-9A-F]" \
	"|E0[AB][0-9A-F][89AB][0-9A-F]|E[1-9A-CEF](?:[89AB][0-9A-F]){2}" \
	"|ED[89][0-9A-F][89AB][0-9A-F]|F0[9AB][0-9A-F](?:[89AB][0-9A-F]){2}" \
	"|F[1-3](?:[89AB][0-9A-F]){3}|F48[0-9A-F](?:[89AB][0-9A-F]){2})"

/* Column c as a string whose bytes that are not part of valid UTF-8 are
 * U+0080..U+00FF, as fingerprint_text() takes them.  Spark keeps a
 * hive-text value's bytes as they are, so a string that is not ASCII goes
 * through its hex: the first pass marks each sequence ("..ghi"), each byte
 * 80-BF ("g..hi") and each byte C0-FF ("gh..i") (Java leaves a group that
 * did not match out of the replacement), the next ones write the marked
 * bytes as U+0080..U+00FF: C2 80-BF and C3 80-BF. */
static void
rc_sql_string(FILE *out, const char *c)
{
	static const char *const steps[][2] = {
		{ "(" RC_SQL_UTF8 ")|([89AB][0-9A-F])|([C-F][0-9A-F])",
		    "$1g$2h$3i" },
		{ "ghi", "" }, { "g(..)hi", "C2$1" }, { "ghC(.)i", "C38$1" },
		{ "ghD(.)i", "C39$1" }, { "ghE(.)i", "C3A$1" },
		{ "ghF(.)i", "C3B$1" },
	};
	size_t n = sizeof(steps) / sizeof(steps[0]);

	fprintf(out, "CASE WHEN CAST(`%s` AS STRING) "
	    "RLIKE '[^\\\\x00-\\\\x7F]' THEN decode(unhex(", c);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "regexp_replace(");
	fprintf(out, "hex(CAST(`%s` AS STRING))", c);
	for (size_t i = 0; i < n; i++)
		fprintf(out, ", '%s', '%s')", steps[i][0], steps[i][1]);
	fprintf(out, "), 'UTF-8') ELSE CAST(`%s` AS STRING) END", c);
}

/* The canonical text of column c as Spark SQL, over the offline column. */
static void
rc_sql_value(FILE *out, enum udtf_type type, const char *c)
{
	switch (type) {
	case UDTF_STRING:
		fprintf(out, "replace(replace(replace(replace(");
		rc_sql_string(out, c);
		fprintf(out, ", '\\\\', '\\\\\\\\'), '\\u0001', "
		    "'\\\\\\u0001'), '\\n', '\\\\n'), '\\r', '\\\\r')");
		break;
	case UDTF_INT64:
		fprintf(out, "CAST(CAST(`%s` AS BIGINT) AS STRING)", c);
		break;
	case UDTF_DOUBLE:
		/* format_string() writes NULL as "null" */
		fprintf(out, "CASE WHEN CAST(`%s` AS DOUBLE) IS NOT NULL THEN "
		    "format_string('%%a', CAST(`%s` AS DOUBLE)) END", c, c);
		break;
	case UDTF_BOOL:
		fprintf(out, "CAST(CAST(`%s` AS BOOLEAN) AS STRING)", c);
		break;
	case UDTF_TIMESTAMP:
		/* kedge writes no time before 1970: \N */
		fprintf(out, "CASE WHEN unix_micros(CAST(`%s` AS TIMESTAMP)) >= 0 "
		    "THEN date_format(CAST(`%s` AS TIMESTAMP), "
		    "'yyyy-MM-dd HH:mm:ss.SSSSSS') END", c, c);
		break;
	case UDTF_NULL:
		fprintf(out, "NULL");
		break;
	}
}

/* The partition columns of the layout and the text of a load hour key in
 * them: "dt=%Y%m%d/hr=%H" gives concat(`dt`, '/', `hr`) and
 * "20260801/21".  Returns 0, or -EINVAL when the layout is not of
 * name=value directories, or its values do not sort as time does. */
static int
rc_sql_partitions(struct rc *rc, FILE *out, int64_t lo, int64_t hi)
{
	static const char conv[] = "YmdH";
	const char *l = rc->layout;
	char a[256] = "", b[256] = "";
	int last = -1, n = 0;
	int64_t parts[2][4] = {
	    { lo / 1000000, lo / 10000 % 100, lo / 100 % 100, lo % 100 },
	    { hi / 1000000, hi / 10000 % 100, hi / 100 % 100, hi % 100 } };

	fprintf(out, "concat(");
	while (*l != '\0') {
		const char *eq = strchr(l, '='), *end = strchr(l, '/');

		if (end == NULL)
			end = l + strlen(l);
		if (eq == NULL || eq > end || eq == l)
			return err_set(rc->err, rc->errlen, -EINVAL,
			    "--offline-layout %s: --print-sql needs "
			    "directories of name=value", rc->layout);
		fprintf(out, "%s`%.*s`", n++ ? ", '/', " : "", (int)(eq - l), l);
		for (const char *p = eq + 1; p < end; p++) {
			const char *c;
			char ch[2] = { *p, 0 };

			if (*p != '%') {
				strncat(a, ch, sizeof(a) - strlen(a) - 1);
				strncat(b, ch, sizeof(b) - strlen(b) - 1);
				continue;
			}
			if (++p == end || (c = strchr(conv, *p)) == NULL ||
			    *p == '\0' || c - conv <= last)
				return err_set(rc->err, rc->errlen, -EINVAL,
				    "--offline-layout %s: --print-sql needs "
				    "%%Y, %%m, %%d and %%H in that order",
				    rc->layout);
			last = (int)(c - conv);
			snprintf(a + strlen(a), sizeof(a) - strlen(a), "%0*" PRId64,
			    last ? 2 : 4, parts[0][last]);
			snprintf(b + strlen(b), sizeof(b) - strlen(b), "%0*" PRId64,
			    last ? 2 : 4, parts[1][last]);
		}
		if (*end == '/') {
			strncat(a, "/", sizeof(a) - strlen(a) - 1);
			strncat(b, "/", sizeof(b) - strlen(b) - 1);
			end++;
		}
		l = end;
	}
	fprintf(out, ") BETWEEN '%s' AND '%s'", a, b);
	return 0;
}

int
rc_print_sql(struct rc *rc, FILE *out)
{
	const char *t = rc->offline_names[rc->offline_time_col];
	int r;

	fprintf(out, "-- kedge reconcile: rows and fingerprint of %s per event "
	    "hour %" PRId64 "..%" PRId64 " (%s), from the load partitions "
	    "%" PRId64 "..%" PRId64 " of %s\n", rc->ct->name, rc->from_key,
	    rc->to_key, rc->c->output.timezone, rc->load_lo, rc->load_hi,
	    rc->o->offline_table);
	fprintf(out, "SET spark.sql.session.timeZone=%s;\n",
	    rc->c->output.timezone);
	fprintf(out, "SELECT substr(h, 1, 8) AS dt, substr(h, 9, 2) AS hr, "
	    "count(*) AS rows,\n"
	    "  lower(lpad(conv(CAST(pmod(sum(CAST(fp AS DECIMAL(20,0))), "
	    "18446744073709551616) AS STRING), 10, 16), 16, '0')) AS "
	    "fingerprint\n"
	    "FROM (\n"
	    "  SELECT date_format(CAST(`%s` AS TIMESTAMP), 'yyyyMMddHH') AS h,\n"
	    "    xxhash64(concat_ws('\\u0001'", t);
	for (size_t k = 0; k < rc->npick; k++) {
		fprintf(out, ",\n      coalesce(");
		rc_sql_value(out, rc->cols[rc->pick[k].index].type,
		    rc->pick[k].offline);
		fprintf(out, ", '\\\\N')");
	}
	fprintf(out, ")) AS fp\n  FROM %s\n  WHERE ", rc->o->offline_table);
	if ((r = rc_sql_partitions(rc, out, rc->load_lo, rc->load_hi)) < 0)
		return r;
	fprintf(out, "\n) t\nWHERE h BETWEEN '%" PRId64 "' AND '%" PRId64 "'\n"
	    "GROUP BY h\nORDER BY h;\n", rc->from_key, rc->to_key);
	return 0;
}

/* One line of the counts: "dt hr rows fingerprint", TAB-separated. */
static int
rc_counts_line(struct rc *rc, const char *line, size_t len, int *seen)
{
	char dt[9], hr[3], rows[21], fp[FINGERPRINT_HEX + 1], extra;
	char text[128];
	uint64_t n, f;
	long h;

	if (len >= sizeof(text))
		return -EINVAL;
	memcpy(text, line, len);
	text[len] = '\0';
	if (sscanf(text, "%8[0-9]\t%2[0-9]\t%20[0-9]\t%16[0-9a-f]%c", dt, hr,
	    rows, fp, &extra) != 4 || strlen(dt) != 8 || strlen(hr) != 2 ||
	    fingerprint_parse(fp, &f) < 0)
		return -EINVAL;
	errno = 0;
	n = strtoull(rows, NULL, 10);
	if (errno != 0)
		return -EINVAL;
	if ((h = rc_hour_find(rc, strtoll(dt, NULL, 10) * 100 +
	    strtoll(hr, NULL, 10))) < 0)
		return 0; /* an hour outside --from..--to */
	if (seen[h]++)
		return -EEXIST;
	rc->hours[h].rows[RC_OFFLINE] = n;
	rc->hours[h].fp[RC_OFFLINE] = f;
	return 0;
}

int
rc_read_counts(struct rc *rc, const char *path)
{
	struct textin *in = NULL;
	const char *line;
	char shown[ESCAPE_BUF];
	size_t len;
	int *seen = NULL, fd, r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return err_set(rc->err, rc->errlen, -errno, "--offline-counts "
		    "%s: %s", path, strerror(errno));
	if ((in = textin_open(fd, CODEC_NONE, path)) == NULL ||
	    (seen = calloc(rc->nhours + 1, sizeof(*seen))) == NULL) {
		r = err_set(rc->err, rc->errlen, -ENOMEM, "out of memory");
		goto out;
	}
	while ((r = textin_line(in, &line, &len, rc->err, rc->errlen)) == 1) {
		if (len == 0 || (textin_lineno(in) == 1 && len >= 3 &&
		    memcmp(line, "dt\t", 3) == 0))
			continue;
		if ((r = rc_counts_line(rc, line, len, seen)) < 0) {
			r = err_set(rc->err, rc->errlen, -EINVAL, "%s:%zu: \"%s\": "
			    "%s", path, textin_lineno(in), escape_bytes(line, len,
			    shown, sizeof(shown)), r == -EEXIST ? "the hour "
			    "comes twice" : "not dt, hr, rows and a fingerprint "
			    "of 16 hex digits, TAB-separated (the result of "
			    "--print-sql spark)");
			goto out;
		}
	}
out:
	textin_close(in);
	free(seen);
	return r;
}
