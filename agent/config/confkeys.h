/*
 * confkeys: the schema of kedge.conf.  One static table holds every key:
 * its path, type, default, where its value lands in struct conf and what
 * it means.  Next to it sit the checks of single values and the writer of
 * docs/config.md.  config.c walks a file against this table; nothing here
 * reads a file.
 *
 * The key table and its lookups are declared in config.h where the rest
 * of the agent and the tests use them (conf_key_count, conf_key_path,
 * conf_write_reference); what only the loader needs is below.
 */
#ifndef KEDGE_CONFKEYS_H
#define KEDGE_CONFKEYS_H

#include <stddef.h>
#include <stdint.h>

#define CONF_NAME_MAX 256 /* a key as shown, "tables[3].udtf_config.x" */
#define CONF_TEXT_MAX 512 /* a scalar as text, a list of names */
#define CONF_TABLE_PREFIX "tables."
/* At least conf_key_count(): the loader marks the keys a file sets in an
 * array of this size, which must be known at compile time. */
#define CONF_KEYS_MAX 96

enum conf_type {
	CONF_STRING,
	CONF_DIR,         /* a string naming a directory kedge may write in */
	CONF_INT,
	CONF_INT64,
	CONF_SIZE,        /* bytes, an int64: an integer, or "512MiB" */
	CONF_DURATION,    /* seconds, an int: an integer, or "5m" */
	CONF_ENUM,        /* a string among the key's values */
	CONF_BYTE,        /* a string of exactly one byte */
	CONF_BOOL,        /* true or false, kept as an int */
	CONF_FRACTION,    /* a number in min/100..max/100, kept as a double */
	CONF_STRING_LIST,
	CONF_UDTF,        /* a string or a list of strings: built-in UDTFs */
	CONF_RDKAFKA,     /* a group passed to librdkafka */
	CONF_UDTF_CONFIG, /* a group checked against the UDTF's keys */
	CONF_TABLES       /* a list of groups taking the CONF_IN_TABLE keys */
};

#define CONF_REQUIRED 0x1u
#define CONF_IN_TABLE 0x2u /* a key of each group of the tables list */
#define CONF_REPEATS 0x4u  /* a list whose entries may repeat (an argv) */
#define CONF_RELOADS 0x8u  /* SIGHUP applies it; else it needs a restart */

/* Returns 0 when value is acceptable, or -EINVAL with what is wrong in
 * why (the end of an error sentence). */
typedef int (conf_check_fn)(const char *value, char *why, size_t whylen);

struct conf_key {
	const char *path;
	enum conf_type type;
	unsigned flags;
	const char *default_text;  /* libconfig syntax; NULL: none */
	const char *default_doc;   /* the reference's words when no text */
	int (*default_fn)(char *buf, size_t len); /* a computed default */
	size_t offset;             /* in struct conf, or struct conf_table */
	size_t count_offset;       /* lists of groups: where the count lands */
	const char *values;        /* CONF_ENUM: "a|b|c" */
	int (*parse)(const char *name, void *out); /* CONF_ENUM to an enum */
	long long min, max;        /* integers: range; lists: least length;
	                            * fractions: range in hundredths */
	conf_check_fn *check;
	const char *description;
};

/* Returns key i of the table, or NULL when i is out of range.  The table
 * is static: the pointer stays valid and is never freed. */
const struct conf_key *conf_key_at(size_t i);

/* Returns the index of the key whose path is path ("output.roll.max_age",
 * "tables.name"), or conf_key_count() when there is none. */
size_t conf_key_find(const char *path);

/* Returns 1 when some key lies under path + "." ("output.roll"), else 0. */
int conf_is_group_path(const char *path);

/* For an unknown key name in the group whose path is prefix ("" at the
 * root, "tables." in a table): writes to best the known key there that is
 * nearest to name, or "" when none is within two edits, and to known every
 * key there as "a, b, c". */
void conf_key_suggest(const char *prefix, const char *name, char *best,
    size_t bestlen, char *known, size_t knownlen);

/* Returns how an error names a libconfig setting type (CONFIG_TYPE_GROUP
 * is "a group"); a static string. */
const char *conf_type_name(int type);

/* Returns 1 when v is one of values ("a|b|c"), else 0. */
int conf_enum_has(const char *values, const char *v);

/* Writes the values "a|b|c" as "a, b, c" to buf, cut to fit len. */
void conf_list_values(const char *values, char *buf, size_t len);

/* The check of every CONF_DIR value (a conf_check_fn): an existing
 * directory must be writable; a missing one must be creatable, its nearest
 * existing ancestor a writable directory. */
int conf_check_dir(const char *v, char *why, size_t whylen);

/* Checks the kafka.rdkafka member written as member (with '_' for '.')
 * and its value as text: writes librdkafka's name of it ("a.b.c") into
 * name; refuses the properties kedge sets itself, naming the kedge key to
 * use instead where there is one, and what librdkafka's own
 * rd_kafka_conf_set() refuses, naming the nearest property there is for
 * one it does not know.  Returns 0, or -EINVAL with what is wrong in why
 * (the end of an error sentence). */
int conf_check_rdkafka(const char *member, const char *value, char *name,
    size_t namelen, char *why, size_t whylen);

/* Sizes and durations (confunits.c). */

/* Reads a size: a number of bytes, with K, M, G, T or P (or KiB ... PiB:
 * powers of 1024) after it or not.  Returns 0, or -EINVAL with what is
 * wrong in why. */
int conf_parse_size(const char *s, int64_t *out, char *why, size_t whylen);

/* Reads a duration: a number of seconds, or numbers each with s, m, h or
 * d after it ("90s", "5m", "1h30m").  Returns 0, or -EINVAL with what is
 * wrong in why. */
int conf_parse_duration(const char *s, int64_t *out, char *why,
    size_t whylen);

/* Writes v as a key of type type shows it: a size in the largest unit that
 * holds it whole ("128MiB"), a duration likewise ("15m"), any other
 * integer in decimal. */
void conf_int_text(enum conf_type type, long long v, char *buf, size_t len);

#endif /* KEDGE_CONFKEYS_H */
