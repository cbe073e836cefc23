/* check-config: what the configuration names, checked offline and then
 * against the brokers and HDFS: see run.h and agent.h. */
#include "agent/agent.h"
#include "agent/run.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent/source/source.h"
#include "agent/target/target.h"
#include "agent/target/webhdfs.h"
#include "lib/log.h"
#include "security/krb.h"
#include "security/tls.h"

int
agent_check_tls(const struct conf *c, time_t *cert_end, char *err,
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
		log_warnx("kafka: %s", why);
	if ((r = tls_check(&f, &end, err, errlen)) < 0)
		return r;
	if (end != 0 && end - time(NULL) < 30 * 86400)
		log_warnx("certificate %s expires in %ld days: renew it",
		    c->kafka.cert_file, (long)((end - time(NULL)) / 86400));
	if (cert_end != NULL)
		*cert_end = end;
	return 0;
}

int
run_check(const struct conf *c, char *err, size_t errlen)
{
	struct agent a;
	int r = agent_build(&a, c, err, errlen);

	agent_clear(&a);
	if (r == 0 && c->kerberos.principal != NULL) {
		struct krb_opts ko = agent_krb_opts(c);
		r = krb_check(&ko, err, errlen);
	}
	if (r == 0)
		r = agent_check_tls(c, NULL, err, errlen);
	return r;
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
    char *err, size_t errlen)
{
	static const struct source_hooks none;
	struct krb_opts ko = agent_krb_opts(c);
	struct krb *krb = NULL;
	struct source *src = NULL;
	size_t used = 0;
	int r = -1;

	info[0] = '\0';
	if (c->kerberos.principal != NULL) {
		if ((krb = krb_login(&ko, err, errlen)) == NULL)
			return -1;
		used = (size_t)snprintf(info, infolen, "logged in as %s; ",
		    c->kerberos.principal);
	}
	if (used < infolen && (src = source_new(c, &none, err, errlen)) != NULL &&
	    source_probe(src, 10000, info + used, infolen - used, err,
	    errlen) == 0)
		r = 0;
	source_close(src);
	if (r == 0 && strcmp(c->output.target, "webhdfs") == 0) {
		used = strlen(info);
		r = run_check_webhdfs(c, info + used, infolen - used, err, errlen);
	}
	krb_free(krb);
	return r;
}
