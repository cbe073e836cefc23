/*
 * confdiff: comparing two configurations key by key, walking the key table
 * of confkeys.c, for the SIGHUP reload (agent/reload.c) to tell which
 * changes it applies and which need a restart.
 */
#include "agent/config/confdiff.h"

#include <stdint.h>
#include <string.h>

#include "agent/config/confkeys.h"

static int
conf_str_eq(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static int
conf_kvs_eq(const struct conf_kv *a, size_t na, const struct conf_kv *b,
    size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (!conf_str_eq(a[i].key, b[i].key) ||
		    !conf_str_eq(a[i].value, b[i].value))
			return 0;
	return 1;
}

/* Whether two lists are the same: in order for an argument list (one
 * whose entries may repeat), as sets for a list of names (topics), whose
 * entries are distinct and whose order means nothing. */
static int
conf_strv_eq(const struct conf_strv *a, const struct conf_strv *b,
    int ordered)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		size_t j = i;

		if (!ordered)
			for (j = 0; j < b->n && !conf_str_eq(a->v[i], b->v[j]);
			    j++)
				;
		if (j == b->n || !conf_str_eq(a->v[i], b->v[j]))
			return 0;
	}
	return 1;
}

/* Whether key k holds the same value at base a and base b (a struct conf,
 * or a struct conf_table for the keys of a table). */
static int
conf_value_eq(const struct conf_key *k, const char *a, const char *b)
{
	const struct conf_table *ta = (const void *)a, *tb = (const void *)b;

	a += k->offset;
	b += k->offset;
	switch (k->type) {
	case CONF_STRING:
	case CONF_DIR:
		return conf_str_eq(*(char *const *)(const void *)a,
		    *(char *const *)(const void *)b);
	case CONF_ENUM:
		if (k->parse == NULL)
			return conf_str_eq(*(char *const *)(const void *)a,
			    *(char *const *)(const void *)b);
		return *(const int *)(const void *)a == *(const int *)(const void *)b;
	case CONF_INT:
	case CONF_DURATION:
	case CONF_BOOL:
		return *(const int *)(const void *)a == *(const int *)(const void *)b;
	case CONF_INT64:
	case CONF_SIZE:
		return *(const int64_t *)(const void *)a ==
		    *(const int64_t *)(const void *)b;
	case CONF_BYTE:
		return *a == *b;
	case CONF_FRACTION:
		return *(const double *)(const void *)a ==
		    *(const double *)(const void *)b;
	case CONF_STRING_LIST:
		return conf_strv_eq((const void *)a, (const void *)b,
		    (k->flags & CONF_REPEATS) != 0);
	case CONF_RDKAFKA:
		return conf_kvs_eq(*(struct conf_kv *const *)(const void *)a,
		    *(const size_t *)(const void *)(a - k->offset + k->count_offset),
		    *(struct conf_kv *const *)(const void *)b,
		    *(const size_t *)(const void *)(b - k->offset + k->count_offset));
	case CONF_UDTF:
		if (ta->n_udtf != tb->n_udtf)
			return 0;
		for (size_t i = 0; i < ta->n_udtf; i++)
			if (!conf_str_eq(ta->udtf[i].spec, tb->udtf[i].spec))
				return 0;
		return 1;
	case CONF_UDTF_CONFIG:
		if (ta->n_udtf != tb->n_udtf)
			return 0;
		for (size_t i = 0; i < ta->n_udtf; i++)
			if (!conf_kvs_eq(ta->udtf[i].params, ta->udtf[i].n_params,
			    tb->udtf[i].params, tb->udtf[i].n_params))
				return 0;
		return 1;
	case CONF_TABLES:
		break;
	}
	return 1;
}

/* Calls fn for every key of the tables whose value differs between a and
 * b, the tables matched by name, and with the path of the key tables, k,
 * for a table only one of them has (confdiff.h). */
static void
conf_diff_tables(const struct conf_key *k, const struct conf *a,
    const struct conf *b, conf_diff_fn *fn, void *arg)
{
	for (size_t t = 0; t < a->n_tables; t++) {
		const struct conf_table *ta = &a->tables[t];
		size_t u = conf_table_find(b, ta->name);

		if (u == b->n_tables) {
			fn(k->path, ta->name, arg);
			continue;
		}
		for (size_t j = 0; j < conf_key_count(); j++) {
			const struct conf_key *tk = conf_key_at(j);

			if ((tk->flags & CONF_IN_TABLE) &&
			    !conf_value_eq(tk, (const char *)ta,
			    (const char *)&b->tables[u]))
				fn(tk->path, ta->name, arg);
		}
	}
	for (size_t u = 0; u < b->n_tables; u++)
		if (conf_table_find(a, b->tables[u].name) == a->n_tables)
			fn(k->path, b->tables[u].name, arg);
}

void
conf_diff(const struct conf *a, const struct conf *b, conf_diff_fn *fn,
    void *arg)
{
	for (size_t i = 0; i < conf_key_count(); i++) {
		const struct conf_key *k = conf_key_at(i);

		if (k->flags & CONF_IN_TABLE)
			continue;
		if (k->type == CONF_TABLES)
			conf_diff_tables(k, a, b, fn, arg);
		else if (!conf_value_eq(k, (const char *)a, (const char *)b))
			fn(k->path, NULL, arg);
	}
}

void
conf_tables_order(struct conf *c, const struct conf *like)
{
	for (size_t i = 0; i < like->n_tables && i < c->n_tables; i++) {
		size_t j = conf_table_find(c, like->tables[i].name);
		struct conf_table swap;

		/* the first i are like's first i, so j is not among them */
		if (j == c->n_tables || j == i)
			continue;
		swap = c->tables[i];
		c->tables[i] = c->tables[j];
		c->tables[j] = swap;
	}
}
