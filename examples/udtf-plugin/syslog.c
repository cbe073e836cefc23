/*
 * syslog5424: a sample kedge UDTF, built as a plugin.  It turns one RFC 5424
 * syslog line into one row:
 *
 *   <PRI>VERSION TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [MSG]
 *   <34>1 2026-11-29T10:00:00.003Z mymachine.example.com su 1234 ID47 - 'su root' failed
 *
 * columns   facility int64 (PRI / 8), severity int64 (PRI % 8),
 *           timestamp (microseconds, UTC), hostname, app_name, procid,
 *           msgid, structured_data (the SD elements as written), message
 *           (a leading UTF-8 byte order mark dropped)
 * NULL      a "-" (the NILVALUE) in a string column, unless nil_as_null is
 *           false; a "-" timestamp; a line without MSG
 * no row    a line less severe than min_severity: dropped on purpose
 * rejected  a line that is not RFC 5424, with a reason ("byte 1: expected
 *           '<' at the start", "PRI 999 is out of range (0 to 191)")
 *
 * It depends on nothing but libc and <kedge/udtf.h>, allocates nothing per
 * record (string values point into the record, the row lives in the state)
 * and calls no libc time function: parsing runs once per record, and must
 * depend on neither the locale nor TZ.  Copy it, rename it, and change the
 * parsing to your format; README.md says what kedge expects of a UDTF.
 */
#include <kedge/udtf.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RFC 5424 section 6: the longest each header field may be. */
#define HOSTNAME_MAX 255
#define APP_NAME_MAX 48
#define PROCID_MAX 128
#define MSGID_MAX 32
#define SD_NAME_MAX 32

#define PRI_MAX 191
#define SEVERITY_DEBUG 7
#define US_PER_S 1000000

enum {
	COL_FACILITY,
	COL_SEVERITY,
	COL_TIMESTAMP,
	COL_HOSTNAME,
	COL_APP_NAME,
	COL_PROCID,
	COL_MSGID,
	COL_STRUCTURED_DATA,
	COL_MESSAGE,
	NCOLS
};

/* The schema is the same for every table, so it is static, not per state. */
static const struct udtf_column syslog_schema[NCOLS] = {
	{ "facility", UDTF_INT64 },
	{ "severity", UDTF_INT64 },
	{ "timestamp", UDTF_TIMESTAMP },
	{ "hostname", UDTF_STRING },
	{ "app_name", UDTF_STRING },
	{ "procid", UDTF_STRING },
	{ "msgid", UDTF_STRING },
	{ "structured_data", UDTF_STRING },
	{ "message", UDTF_STRING },
};

static const struct udtf_key syslog_keys[] = {
	{ "min_severity", "7",
	    "the least severe lines kept, 0 to 7 or emerg, alert, crit, err, "
	    "warning, notice, info, debug: a line less severe (numerically "
	    "greater) gives no row" },
	{ "nil_as_null", "true",
	    "true: a \"-\" (NILVALUE) in hostname, app_name, procid, msgid or "
	    "structured_data is NULL; false: the string \"-\"" },
	{ NULL, NULL, NULL },
};

/* The names syslog.h gives the severities, 0 to 7. */
static const char *const severity_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

struct syslog_state {
	int min_severity;
	int nil_as_null;
	char note[256];
	struct udtf_value row[NCOLS];   /* refilled by every process() */
};

/* Where parsing is in the line, and where the reason goes.  Reasons count
 * bytes from 1, as a person reading the raw line in the rejects would. */
struct cursor {
	const char *line;
	const char *p;
	const char *end;
	char *err;
	size_t errlen;
};

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* RFC 5424 PRINTUSASCII, %d33-126: what header fields are made of. */
static int
is_print_ascii(char c)
{
	return c >= 33 && c <= 126;
}

static size_t
byte_at(const struct cursor *c, const char *at)
{
	return (size_t)(at - c->line) + 1;
}

