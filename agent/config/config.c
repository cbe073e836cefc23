/*
 * config: kedge.conf, read (confsrc.c) and parsed with libconfig, and
 * walked against the key table of confkeys.c.  Loading goes in three
 * passes and reports every error it finds, not only the first: the file's
 * settings in file order, then the keys it left out (defaults, or an error
 * for a required key), then the checks that span several keys
 * (confcheck.c), each of which looks only at keys that loaded.  The lists
 * it fills, and conf_free(), are in confvalue.c; the diagnostics in
 * confreport.c.
 */
#include "agent/config/config_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent/config/confkeys.h"
#include "agent/udtf/registry.h"
#include "lib/err.h"

int
conf_fail(struct conf_loader *ld, const struct conf_at *at, const char *fmt,
    ...)
{
	struct conf_loc loc = { at->file != NULL ? at->file : ld->c->path,
	    at->line };
	char message[2048];
	va_list ap;

	va_start(ap, fmt);
	err_vset(message, sizeof(message), 0, fmt, ap);
	va_end(ap);
	conf_report_add(ld->rep, 0, &loc, at->key, "%s", message);
	return -EINVAL;
}

int
conf_oom(struct conf_loader *ld)
{
	ld->rep->oom = 1;
	return -ENOMEM;
}

/* Where the text's line of setting s is; the root, which has none, is
 * line 1 of the main file. */
static struct conf_loc
conf_loc_of(struct conf_loader *ld, const config_setting_t *s)
{
	if (config_setting_source_line(s) == 0)
		return (struct conf_loc){ ld->c->files.n > 0 ?
		    ld->c->files.v[0] : ld->c->path, 1 };
	return conf_src_where(ld, (int)config_setting_source_line(s));
}

struct conf_at
conf_at_setting(struct conf_loader *ld, const config_setting_t *s,
    const char *key)
{
	struct conf_loc loc = conf_loc_of(ld, s);

	return (struct conf_at){ loc.file, loc.line, key };
}

struct conf_at
conf_at_of(struct conf_loader *ld, config_setting_t *g, const char *rel,
    const char *key)
{
	char p[CONF_NAME_MAX];
	config_setting_t *s;
	char *dot;

	snprintf(p, sizeof(p), "%s", rel);
	for (;;) {
		if ((s = config_setting_lookup(g, p)) != NULL)
			return conf_at_setting(ld, s, key);
		if ((dot = strrchr(p, '.')) == NULL)
			break;
		*dot = '\0';
	}
	return conf_at_setting(ld, g, key);
}

static int
conf_expect(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, int type, const char *what)
{
	if (config_setting_type(s) == type)
		return 0;
	return conf_fail(ld, at, "expected %s, got %s", what,
	    conf_type_name(config_setting_type(s)));
}

/* Returns a scalar's value as text (a string's own, or written to buf), or
 * NULL when s is not a scalar. */
static const char *
conf_scalar_text(const config_setting_t *s, char *buf, size_t len)
{
	double d;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		return config_setting_get_string(s);
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(buf, len, "%lld", config_setting_get_int64(s));
		return buf;
	case CONFIG_TYPE_BOOL:
		return config_setting_get_bool(s) ? "true" : "false";
	case CONFIG_TYPE_FLOAT:
		/* The shortest text that reads back as the same double. */
		d = config_setting_get_float(s);
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
		return buf;
	}
	return NULL;
}

static int
conf_get_string(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, const char **out)
{
	int rc;

	if ((rc = conf_expect(ld, s, at, CONFIG_TYPE_STRING, "a string")) != 0)
		return rc;
	*out = config_setting_get_string(s);
	return 0;
}

static int
conf_set_string(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at, char **dst)
{
	conf_check_fn *check = k->type == CONF_DIR ? conf_check_dir : k->check;
	char why[CONF_TEXT_MAX];
	const char *v;
	int rc;

	if ((rc = conf_get_string(ld, s, at, &v)) != 0)
		return rc;
	if (*v == '\0')
		return conf_fail(ld, at, "must not be empty");
	if (check != NULL && check(v, why, sizeof(why)) != 0)
		return conf_fail(ld, at, "%s", why);
	if ((*dst = strdup(v)) == NULL)
		return conf_oom(ld);
	return 0;
}

