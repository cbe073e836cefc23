/*
 * confvalue: the lists a struct conf holds (strings, key = value pairs,
 * the stages of a UDTF chain), grown as config.c reads them, and
 * conf_free(), which frees a config key by key from the key table of
 * confkeys.c.
 */
#include "agent/config/config_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/config/confkeys.h"
#include "lib/grow.h"

int
conf_strv_has(const struct conf_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return 1;
	return 0;
}

int
conf_strv_add(struct conf_strv *v, const char *s)
{
	size_t cap = v->n; /* a list built once, at load: no capacity kept */

	if (grow_array((void **)&v->v, &cap, v->n + 1, sizeof(*v->v)) < 0)
		return -ENOMEM;
	if ((v->v[v->n] = strdup(s)) == NULL)
		return -ENOMEM;
	v->n++;
	return 0;
}

static void
conf_strv_clear(struct conf_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

static void
conf_kvs_free(struct conf_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

int
conf_stage_add(struct conf_stage **v, size_t *n, const char *spec,
    const struct udtf_plugin *udtf, struct conf_loc at)
{
	struct conf_stage *grown;
	size_t cap = *n; /* a list built once, at load: no capacity kept */

	if (grow_array((void **)v, &cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	grown = *v;
	memset(&grown[*n], 0, sizeof(grown[*n]));
	if ((grown[*n].spec = strdup(spec)) == NULL)
		return -ENOMEM;
	grown[*n].udtf = udtf;
	grown[*n].at = at;
	(*n)++;
	return 0;
}

int
conf_kv_add(struct conf_kv **kv, size_t *n, const char *key,
    const char *value, struct conf_loc at)
{
	struct conf_kv *grown;
	size_t cap = *n; /* a list built once, at load: no capacity kept */

	if (grow_array((void **)kv, &cap, *n + 1, sizeof(**kv)) < 0)
		return -ENOMEM;
	grown = *kv;
	grown[*n].key = strdup(key);
	grown[*n].value = strdup(value);
	grown[*n].at = at;
	(*n)++; /* conf_free() frees what was copied */
	if (grown[*n - 1].key == NULL || grown[*n - 1].value == NULL)
		return -ENOMEM;
	return 0;
}

/* Frees what key k holds at base (a struct conf, or a struct conf_table
 * for the keys of a table), the value conf_value_eq() compares. */
static void
conf_value_free(const struct conf_key *k, char *base)
{
	struct conf_table *t = (void *)base;
	struct conf *c = (void *)base;
	char *at = base + k->offset;

	switch (k->type) {
	case CONF_STRING:
	case CONF_DIR:
		free(*(char **)(void *)at);
		break;
	case CONF_ENUM: /* parsed: an int; else the name as written */
		if (k->parse == NULL)
			free(*(char **)(void *)at);
		break;
	case CONF_STRING_LIST:
		conf_strv_clear((void *)at);
		break;
	case CONF_RDKAFKA:
		conf_kvs_free(*(struct conf_kv **)(void *)at,
		    *(size_t *)(void *)(base + k->count_offset));
		break;
	case CONF_UDTF:
		for (size_t j = 0; j < t->n_udtf; j++) {
			free(t->udtf[j].spec);
			conf_kvs_free(t->udtf[j].params, t->udtf[j].n_params);
		}
		free(t->udtf);
		break;
	case CONF_TABLES:
		for (size_t i = 0; i < c->n_tables; i++)
			for (size_t j = 0; j < conf_key_count(); j++)
				if (conf_key_at(j)->flags & CONF_IN_TABLE)
					conf_value_free(conf_key_at(j),
					    (char *)&c->tables[i]);
		free(c->tables);
		break;
	case CONF_UDTF_CONFIG: /* in the array CONF_UDTF frees */
	case CONF_INT:
	case CONF_INT64:
	case CONF_SIZE:
	case CONF_DURATION:
	case CONF_BYTE:
	case CONF_BOOL:
	case CONF_FRACTION:
		break;
	}
}

/* Walks the key table as conf_diff() does, so that a new key needs only
 * its entry in the table and its field in struct conf. */
void
conf_free(struct conf *c)
{
	if (c == NULL)
		return;
	free(c->path);
	for (size_t i = 0; i < conf_key_count(); i++)
		if (!(conf_key_at(i)->flags & CONF_IN_TABLE))
			conf_value_free(conf_key_at(i), (char *)c);
	for (size_t i = 0; i < c->n_where; i++)
		free(c->where[i].key);
	free(c->where);
	conf_strv_clear(&c->files);
	free(c);
}

int
conf_where_add(struct conf *c, const char *key, struct conf_loc at)
{
	char *copy;

	if ((copy = strdup(key)) == NULL || grow_array((void **)&c->where,
	    &c->where_cap, c->n_where + 1, sizeof(*c->where)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	c->where[c->n_where++] = (struct conf_where){ copy, at };
	return 0;
}

struct conf_loc
conf_where(const struct conf *c, const char *key)
{
	for (size_t i = c->n_where; i > 0; i--)
		if (strcmp(c->where[i - 1].key, key) == 0)
			return c->where[i - 1].at;
	return (struct conf_loc){ c->path, 0 };
}

const struct conf_kv *
conf_rdkafka_find(const struct conf *c, const char *key)
{
	for (size_t i = c->kafka.n_rdkafka; i > 0; i--)
		if (strcmp(c->kafka.rdkafka[i - 1].key, key) == 0)
			return &c->kafka.rdkafka[i - 1];
	return NULL;
}

size_t
conf_table_find(const struct conf *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n_tables; i++)
		if (strcmp(c->tables[i].name, name) == 0)
			break;
	return i;
}
