/* check-config: what the configuration names, checked offline and then
 * against the brokers and HDFS: see run.h and agent.h. */
#include "agent/agent.h"
#include "agent/run.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent/parse/table.h"
#include "agent/source/source.h"
#include "agent/target/target.h"
#include "agent/target/webhdfs.h"
#include "agent/write/tz.h"
#include "security/krb.h"
#include "security/tls.h"

int
agent_check_tls(const struct conf *c, time_t *cert_end,
    void (*warn)(void *arg, const char *sentence), void *arg, char *err,
    size_t errlen)
{
	/* librdkafka reads the same key with the same password */
	const struct conf_kv *pw = conf_rdkafka_find(c, "ssl.key.password");
	struct tls_files f = { c->kafka.ca_file, c->kafka.cert_file,
	    c->kafka.key_file, pw != NULL ? pw->value : NULL,
	    c->kafka.crl_file };
	char why[1024];
	time_t end;
	int r;

	if (source_insecure(c, why, sizeof(why)))
		warn(arg, why);
	if ((r = tls_check(&f, &end, err, errlen)) < 0)
		return r;
	if (end != 0 && end - time(NULL) < 30 * 86400) {
		snprintf(why, sizeof(why), "certificate %s expires in %ld days: "
		    "renew it", c->kafka.cert_file,
		    (long)((end - time(NULL)) / 86400));
		warn(arg, why);
	}
	if (cert_end != NULL)
		*cert_end = end;
	return 0;
}

/* What run_check() adds its findings to. */
struct check {
	const struct conf *c;
	struct conf_report *rep;
};

static void
check_warn(void *arg, const char *sentence)
{
	struct check *ck = arg;

	conf_report_sentence(ck->rep, 1, ck->c, sentence);
}

/* librdkafka's warnings of its conf: blamed on kafka.rdkafka. */
static void
check_rdkafka_warn(void *arg, const char *sentence)
{
	struct check *ck = arg;
	struct conf_loc at = conf_where(ck->c, "kafka.rdkafka");

	conf_report_add(ck->rep, 1, &at, "kafka.rdkafka", "librdkafka: %s",
	    sentence);
}

/* An error of a module that says no FILE:LINE: blamed on key, where it
 * is, named before the sentence unless the sentence starts with it. */
static void
check_fail_at(struct check *ck, const char *key, const char *sentence)
{
	struct conf_loc at = conf_where(ck->c, key);
	size_t n = strlen(key);

	if (strncmp(sentence, key, n) == 0 && sentence[n] == ' ')
		key = "";
	conf_report_add(ck->rep, 0, &at, key, "%s", sentence);
}

/* The kafka.security key whose file a TLS sentence names. */
static const char *
check_tls_key(const struct conf *c, const char *sentence)
{
	const struct {
		const char *key, *path;
	} files[] = {
		{ "kafka.security.cert_file", c->kafka.cert_file },
		{ "kafka.security.key_file", c->kafka.key_file },
		{ "kafka.security.ca_file", c->kafka.ca_file },
		{ "kafka.security.crl_file", c->kafka.crl_file },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strstr(sentence, files[i].key) != NULL ||
		    (files[i].path != NULL &&
		    strstr(sentence, files[i].path) != NULL))
			return files[i].key;
	return "kafka.security.protocol";
}

/* Every table's UDTFs and event time, as run builds them. */
static void
check_tables(struct check *ck, struct tz *tz)
{
	const struct conf *c = ck->c;
	char err[1024], key[32];
	struct table *t;

	for (size_t i = 0; i < c->n_tables; i++) {
		snprintf(key, sizeof(key), "tables[%zu]", i);
		if (conf_report_blames(ck->rep, key))
			continue;
		if ((t = table_new(c, i, tz, err, sizeof(err))) == NULL) {
			conf_report_sentence(ck->rep, 0, c, err);
			continue;
		}
		for (size_t j = 0; j < chain_length(table_chain(t)); j++) {
			const char *note, *udtf;
			struct conf_loc at = c->tables[i].udtf[j].config_at;
			char where[96];

			if ((note = chain_note(table_chain(t), j, &udtf)) == NULL)
				continue;
			if (c->tables[i].n_udtf > 1)
				snprintf(where, sizeof(where), "%s.udtf_config[%zu]",
				    key, j);
			else
				snprintf(where, sizeof(where), "%s.udtf_config", key);
			conf_report_add(ck->rep, 1, &at, where, "UDTF %s: %s", udtf,
			    note);
		}
		table_free(t);
	}
}