/* An integer; a size or a duration also as a string with its unit. */
static int
conf_set_int(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at, void *dst)
{
	char why[CONF_TEXT_MAX], lo[32], hi[32], text[64];
	int type = config_setting_type(s);
	int64_t v;
	int r = 0;

	if (type == CONFIG_TYPE_STRING && k->type == CONF_SIZE)
		r = conf_parse_size(config_setting_get_string(s), &v, why,
		    sizeof(why));
	else if (type == CONFIG_TYPE_STRING && k->type == CONF_DURATION)
		r = conf_parse_duration(config_setting_get_string(s), &v, why,
		    sizeof(why));
	else if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
		v = config_setting_get_int64(s);
	else
		return conf_fail(ld, at, "expected %s, got %s",
		    k->type == CONF_SIZE ? "a size (bytes, or a string such as "
		    "\"512MiB\")" : k->type == CONF_DURATION ? "a duration "
		    "(seconds, or a string such as \"5m\")" : "an integer",
		    conf_type_name(type));
	if (r != 0)
		return conf_fail(ld, at, "%s", why);
	if (v < k->min || v > k->max) {
		/* the value as written; a size's or duration's range also
		 * with its units */
		if (type == CONFIG_TYPE_STRING)
			snprintf(text, sizeof(text), "\"%.20s\" (%lld)",
			    config_setting_get_string(s), (long long)v);
		else
			snprintf(text, sizeof(text), "%lld", (long long)v);
		conf_int_text(k->type, k->min, lo, sizeof(lo));
		conf_int_text(k->type, k->max, hi, sizeof(hi));
		if (k->type != CONF_SIZE && k->type != CONF_DURATION)
			return conf_fail(ld, at, "%s is out of range %s..%s",
			    text, lo, hi);
		return conf_fail(ld, at, "%s is out of range %lld..%lld "
		    "(%s..%s)", text, k->min, k->max, lo, hi);
	}
	if (k->type == CONF_INT64 || k->type == CONF_SIZE)
		*(int64_t *)dst = v;
	else
		*(int *)dst = (int)v;
	return 0;
}

static int
conf_set_bool(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, int *dst)
{
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return conf_fail(ld, at, "expected true or false, got %s",
		    conf_type_name(config_setting_type(s)));
	*dst = config_setting_get_bool(s);
	return 0;
}

static int
conf_set_fraction(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at, double *dst)
{
	double v;

	if (config_setting_type(s) != CONFIG_TYPE_FLOAT)
		return conf_fail(ld, at, "expected a number like 0.8, got %s",
		    conf_type_name(config_setting_type(s)));
	v = config_setting_get_float(s);
	if (!(v >= (double)k->min / 100 && v <= (double)k->max / 100))
		return conf_fail(ld, at, "%g is out of range %.2f..%.2f", v,
		    (double)k->min / 100, (double)k->max / 100);
	*dst = v;
	return 0;
}

/* A string among k->values, kept as a string, or as an enum by k->parse. */
static int
conf_set_enum(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at, void *dst)
{
	char values[CONF_TEXT_MAX];
	const char *v;
	int rc;

	if ((rc = conf_get_string(ld, s, at, &v)) != 0)
		return rc;
	if (!conf_enum_has(k->values, v) ||
	    (k->parse != NULL && k->parse(v, dst) != 0)) {
		conf_list_values(k->values, values, sizeof(values));
		return conf_fail(ld, at, "\"%s\" is not one of: %s", v, values);
	}
	if (k->parse == NULL && (*(char **)dst = strdup(v)) == NULL)
		return conf_oom(ld);
	return 0;
}

static int
conf_set_byte(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, char *dst)
{
	const char *v;
	int rc;

	if ((rc = conf_get_string(ld, s, at, &v)) != 0)
		return rc;
	if (strlen(v) != 1)
		return conf_fail(ld, at, "must be exactly one byte, such as "
		    "\"\\t\" or \"\\x01\"");
	/* An escaped n, r or N would read back as newline, CR or NULL. */
	if (strchr("\n\r\\nrN", *v) != NULL)
		return conf_fail(ld, at, "cannot be a newline, carriage return, "
		    "backslash, n, r or N: Hive text escapes with those");
	*dst = *v;
	return 0;
}

