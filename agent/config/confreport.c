/*
 * confreport: the diagnostics of a configuration check (config.h's struct
 * conf_report): added one by one, from the loader or from another
 * module's sentence "FILE:LINE: key: what", and written as lines or as one
 * JSON document (jansson).
 */
#include "agent/config/config_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/grow.h"
#include "lib/jsondoc.h"

static void
conf_diag_free(struct conf_diag *d)
{
	free(d->file);
	free(d->key);
	free(d->message);
}

/* Appends a diagnostic of file, line, key[0..keylen) and message. */
static void
conf_report_push(struct conf_report *rep, int warning, const char *file,
    int line, const char *key, size_t keylen, const char *message)
{
	struct conf_diag **v = warning ? &rep->warnings : &rep->errors;
	size_t *n = warning ? &rep->nwarnings : &rep->nerrors;
	size_t *cap = warning ? &rep->warnings_cap : &rep->errors_cap;
	struct conf_diag d = { NULL, line, NULL, NULL };

	if ((d.file = strdup(file != NULL ? file : "")) == NULL ||
	    (d.key = strndup(key != NULL ? key : "", keylen)) == NULL ||
	    (d.message = strdup(message)) == NULL ||
	    grow_array((void **)v, cap, *n + 1, sizeof(**v)) < 0) {
		conf_diag_free(&d);
		rep->oom = 1;
		return;
	}
	(*v)[(*n)++] = d;
}

void
conf_report_add(struct conf_report *rep, int warning,
    const struct conf_loc *at, const char *key, const char *fmt, ...)
{
	char message[2048];
	va_list ap;

	va_start(ap, fmt);
	err_vset(message, sizeof(message), 0, fmt, ap);
	va_end(ap);
	conf_report_push(rep, warning, at != NULL ? at->file : NULL,
	    at != NULL ? at->line : 0, key, key != NULL ? strlen(key) : 0,
	    message);
}

/* When s starts "file:LINE: ", returns where the rest starts and sets
 * *line; else NULL. */
static const char *
conf_sentence_at(const char *s, const char *file, int *line)
{
	size_t n = strlen(file);
	char *end;
	long v;

	if (strncmp(s, file, n) != 0 || s[n] != ':' ||
	    s[n + 1] < '0' || s[n + 1] > '9')
		return NULL;
	v = strtol(s + n + 1, &end, 10);
	if (end[0] != ':' || end[1] != ' ' || v < 0 || v > 1000000000)
		return NULL;
	*line = (int)v;
	return end + 2;
}

void
conf_report_sentence(struct conf_report *rep, int warning,
    const struct conf *c, const char *sentence)
{
	const char *rest = NULL, *file = c->path, *colon;
	size_t keylen = 0;
	int line = 0;

	for (size_t i = 0; rest == NULL && i < c->files.n; i++)
		if ((rest = conf_sentence_at(sentence, c->files.v[i],
		    &line)) != NULL)
			file = c->files.v[i];
	if (rest == NULL)
		rest = sentence;
	/* a key has no blank: "tables[0].event_time: " */
	else if ((colon = strstr(rest, ": ")) != NULL &&
	    strcspn(rest, " ") > (size_t)(colon - rest)) {
		keylen = (size_t)(colon - rest);
		sentence = colon + 2;
	} else
		sentence = rest;
	conf_report_push(rep, warning, file, line, rest, keylen, sentence);
}

int
conf_report_blames(const struct conf_report *rep, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; i < rep->nerrors; i++) {
		const char *k = rep->errors[i].key;

		if (strncmp(k, key, n) == 0 && (k[n] == '\0' || k[n] == '.' ||
		    (k[n] == '[' && key[n - 1] != ']')))
			return 1;
	}
	return 0;
}

void
conf_diag_text(const struct conf_diag *d, char *out, size_t outlen)
{
	char line[16] = "";

	if (d->line > 0)
		snprintf(line, sizeof(line), ":%d", d->line);
	snprintf(out, outlen, "%s%s%s%s%s%s", d->file, line,
	    d->file[0] != '\0' || line[0] != '\0' ? ": " : "", d->key,
	    d->key[0] != '\0' ? ": " : "", d->message);
}

void
conf_report_write(const struct conf_report *rep, FILE *out)
{
	char text[4096];

	for (size_t i = 0; i < rep->nerrors; i++) {
		conf_diag_text(&rep->errors[i], text, sizeof(text));
		fprintf(out, "%s\n", text);
	}
	for (size_t i = 0; i < rep->nwarnings; i++) {
		conf_diag_text(&rep->warnings[i], text, sizeof(text));
		fprintf(out, "warning: %s\n", text);
	}
	if (rep->oom)
		fprintf(out, "out of memory: some diagnostics are lost\n");
}

void
conf_report_first(const struct conf_report *rep, char *err, size_t errlen)
{
	if (rep->nerrors > 0)
		conf_diag_text(&rep->errors[0], err, errlen);
	else if (rep->oom)
		snprintf(err, errlen, "out of memory");
	else if (errlen > 0)
		err[0] = '\0';
}

/* The diagnostics v[0..n) as a JSON array; NULL: out of memory. */
static json_t *
conf_diags_json(const struct conf_diag *v, size_t n)
{
	json_t *a = json_array(), *o;

	for (size_t i = 0; a != NULL && i < n; i++) {
		o = json_pack("{s:o,s:i,s:o,s:o}", "file",
		    jsondoc_text(v[i].file), "line", v[i].line, "key",
		    jsondoc_text(v[i].key), "message",
		    jsondoc_text(v[i].message));
		if (o == NULL || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

char *
conf_report_json(const struct conf_report *rep)
{
	json_t *doc;
	char *text;

	doc = json_pack("{s:b,s:o,s:o}", "ok", rep->nerrors == 0 && !rep->oom,
	    "errors", conf_diags_json(rep->errors, rep->nerrors),
	    "warnings", conf_diags_json(rep->warnings, rep->nwarnings));
	if (doc == NULL)
		return NULL;
	text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return text;
}

void
conf_report_clear(struct conf_report *rep)
{
	for (size_t i = 0; i < rep->nerrors; i++)
		conf_diag_free(&rep->errors[i]);
	for (size_t i = 0; i < rep->nwarnings; i++)
		conf_diag_free(&rep->warnings[i]);
	free(rep->errors);
	free(rep->warnings);
	memset(rep, 0, sizeof(*rep));
}