/* Whether an error in rep blames one of the output keys a table is
 * built with. */
static int
check_output_blamed(const struct conf_report *rep)
{
	static const char *const keys[] = { "output.timezone",
	    "output.spool_dir", "output.host", "output.roll", "output.parquet",
	    "output.event_window" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (conf_report_blames(rep, keys[i]))
			return 1;
	return 0;
}

int
run_check(const struct conf *c, struct conf_report *rep)
{
	struct check ck = { c, rep };
	struct tz *tz = NULL;
	char err[1024];

	if (!check_output_blamed(rep)) {
		if ((tz = tz_open(c->output.timezone, err, sizeof(err))) == NULL)
			check_fail_at(&ck, "output.timezone", err);
		else
			check_tables(&ck, tz);
	}
	/* the TLS files first: librdkafka loads them too, and says less */
	if (!conf_report_blames(rep, "kafka") &&
	    agent_check_tls(c, NULL, check_warn, &ck, err, sizeof(err)) < 0)
		check_fail_at(&ck, check_tls_key(c, err), err);
	else if (!conf_report_blames(rep, "kafka") &&
	    !conf_report_blames(rep, "kerberos") &&
	    source_check_conf(c, check_rdkafka_warn, &ck, err,
	    sizeof(err)) < 0)
		conf_report_sentence(rep, 0, c, err);
	if (c->kerberos.principal != NULL &&
	    !conf_report_blames(rep, "kerberos")) {
		struct krb_opts ko = agent_krb_opts(c);

		if (krb_check(&ko, err, sizeof(err)) < 0)
			check_fail_at(&ck, strncmp(err, "keytab", 6) == 0 ?
			    "kerberos.keytab" : "kerberos.principal", err);
	}
	if (!conf_report_blames(rep, "output") &&
	    target_warning(c, err, sizeof(err))) {
		struct conf_loc at = conf_where(c, "output.webhdfs.url");

		conf_report_add(rep, 1, &at, "", "%s", err);
	}
	tz_close(tz);
	return rep->nerrors > 0 || rep->oom ? -1 : 0;
}

/* Asks HDFS for output.webhdfs.base_dir, as kedge logged in. */
static int
run_check_webhdfs(const struct conf *c, char *info, size_t infolen,
    char *err, size_t errlen)
{
	struct webhdfs_opts wo = target_webhdfs_opts(c);
	struct webhdfs *w;
	int64_t len;
	int r;

	if (webhdfs_global_init() < 0 ||
	    (w = webhdfs_open(&wo, err, errlen)) == NULL)
		return -1;
	r = webhdfs_stat(w, "", &len, err, errlen);
	webhdfs_close(w);
	if (r == -EISDIR)
		snprintf(info, infolen, "; HDFS %s: %s is there", wo.url,
		    wo.base_dir);
	else if (r == 0)
		snprintf(info, infolen, "; HDFS %s: %s is not there yet, the "
		    "first file creates it", wo.url, wo.base_dir);
	else if (r == 1)
		snprintf(err, errlen, "output.webhdfs.base_dir %s is a file in "
		    "HDFS, not a directory", wo.base_dir);
	return r == -EISDIR || r == 0 ? 0 : -1;
}

int
run_check_online(const struct conf *c, char *info, size_t infolen,
    struct conf_report *rep)
{
	static const struct source_hooks none;
	struct krb_opts ko = agent_krb_opts(c);
	struct krb *krb = NULL;
	struct source *src = NULL;
	char err[1024];
	size_t used = 0;
	int r = -1;

	info[0] = '\0';
	if (c->kerberos.principal != NULL) {
		if ((krb = krb_login(&ko, err, sizeof(err))) == NULL) {
			conf_report_sentence(rep, 0, c, err);
			return -1;
		}
		used = (size_t)snprintf(info, infolen, "logged in as %s; ",
		    c->kerberos.principal);
	}
	if (used < infolen && (src = source_new(c, &none, err,
	    sizeof(err))) != NULL && source_probe(src, 10000, info + used,
	    infolen - used, err, sizeof(err)) == 0)
		r = 0;
	else
		conf_report_sentence(rep, 0, c, err);
	source_close(src);
	if (r == 0 && strcmp(c->output.target, "webhdfs") == 0) {
		used = strlen(info);
		if ((r = run_check_webhdfs(c, info + used, infolen - used, err,
		    sizeof(err))) < 0)
			conf_report_sentence(rep, 0, c, err);
	}
	krb_free(krb);
	return r;
}