/* The worse of two results: -ENOMEM stops a load, -EINVAL does not. */
static int
conf_worse(int a, int b)
{
	return a == -ENOMEM || b == -ENOMEM ? -ENOMEM : a != 0 ? a : b;
}

static int
conf_set_list(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at,
    struct conf_strv *dst)
{
	char name[CONF_NAME_MAX + 16], why[CONF_TEXT_MAX];
	int n = config_setting_length(s);
	struct conf_at eat;
	const char *v;
	int rc = 0;

	if (!config_setting_is_array(s) && !config_setting_is_list(s))
		return conf_fail(ld, at, "expected a list of strings "
		    "[ \"a\", \"b\" ], got %s",
		    conf_type_name(config_setting_type(s)));
	if (n < k->min)
		return conf_fail(ld, at, "must not be empty");
	for (int i = 0; i < n && rc != -ENOMEM; i++) {
		const config_setting_t *e = config_setting_get_elem(s,
		    (unsigned)i);

		snprintf(name, sizeof(name), "%s[%d]", at->key, i);
		eat = conf_at_setting(ld, e, name);
		if (conf_get_string(ld, e, &eat, &v) != 0)
			rc = -EINVAL;
		else if (k->check != NULL && k->check(v, why, sizeof(why)) != 0)
			rc = conf_fail(ld, &eat, "%s", why);
		else if (!(k->flags & CONF_REPEATS) && conf_strv_has(dst, v))
			rc = conf_fail(ld, &eat, "\"%s\" is listed twice", v);
		else if (conf_strv_add(dst, v) != 0)
			rc = conf_oom(ld);
	}
	return rc;
}

/* A UDTF, or a list of them: a chain in which each feeds the next. */
static int
conf_set_udtf(struct conf_loader *ld, const config_setting_t *s,
    const struct conf_at *at, struct conf_stage **dst, size_t *n)
{
	char name[CONF_NAME_MAX + 16], why[CONF_TEXT_MAX];
	int list = config_setting_is_array(s) || config_setting_is_list(s);
	int len = list ? config_setting_length(s) : 1;
	const struct udtf_plugin *udtf;
	const char *v;
	int rc = 0;

	if (len == 0)
		return conf_fail(ld, at, "must name a UDTF");
	for (int i = 0; i < len && rc != -ENOMEM; i++) {
		const config_setting_t *e = list ?
		    config_setting_get_elem(s, (unsigned)i) : s;
		struct conf_at eat = *at;

		if (list) {
			snprintf(name, sizeof(name), "%s[%d]", at->key, i);
			eat = conf_at_setting(ld, e, name);
		}
		if (conf_get_string(ld, e, &eat, &v) != 0)
			rc = -EINVAL;
		else if ((udtf = udtf_resolve(v, why, sizeof(why))) == NULL)
			rc = conf_fail(ld, &eat, "%s", why);
		else if (conf_stage_add(dst, n, v, udtf,
		    (struct conf_loc){ eat.file, eat.line }) != 0)
			rc = conf_oom(ld);
	}
	return rc;
}

/* A group of key = scalar, kept as strings; kafka.rdkafka's each checked
 * by librdkafka and kept under librdkafka's name. */
static int
conf_set_kvs(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const struct conf_at *at,
    struct conf_kv **dst, size_t *n)
{
	char name[2 * CONF_NAME_MAX], key[CONF_NAME_MAX], buf[CONF_TEXT_MAX];
	char why[CONF_TEXT_MAX];
	struct conf_at mat;
	const char *value;
	int rc = 0;