static int
reject(struct cursor *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes the reason and returns -EINVAL, what process() returns with it. */
static int
reject(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
expect_space(struct cursor *c, const char *after)
{
	if (c->p == c->end)
		return reject(c, "byte %zu: the line ends after %s",
		    byte_at(c, c->p), after);
	if (*c->p != ' ')
		return reject(c, "byte %zu: expected a space after %s",
		    byte_at(c, c->p), after);
	c->p++;
	return 0;
}

/* Sets *v to the string s[0..len), or to NULL for the NILVALUE "-" when
 * nil_as_null says so. */
static void
set_string(const struct syslog_state *st, struct udtf_value *v,
    const char *s, size_t len)
{
	if (st->nil_as_null && len == 1 && s[0] == '-') {
		v->type = UDTF_NULL;
		return;
	}
	v->type = UDTF_STRING;
	v->u.s.ptr = s;
	v->u.s.len = len;
}

/* PRI and VERSION: "<34>1". */
static int
parse_pri_version(struct cursor *c, int *pri)
{
	const char *digits;
	int v = 0;

	if (c->p == c->end || *c->p != '<')
		return reject(c, "byte 1: expected '<' at the start");
	digits = ++c->p;
	while (c->p < c->end && is_digit(*c->p) && c->p - digits < 3)
		v = v * 10 + (*c->p++ - '0');
	if (c->p == digits)
		return reject(c, "byte %zu: expected the digits of PRI",
		    byte_at(c, c->p));
	if (c->p == c->end || *c->p != '>')
		return reject(c, "byte %zu: expected '>' after PRI's 1 to 3 "
		    "digits", byte_at(c, c->p));
	if (v > PRI_MAX)
		return reject(c, "PRI %d is out of range (0 to %d)", v,
		    PRI_MAX);
	*pri = v;
	c->p++;
	if (c->p == c->end || *c->p < '1' || *c->p > '9')
		return reject(c, "byte %zu: expected VERSION after PRI",
		    byte_at(c, c->p));
	digits = c->p;
	for (v = 0; c->p < c->end && is_digit(*c->p) && c->p - digits < 3;)
		v = v * 10 + (*c->p++ - '0');
	if (v != 1)
		return reject(c, "VERSION %d is not 1, the one RFC 5424 defines",
		    v);
	return expect_space(c, "VERSION");
}

/* Timestamps: RFC 3339 as RFC 5424 restricts it. */

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (Howard
 * Hinnant's days_from_civil). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
	    31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* Reads exactly n digits at c->p, before end, into *v; leaves c->p where
 * they should begin when there are fewer. */
static int
read_digits(struct cursor *c, const char *end, int n, int *v)
{
	const char *p = c->p;

	for (*v = 0; n > 0; n--, p++) {
		if (p == end || !is_digit(*p))
			return -1;
		*v = *v * 10 + (*p - '0');
	}
	c->p = p;
	return 0;
}

/* "2026-11-29T10:00:00.003Z": each part, its digits, its range and the
 * byte that follows it.  RFC 5424 allows no leap second. */
static const struct {
	const char *name;
	int digits;
	int min, max;
	char then;
} ts_parts[] = {
	{ "year", 4, 0, 9999, '-' },
	{ "month", 2, 1, 12, '-' },
	{ "day", 2, 1, 31, 'T' },
	{ "hour", 2, 0, 23, ':' },
	{ "minute", 2, 0, 59, ':' },
	{ "second", 2, 0, 59, '\0' },
};

/* The fraction, ".003": up to 6 digits, as microseconds. */
static int
parse_fraction(struct cursor *c, const char *end, int64_t *us)
{
	const char *digits = ++c->p;
	int64_t scale = US_PER_S;

	*us = 0;
	while (c->p < end && is_digit(*c->p)) {
		if (c->p - digits == 6)
			return reject(c, "timestamp: the fraction of a second "
			    "has more than 6 digits");
		scale /= 10;
		*us += (*c->p++ - '0') * scale;
	}
	if (c->p == digits)
		return reject(c, "timestamp: expected a digit after '.', at "
		    "byte %zu", byte_at(c, c->p));
	return 0;
}

/* The offset from UTC, "Z", "+08:00" or "-05:30", in seconds. */
static int
parse_offset(struct cursor *c, const char *end, int64_t *offset_s)
{
	int sign, hh, mm;

	if (c->p < end && *c->p == 'Z') {
		c->p++;
		*offset_s = 0;
		return 0;
	}
	if (c->p == end || (*c->p != '+' && *c->p != '-'))
		return reject(c, "timestamp: expected 'Z' or an offset +hh:mm "
		    "or -hh:mm at byte %zu", byte_at(c, c->p));
	sign = *c->p++ == '-' ? -1 : 1;
	if (read_digits(c, end, 2, &hh) < 0)
		return reject(c, "timestamp: expected the 2 digits of the "
		    "offset's hours at byte %zu", byte_at(c, c->p));
	if (c->p == end || *c->p != ':')
		return reject(c, "timestamp: expected ':' in the offset, at "
		    "byte %zu", byte_at(c, c->p));
	c->p++;
	if (read_digits(c, end, 2, &mm) < 0)
		return reject(c, "timestamp: expected the 2 digits of the "
		    "offset's minutes at byte %zu", byte_at(c, c->p));
	if (hh > 23 || mm > 59)
		return reject(c, "timestamp: offset %c%02d:%02d is out of range",
		    sign < 0 ? '-' : '+', hh, mm);
	*offset_s = sign * (hh * 3600 + mm * 60);
	return 0;
}

/* Parses the timestamp that ends at end into *us, microseconds since
 * 1970-01-01T00:00:00Z. */
static int
parse_timestamp(struct cursor *c, const char *end, int64_t *us)
{
	int v[6];
	int64_t frac = 0, offset_s = 0, secs;

	for (size_t i = 0; i < sizeof ts_parts / sizeof ts_parts[0]; i++) {
		if (read_digits(c, end, ts_parts[i].digits, &v[i]) < 0)
			return reject(c, "timestamp: expected the %d digits of "
			    "the %s at byte %zu", ts_parts[i].digits,
			    ts_parts[i].name, byte_at(c, c->p));
		if (v[i] < ts_parts[i].min || v[i] > ts_parts[i].max)
			return reject(c, "timestamp: %s %d is out of range",
			    ts_parts[i].name, v[i]);
		if (ts_parts[i].then == '\0')
			continue;
		if (c->p == end || *c->p != ts_parts[i].then)
			return reject(c, "timestamp: expected '%c' after the "
			    "%s, at byte %zu", ts_parts[i].then,
			    ts_parts[i].name, byte_at(c, c->p));
		c->p++;
	}
	if (v[2] > days_in_month(v[0], v[1]))
		return reject(c, "timestamp: %04d-%02d-%02d is not a day",
		    v[0], v[1], v[2]);
	if (c->p < end && *c->p == '.' && parse_fraction(c, end, &frac) < 0)
		return -EINVAL;
	if (parse_offset(c, end, &offset_s) < 0)
		return -EINVAL;
	if (c->p != end)
		return reject(c, "timestamp: unexpected byte after the offset, "
		    "at byte %zu", byte_at(c, c->p));
	secs = days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 +
	    v[4] * 60 + v[5] - offset_s;
	*us = secs * US_PER_S + frac;
	return 0;
}

/* Header fields. */

/* TIMESTAMP: "-" (NULL) or an RFC 3339 time. */
static int
parse_timestamp_field(struct cursor *c, struct udtf_value *v)
{
	const char *end = memchr(c->p, ' ', (size_t)(c->end - c->p));

	if (end == NULL)
		end = c->end;
	if (end - c->p == 1 && *c->p == '-') {
		v->type = UDTF_NULL;
		c->p++;
		return 0;
	}
	v->type = UDTF_TIMESTAMP;
	return parse_timestamp(c, end, &v->u.ts_us);
}

/* HOSTNAME, APP-NAME, PROCID or MSGID: 1 to max printable ASCII bytes,
 * "-" for none. */
static int
parse_header_field(const struct syslog_state *st, struct cursor *c,
    const char *name, size_t max, struct udtf_value *v)
{
	const char *start = c->p;

	while (c->p < c->end && *c->p != ' ') {
		if (!is_print_ascii(*c->p))
			return reject(c, "byte %zu: %s holds byte 0x%02X, which "
			    "is not printable US-ASCII", byte_at(c, c->p), name,
			    (unsigned char)*c->p);
		c->p++;
	}
	if (c->p == start)
		return reject(c, "byte %zu: expected %s, or '-' for none",
		    byte_at(c, start), name);
	if ((size_t)(c->p - start) > max)
		return reject(c, "byte %zu: %s is longer than %zu bytes",
		    byte_at(c, start), name, max);
	set_string(st, v, start, (size_t)(c->p - start));
	return 0;
}

/* Structured data. */

/* An SD-ID or a PARAM-NAME: 1 to 32 printable ASCII bytes but '=', ']' and
 * '"' (and space, which is not printable). */
static int
parse_sd_name(struct cursor *c, const char *name)
{
	const char *start = c->p;

	while (c->p < c->end && is_print_ascii(*c->p) && *c->p != '=' &&
	    *c->p != ']' && *c->p != '"')
		c->p++;
	if (c->p == start)
		return reject(c, "byte %zu: expected %s", byte_at(c, start),
		    name);
	if (c->p - start > SD_NAME_MAX)
		return reject(c, "byte %zu: %s is longer than %d bytes",
		    byte_at(c, start), name, SD_NAME_MAX);
	return 0;
}

/* An SD-PARAM: PARAM-NAME="PARAM-VALUE", where a backslash escapes the
 * byte after it (\" \\ \]). */
static int
parse_sd_param(struct cursor *c)
{
	if (parse_sd_name(c, "PARAM-NAME") < 0)
		return -EINVAL;
	if (c->p == c->end || *c->p != '=')
		return reject(c, "byte %zu: expected '=' after PARAM-NAME",
		    byte_at(c, c->p));
	if (++c->p == c->end || *c->p != '"')
		return reject(c, "byte %zu: expected '\"' to open PARAM-VALUE",
		    byte_at(c, c->p));
	for (c->p++; c->p < c->end && *c->p != '"'; c->p++)
		if (*c->p == '\\' && c->p + 1 < c->end)
			c->p++;
	if (c->p == c->end)
		return reject(c, "byte %zu: the line ends inside PARAM-VALUE",
		    byte_at(c, c->p));
	c->p++;
	return 0;
}

/* STRUCTURED-DATA: "-", or SD-ELEMENTs [SD-ID *(SP SD-PARAM)] side by
 * side.  The column keeps them as written, escapes and all. */
static int
parse_structured_data(const struct syslog_state *st, struct cursor *c,
    struct udtf_value *v)
{
	const char *start = c->p;

	if (c->p < c->end && *c->p == '-') {
		c->p++;
		set_string(st, v, start, 1);
		return 0;
	}
	if (c->p == c->end || *c->p != '[')
		return reject(c, "byte %zu: expected STRUCTURED-DATA, '-' or "
		    "'['", byte_at(c, c->p));
	while (c->p < c->end && *c->p == '[') {
		c->p++;
		if (parse_sd_name(c, "SD-ID") < 0)
			return -EINVAL;
		while (c->p < c->end && *c->p == ' ') {
			c->p++;
			if (parse_sd_param(c) < 0)
				return -EINVAL;
		}
		if (c->p == c->end || *c->p != ']')
			return reject(c, "byte %zu: expected ']' or a space and "
			    "an SD-PARAM", byte_at(c, c->p));
		c->p++;
	}
	set_string(st, v, start, (size_t)(c->p - start));
	return 0;
}

/* MSG: whatever follows STRUCTURED-DATA and a space; NULL when nothing
 * does.  A UTF-8 byte order mark says MSG is UTF-8; it is not text. */
static int
parse_message(struct cursor *c, struct udtf_value *v)
{
	if (c->p == c->end) {
		v->type = UDTF_NULL;
		return 0;
	}
	if (*c->p != ' ')
		return reject(c, "byte %zu: expected a space before MSG",
		    byte_at(c, c->p));
	c->p++;
	if (c->end - c->p >= 3 && memcmp(c->p, "\xEF\xBB\xBF", 3) == 0)
		c->p += 3;
	v->type = UDTF_STRING;
	v->u.s.ptr = c->p;
	v->u.s.len = (size_t)(c->end - c->p);
	c->p = c->end;
	return 0;
}

/* Fills st->row from the line, whole. */
static int
parse_line(struct syslog_state *st, struct cursor *c)
{
	struct udtf_value *row = st->row;
	int pri = 0;

	if (parse_pri_version(c, &pri) < 0 ||
	    parse_timestamp_field(c, &row[COL_TIMESTAMP]) < 0 ||
	    expect_space(c, "TIMESTAMP") < 0 ||
	    parse_header_field(st, c, "HOSTNAME", HOSTNAME_MAX,
	    &row[COL_HOSTNAME]) < 0 || expect_space(c, "HOSTNAME") < 0 ||
	    parse_header_field(st, c, "APP-NAME", APP_NAME_MAX,
	    &row[COL_APP_NAME]) < 0 || expect_space(c, "APP-NAME") < 0 ||
	    parse_header_field(st, c, "PROCID", PROCID_MAX,
	    &row[COL_PROCID]) < 0 || expect_space(c, "PROCID") < 0 ||
	    parse_header_field(st, c, "MSGID", MSGID_MAX,
	    &row[COL_MSGID]) < 0 || expect_space(c, "MSGID") < 0 ||
	    parse_structured_data(st, c, &row[COL_STRUCTURED_DATA]) < 0 ||
	    parse_message(c, &row[COL_MESSAGE]) < 0)
		return -EINVAL;
	row[COL_FACILITY].type = UDTF_INT64;
	row[COL_FACILITY].u.i64 = pri / 8;
	row[COL_SEVERITY].type = UDTF_INT64;
	row[COL_SEVERITY].u.i64 = pri % 8;
	return 0;
}

/* The UDTF. */

static void syslog_fini(void *state);

static int
parse_min_severity(const char *value, int *out)
{
	for (int i = 0; i <= SEVERITY_DEBUG; i++) {
		if (strcmp(value, severity_names[i]) == 0 ||
		    (value[0] == '0' + i && value[1] == '\0')) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int
parse_bool(const char *value, int *out)
{
	if (strcmp(value, "true") == 0)
		*out = 1;
	else if (strcmp(value, "false") == 0)
		*out = 0;
	else
		return -EINVAL;
	return 0;
}

/* Returns the state, or NULL with a sentence in err.  kedge passes every
 * declared key, defaults filled in, and has refused undeclared ones: the
 * check of the key's name is only for a caller that does not. */
static void *
syslog_init(const struct udtf_param *params, size_t nparams, char *err,
    size_t errlen)
{
	struct syslog_state *st;

	if ((st = calloc(1, sizeof(*st))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	st->min_severity = SEVERITY_DEBUG;
	st->nil_as_null = 1;
	for (size_t i = 0; i < nparams; i++) {
		const char *key = params[i].key, *value = params[i].value;

		if (strcmp(key, "min_severity") == 0) {
			if (parse_min_severity(value, &st->min_severity) == 0)
				continue;
			snprintf(err, errlen, "min_severity must be a severity, "
			    "0 to 7 or its name (emerg, alert, crit, err, "
			    "warning, notice, info, debug), not \"%s\"", value);
		} else if (strcmp(key, "nil_as_null") == 0) {
			if (parse_bool(value, &st->nil_as_null) == 0)
				continue;
			snprintf(err, errlen, "nil_as_null must be true or "
			    "false, not \"%s\"", value);
		} else {
			snprintf(err, errlen, "syslog5424 has no key \"%s\"",
			    key);
		}
		syslog_fini(st);
		return NULL;
	}
	if (st->min_severity + 1 == SEVERITY_DEBUG)
		snprintf(st->note, sizeof(st->note), "min_severity is %s: lines "
		    "of severity 7 give no row", severity_names[st->min_severity]);
	else if (st->min_severity < SEVERITY_DEBUG)
		snprintf(st->note, sizeof(st->note), "min_severity is %s: lines "
		    "of severity %d to 7 give no row",
		    severity_names[st->min_severity], st->min_severity + 1);
	return st;
}

static void
syslog_columns(void *state, const struct udtf_column **cols, size_t *ncols)
{
	(void)state;
	*cols = syslog_schema;
	*ncols = NCOLS;
}

/* One line, one row: or no row when it is less severe than min_severity,
 * or -EINVAL with the reason when it is not RFC 5424.  The line is checked
 * whole before it is dropped, so that a malformed line reaches the rejects
 * whatever its severity. */
static int
syslog_process(void *state, const struct udtf_record *rec,
    struct udtf_emitter *out, char *err, size_t errlen)
{
	struct syslog_state *st = state;
	struct cursor c = { rec->data, rec->data, rec->data + rec->len, err,
	    errlen };
	int r;

	/* a line read from a file or a socket may keep its newline */
	if (c.end > c.p && c.end[-1] == '\n') {
		c.end--;
		if (c.end > c.p && c.end[-1] == '\r')
			c.end--;
	}
	if (c.p == c.end)
		return reject(&c, "empty record");
	if (parse_line(st, &c) < 0)
		return -EINVAL;
	if (st->row[COL_SEVERITY].u.i64 > st->min_severity)
		return 0;
	/* emit() refuses a row when the record has too many: stop there */
	r = out->emit(out, st->row, NCOLS);
	return r < 0 ? r : 0;
}

static void
syslog_fini(void *state)
{
	free(state);
}

/* Logged once by kedge, after init. */
static const char *
syslog_note(void *state)
{
	struct syslog_state *st = state;

	return st->note[0] != '\0' ? st->note : NULL;
}

/* The one symbol kedge looks for in the shared object. */
const struct udtf_plugin kedge_udtf_plugin = {
	.abi_version = KEDGE_UDTF_ABI_VERSION,
	.name = "syslog5424",
	.description = "RFC 5424 syslog lines: one row per line, the header "
	    "fields, structured data and message as typed columns",
	.keys = syslog_keys,
	.init = syslog_init,
	.columns = syslog_columns,
	.process = syslog_process,
	.fini = syslog_fini,
	.note = syslog_note,
};
