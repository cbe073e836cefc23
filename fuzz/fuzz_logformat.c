/*
 * fuzz_logformat: the nginx UDTF's log_format compiler.  The first byte
 * picks the escape key (its value % 3: '0' default, '1' json, '2' none);
 * the bytes after it, up to a NUL, are the log_format, as a config string
 * holds no NUL.  When init() takes the format, a few fixed access log
 * lines, a line made from the format (each variable replaced by a value of
 * its kind) and the format text itself run through process(), under
 * fuzzkit's contract checks; then fini().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzkit.h"
#include "lib/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fuzz_escapes[] = { "default", "json", "none" };

static const char *const fuzz_lines[] = {
	"127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif "
	    "HTTP/1.0\" 200 2326 \"http://www.example.com/start.html\" "
	    "\"Mozilla/4.08 [en] (Win98; I ;Nav)\"\n",
	"203.0.113.9 - frank [29/Feb/2024:23:59:59 +0000] \"POST "
	    "/api?q=\\x22x\\x22 HTTP/1.1\" 404 - \"-\" \"curl/8.0\"\r\n",
	"10.0.0.1 [2024-03-01T12:00:00+01:00] \"GET /\\\"q\\\" \\u00e9 "
	    "HTTP/2.0\" 200 0.004 1709290800.123 -",
	"",
};

static int
fuzz_is_name_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '_';
}

/* A value nginx could log for variable name[0..len). */
static const char *
fuzz_sample(const char *name, size_t len, const char *escape, size_t nth)
{
	static const struct {
		const char *name;
		const char *value;
	} typed[] = {
		{ "status", "200" },
		{ "body_bytes_sent", "2326" },
		{ "remote_port", "-" },
		{ "request_time", "0.123" },
		{ "time_local", "10/Oct/2000:13:55:36 -0700" },
		{ "time_iso8601", "2000-10-10T13:55:36+02:00" },
		{ "msec", "1700000000.123" },
	};

	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++)
		if (strlen(typed[i].name) == len &&
		    memcmp(typed[i].name, name, len) == 0)
			return typed[i].value;
	if (nth % 3 == 2)
		return "-";
	if (strcmp(escape, "json") == 0)
		return "a\\\"b\\u00e9\\ud83d\\ude00";
	if (strcmp(escape, "default") == 0)
		return "GET /\\x22x\\x22 HTTP/1.1";
	return "x";
}

/* Writes format with each $name or ${name} replaced by a sample value.
 * init() took the format, so every '$' begins a variable. */
static void
fuzz_fill(struct buf *line, const char *format, const char *escape)
{
	size_t nth = 0;

	for (const char *p = format; *p != '\0';) {
		const char *name, *v;
		size_t len = 0;

		if (*p != '$') {
			if (buf_append(line, p++, 1) < 0)
				abort();
			continue;
		}
		name = p + 1 + (p[1] == '{');
		while (fuzz_is_name_char(name[len]))
			len++;
		v = fuzz_sample(name, len, escape, nth++);
		if (buf_append(line, v, strlen(v)) < 0)
			abort();
		p = name + len + (p[1] == '{');
	}
}

static int
fuzz_open(struct fuzzkit_udtf *u, const char *format, const char *escape)
{
	const struct udtf_plugin *nginx = fuzzkit_find("nginx");
	const char *kv[] = { "log_format", format, "escape", escape, NULL };
	struct udtf_param params[FUZZKIT_MAX_PARAMS];
	size_t n = fuzzkit_params(nginx, "nginx", kv, params);
	char err[512];

	return fuzzkit_open(u, nginx, "nginx", params, n, err, sizeof(err));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzzkit_udtf u;
	struct buf line = { 0 };
	const char *escape;
	char *format;

	if (size == 0)
		return 0;
	escape = fuzz_escapes[data[0] % 3];
	if ((format = strndup((const char *)data + 1, size - 1)) == NULL)
		abort();
	if (fuzz_open(&u, format, escape) < 0)
		goto done;
	for (size_t i = 0; i < sizeof(fuzz_lines) / sizeof(fuzz_lines[0]); i++)
		(void)fuzzkit_run(&u, fuzz_lines[i], strlen(fuzz_lines[i]),
		    FUZZKIT_NEVER);
	fuzz_fill(&line, format, escape);
	(void)fuzzkit_run(&u, line.data, line.len, FUZZKIT_NEVER);
	(void)fuzzkit_run(&u, (const char *)data + 1, size - 1, FUZZKIT_NEVER);
done:
	fuzzkit_close(&u);
	buf_clear(&line);
	free(format);
	return 0;
}