	if (conf_expect(ld, s, at, CONFIG_TYPE_GROUP,
	    "a group { key = value; }") != 0)
		return -EINVAL;
	for (int i = 0; i < config_setting_length(s) && rc != -ENOMEM; i++) {
		const config_setting_t *m = config_setting_get_elem(s,
		    (unsigned)i);
		const char *mname = config_setting_name(m);

		snprintf(name, sizeof(name), "%s.%s", at->key, mname);
		mat = conf_at_setting(ld, m, name);
		snprintf(key, sizeof(key), "%s", mname);
		if ((value = conf_scalar_text(m, buf, sizeof(buf))) == NULL)
			rc = conf_fail(ld, &mat, "expected a string, number "
			    "or boolean, got %s",
			    conf_type_name(config_setting_type(m)));
		else if (k->type == CONF_RDKAFKA && conf_check_rdkafka(mname,
		    value, key, sizeof(key), why, sizeof(why)) != 0)
			rc = conf_fail(ld, &mat, "%s", why);
		else if (conf_kv_add(dst, n, key, value,
		    (struct conf_loc){ mat.file, mat.line }) != 0)
			rc = conf_oom(ld);
	}
	return rc;
}

static int conf_walk(struct conf_loader *ld, config_setting_t *g,
    const char *prefix, const char *shown, void *base, unsigned char *seen);
static int conf_fill_defaults(struct conf_loader *ld, config_setting_t *g,
    const char *prefix, const char *shown, void *base,
    const unsigned char *seen);

static const struct udtf_key *
conf_udtf_key(const struct udtf_plugin *p, const char *name)
{
	for (const struct udtf_key *k = p->keys; k != NULL && k->name != NULL;
	    k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

/* Checks one stage's group of udtf_config against its UDTF's keys, keeps
 * the values and fills in the defaults of those left out.  g may be NULL
 * (all defaults); shown is the group's name in messages, at where it is
 * (or where the table is, without it). */
static int
conf_load_stage(struct conf_loader *ld, config_setting_t *g,
    struct conf_stage *st, const char *shown, const struct conf_at *gat)
{
	const struct udtf_plugin *p = st->udtf;
	char name[2 * CONF_NAME_MAX], keys[CONF_TEXT_MAX] = "";
	char buf[CONF_TEXT_MAX];
	const struct udtf_key *k;
	const char *value;
	size_t used = 0;
	struct conf_at at;
	int rc = 0;

	for (k = p->keys; k != NULL && k->name != NULL && used < sizeof(keys);
	    k++)
		used += (size_t)snprintf(keys + used, sizeof(keys) - used,
		    "%s%s", used > 0 ? ", " : "", k->name);
	st->config_at = g != NULL ? (struct conf_loc){ gat->file, gat->line } :
	    st->at;
	for (int j = 0; g != NULL && j < config_setting_length(g) &&
	    rc != -ENOMEM; j++) {
		const config_setting_t *m = config_setting_get_elem(g,
		    (unsigned)j);
		const char *mname = config_setting_name(m);

		snprintf(name, sizeof(name), "%s.%s", shown, mname);
		at = conf_at_setting(ld, m, name);
		if (conf_udtf_key(p, mname) == NULL && keys[0] == '\0')
			rc = conf_fail(ld, &at, "UDTF %s takes no keys", p->name);
		else if (conf_udtf_key(p, mname) == NULL)
			rc = conf_fail(ld, &at, "UDTF %s has no such key; its "
			    "keys: %s", p->name, keys);
		else if ((value = conf_scalar_text(m, buf, sizeof(buf))) == NULL)
			rc = conf_fail(ld, &at, "expected a string, number "
			    "or boolean, got %s",
			    conf_type_name(config_setting_type(m)));
		else if (conf_kv_add(&st->params, &st->n_params, mname, value,
		    (struct conf_loc){ at.file, at.line }) != 0)
			rc = conf_oom(ld);
	}
	for (k = p->keys; k != NULL && k->name != NULL && rc != -ENOMEM; k++) {
		if (g != NULL && config_setting_get_member(g, k->name) != NULL)
			continue;
		if (k->default_value == NULL) {
			snprintf(name, sizeof(name), "%s.%s", shown, k->name);
			at = *gat;
			at.key = name;
			rc = conf_fail(ld, &at, "required by the UDTF %s but "
			    "missing", p->name);
		} else if (conf_kv_add(&st->params, &st->n_params, k->name,
		    k->default_value, st->config_at) != 0)
			rc = conf_oom(ld);
	}
	return rc;
}

/* A table's udtf_config: one group for one UDTF; for a chain, a list of
 * groups, one per UDTF in the chain's order. */
static int
conf_check_udtf_config(struct conf_loader *ld, config_setting_t *ts,
    struct conf_table *t, size_t i)
{
	config_setting_t *g = config_setting_get_member(ts, "udtf_config");
	char name[64];
	struct conf_at at;
	int rc = 0;

	snprintf(name, sizeof(name), "tables[%zu].udtf_config", i);
	at = conf_at_setting(ld, g != NULL ? g : ts, name);
	if (g == NULL || (t->n_udtf == 1 && config_setting_is_group(g))) {
		for (size_t j = 0; j < t->n_udtf && rc != -ENOMEM; j++)
			rc = conf_worse(rc, conf_load_stage(ld, g, &t->udtf[j],
			    name, &at));
		return rc;
	}
	if (!config_setting_is_list(g) ||
	    config_setting_length(g) != (int)t->n_udtf)
		return conf_fail(ld, &at, "with a chain of %zu UDTFs, expected "
		    "a list of %zu groups ( { ... }, ... ), one per UDTF in "
		    "order", t->n_udtf, t->n_udtf);
	for (size_t j = 0; j < t->n_udtf && rc != -ENOMEM; j++) {
		config_setting_t *e = config_setting_get_elem(g, (unsigned)j);
		char shown[CONF_NAME_MAX + 16];
		struct conf_at eat;

		snprintf(shown, sizeof(shown), "%s[%zu]", name, j);
		eat = conf_at_setting(ld, e, shown);
		if (!config_setting_is_group(e))
			rc = conf_worse(rc, conf_fail(ld, &eat, "expected a "
			    "group { key = value; } for UDTF %s",
			    t->udtf[j].udtf->name));
		else
			rc = conf_worse(rc, conf_load_stage(ld, e, &t->udtf[j],
			    shown, &eat));
	}
	return rc;
}

/* Table i: its keys, its defaults, and once those hold no error, the
 * checks across them and its udtf_config. */
static int
conf_load_table(struct conf_loader *ld, config_setting_t *ts,
    struct conf_table *tables, size_t i)
{
	unsigned char seen[CONF_KEYS_MAX] = { 0 };
	size_t before = ld->rep->nerrors;
	char name[32], shown[32];
	struct conf_at at;
	int rc;

	snprintf(name, sizeof(name), "tables[%zu]", i);
	snprintf(shown, sizeof(shown), "tables[%zu].", i);
	at = conf_at_setting(ld, ts, name);
	if ((rc = conf_expect(ld, ts, &at, CONFIG_TYPE_GROUP,
	    "a group { name = ...; }")) != 0)
		return rc;
	tables[i].at = (struct conf_loc){ at.file, at.line };
	rc = conf_walk(ld, ts, CONF_TABLE_PREFIX, shown, &tables[i], seen);
	if (rc != -ENOMEM)
		rc = conf_worse(rc, conf_fill_defaults(ld, ts, CONF_TABLE_PREFIX,
		    shown, &tables[i], seen));
	if (rc != 0 || ld->rep->nerrors > before)
		return rc;
	if ((rc = conf_check_table(ld, ts, tables, i)) != 0)
		return rc;
	return conf_check_udtf_config(ld, ts, &tables[i], i);
}

static int
conf_set_tables(struct conf_loader *ld, config_setting_t *s,
    const struct conf_at *at, struct conf_table **dst, size_t *n)
{
	int len = config_setting_length(s);
	int rc = 0;

	if (!config_setting_is_list(s) && !config_setting_is_array(s))
		return conf_fail(ld, at, "expected a list of groups "
		    "( { ... }, ... ), got %s",
		    conf_type_name(config_setting_type(s)));
	if (len == 0)
		return conf_fail(ld, at, "must hold at least one table");
	if ((*dst = calloc((size_t)len, sizeof(**dst))) == NULL)
		return conf_oom(ld);
	*n = (size_t)len;
	for (int i = 0; i < len && rc != -ENOMEM; i++)
		rc = conf_worse(rc, conf_load_table(ld,
		    config_setting_get_elem(s, (unsigned)i), *dst, (size_t)i));
	return rc;
}

/* Checks setting s against key k and stores its value in base. */
static int
conf_set_value(struct conf_loader *ld, const struct conf_key *k,
    config_setting_t *s, const struct conf_at *at, void *base)
{
	void *dst = (char *)base + k->offset;
	size_t *count = (size_t *)(void *)((char *)base + k->count_offset);

	if (conf_where_add(ld->c, at->key, (struct conf_loc){ at->file,
	    at->line }) != 0)
		return conf_oom(ld);
	switch (k->type) {
	case CONF_STRING:
	case CONF_DIR:
		return conf_set_string(ld, k, s, at, dst);
	case CONF_INT:
	case CONF_INT64:
	case CONF_SIZE:
	case CONF_DURATION:
		return conf_set_int(ld, k, s, at, dst);
	case CONF_ENUM:
		return conf_set_enum(ld, k, s, at, dst);
	case CONF_BYTE:
		return conf_set_byte(ld, s, at, dst);
	case CONF_BOOL:
		return conf_set_bool(ld, s, at, dst);
	case CONF_FRACTION:
		return conf_set_fraction(ld, k, s, at, dst);
	case CONF_STRING_LIST:
		return conf_set_list(ld, k, s, at, dst);
	case CONF_UDTF:
		return conf_set_udtf(ld, s, at, dst, count);
	case CONF_UDTF_CONFIG:
		return 0; /* checked once the table's chain is known */
	case CONF_RDKAFKA:
		return conf_set_kvs(ld, k, s, at, dst, count);
	case CONF_TABLES:
		return conf_set_tables(ld, s, at, dst, count);
	}
	return -EINVAL;
}

/* An unknown key: suggests the nearest known one, or lists them. */
static int
conf_unknown(struct conf_loader *ld, const struct conf_at *at,
    const char *prefix, const char *name)
{
	char known[CONF_TEXT_MAX], best[CONF_NAME_MAX];

	conf_key_suggest(prefix, name, best, sizeof(best), known,
	    sizeof(known));
	if (best[0] != '\0')
		return conf_fail(ld, at, "unknown key; did you mean \"%s\"?",
		    best);
	return conf_fail(ld, at, "unknown key; the keys here are %s", known);
}

/* What seen[] says of a key: left out, set, or set to a value that was
 * refused (it then gets no default, and its error stands alone). */
enum { CONF_UNSEEN, CONF_SET, CONF_REFUSED };

/* Pass one: every setting of group g, in file order.  prefix is g's path
 * in the key table ("" at the root, "tables." in a table), shown how its
 * keys are named in errors ("tables[2].").  Goes on past an error. */
static int
conf_walk(struct conf_loader *ld, config_setting_t *g, const char *prefix,
    const char *shown, void *base, unsigned char *seen)
{
	char path[CONF_NAME_MAX + 1], name[CONF_NAME_MAX + 1];
	struct conf_at at;
	size_t ki;
	int rc = 0, r;

	for (int i = 0; i < config_setting_length(g) && rc != -ENOMEM; i++) {
		config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
		const char *mname = config_setting_name(m);

		snprintf(path, CONF_NAME_MAX, "%s%s", prefix, mname);
		snprintf(name, CONF_NAME_MAX, "%s%s", shown, mname);
		at = conf_at_setting(ld, m, name);
		if ((ki = conf_key_find(path)) < conf_key_count()) {
			r = conf_set_value(ld, conf_key_at(ki), m, &at, base);
			seen[ki] = r == 0 ? CONF_SET : CONF_REFUSED;
		} else if (conf_is_group_path(path)) {
			r = conf_expect(ld, m, &at, CONFIG_TYPE_GROUP,
			    "a group { ... }");
			strcat(path, ".");
			strcat(name, ".");
			if (r == 0)
				r = conf_walk(ld, m, path, name, base, seen);
		} else
			r = conf_unknown(ld, &at, prefix, mname);
		rc = conf_worse(rc, r);
	}
	return rc;
}

static int
conf_set_default(struct conf_loader *ld, const struct conf_key *k,
    const struct conf_at *at, void *base)
{
	char text[CONF_TEXT_MAX];
	config_setting_t *s;
	config_t d;
	int rc;

	config_init(&d);
	if (k->default_fn != NULL) {
		if ((rc = k->default_fn(text, sizeof(text))) != 0) {
			rc = conf_fail(ld, at, "has no default here (%s); set "
			    "it", strerror(-rc));
			goto done;
		}
		s = config_setting_add(config_root_setting(&d), "v",
		    CONFIG_TYPE_STRING);
		if (s == NULL || !config_setting_set_string(s, text)) {
			rc = conf_oom(ld);
			goto done;
		}
	} else {
		snprintf(text, sizeof(text), "v = %s;", k->default_text);
		if (!config_read_string(&d, text) ||
		    (s = config_lookup(&d, "v")) == NULL) {
			rc = conf_fail(ld, at, "the default %s does not parse",
			    k->default_text);
			goto done;
		}
	}
	rc = conf_set_value(ld, k, s, at, base);
done:
	config_destroy(&d);
	return rc;
}

/* Pass two: the keys of g's scope the file left out. */
static int
conf_fill_defaults(struct conf_loader *ld, config_setting_t *g,
    const char *prefix, const char *shown, void *base,
    const unsigned char *seen)
{
	unsigned scope = prefix[0] != '\0' ? CONF_IN_TABLE : 0;
	char name[CONF_NAME_MAX];
	struct conf_at at;
	int rc = 0;

	for (size_t i = 0; i < conf_key_count() && rc != -ENOMEM; i++) {
		const struct conf_key *k = conf_key_at(i);
		const char *rel = k->path + strlen(prefix);

		if ((k->flags & CONF_IN_TABLE) != scope || seen[i] != CONF_UNSEEN)
			continue;
		snprintf(name, sizeof(name), "%s%s", shown, rel);
		at = conf_at_of(ld, g, rel, name);
		if (k->flags & CONF_REQUIRED)
			rc = conf_worse(rc, conf_fail(ld, &at, "required key is "
			    "missing"));
		else if (k->default_text != NULL || k->default_fn != NULL)
			rc = conf_worse(rc, conf_set_default(ld, k, &at, base));
	}
	return rc;
}

/* libconfig's reading of the text: a syntax error is one, at its file
 * and line. */
static int
conf_parse(struct conf_loader *ld)
{
	if (config_read_string(&ld->cfg, ld->src.text.data))
		return 0;
	return conf_src_syntax(ld, conf_src_where(ld,
	    config_error_line(&ld->cfg)), config_error_text(&ld->cfg), NULL);
}

struct conf *
conf_load_all(const char *path, struct conf_report *rep)
{
	unsigned char seen[CONF_KEYS_MAX] = { 0 };
	struct conf_loader ld = { .rep = rep };
	config_setting_t *root;
	int rc = -ENOMEM;

	config_init(&ld.cfg);
	if ((ld.c = calloc(1, sizeof(*ld.c))) == NULL ||
	    (ld.c->path = strdup(path)) == NULL) {
		rep->oom = 1;
		goto done;
	}
	if ((rc = conf_src_read(&ld)) != 0 || (rc = conf_parse(&ld)) != 0)
		goto done;
	root = config_root_setting(&ld.cfg);
	rc = conf_walk(&ld, root, "", "", ld.c, seen);
	if (rc != -ENOMEM)
		rc = conf_fill_defaults(&ld, root, "", "", ld.c, seen);
	if (rc != -ENOMEM)
		rc = conf_check_topics(&ld);
	if (rc != -ENOMEM)
		rc = conf_check_target(&ld);
	if (rc != -ENOMEM)
		rc = conf_check_names(&ld);
	/* errors in the keys: the config goes back, for the checker */
	if (rc == -EINVAL)
		rc = 0;
done:
	config_destroy(&ld.cfg);
	conf_src_clear(&ld.src);
	if (rc != 0) {
		conf_free(ld.c);
		return NULL;
	}
	return ld.c;
}

struct conf *
conf_load(const char *path, char *err, size_t errlen)
{
	struct conf_report rep = { 0 };
	struct conf *c = conf_load_all(path, &rep);

	if (c != NULL && (rep.nerrors > 0 || rep.oom)) {
		conf_free(c);
		c = NULL;
	}
	if (c == NULL)
		conf_report_first(&rep, err, errlen);
	conf_report_clear(&rep);
	return c;
}
