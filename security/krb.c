#include "security/krb.h"

#include <errno.h>
#include <krb5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/err.h"
#include "lib/thread.h"

#define KRB_BACKOFF_MAX 60  /* seconds between failed logins, at most */

struct krb {
	krb5_context ctx;
	krb5_principal princ;
	krb5_keytab kt;
	krb5_ccache cc;            /* the cache KRB5CCNAME names */
	char *principal;
	char keytab[4096];
	double renew_at;
	int renews;                /* 0: tickets of the default cache */
	time_t start, end;         /* of the current ticket */
	time_t next_try;           /* after a failed login */
	int failures;
	/*
	 * The renewal thread.  While it runs it alone uses ctx, cc, princ
	 * and kt, and writes the result below; the run loop reads only the
	 * fields above, which only the loop writes, and the result once it
	 * has joined the thread.
	 */
	pthread_t worker;
	int running;               /* started and not joined yet */
	int result;                /* 0 or a negative errno */
	time_t result_start, result_end;
	char result_err[1024];
};

/* A relative keytab path is under $CREDENTIALS_DIRECTORY, where systemd's
 * LoadCredential= puts it. */
static void
krb_keytab_path(const char *keytab, char *buf, size_t len)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY");

	if (keytab[0] != '/' && dir != NULL && dir[0] != '\0')
		snprintf(buf, len, "%s/%s", dir, keytab);
	else
		snprintf(buf, len, "%s", keytab);
}

/* Whether path is in $CREDENTIALS_DIRECTORY. */
static int
krb_is_credential(const char *path)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY");
	size_t n;

	return dir != NULL && (n = strlen(dir)) > 0 &&
	    strncmp(path, dir, n) == 0 && path[n] == '/';
}

static void
krb_errmsg(krb5_context ctx, krb5_error_code code, char *buf, size_t len)
{
	const char *m = krb5_get_error_message(ctx, code);

	snprintf(buf, len, "%s", m);
	krb5_free_error_message(ctx, m);
}

/* The principals a keytab holds, "a, b", for a message. */
static void
krb_keytab_names(krb5_context ctx, krb5_keytab kt, char *buf, size_t len)
{
	krb5_kt_cursor cur;
	krb5_keytab_entry e;
	size_t used = 0;

	buf[0] = '\0';
	if (krb5_kt_start_seq_get(ctx, kt, &cur) != 0)
		return;
	while (used < len && krb5_kt_next_entry(ctx, kt, &e, &cur) == 0) {
		char *name = NULL;

		if (krb5_unparse_name(ctx, e.principal, &name) == 0 &&
		    strstr(buf, name) == NULL)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
			    used > 0 ? ", " : "", name);
		krb5_free_unparsed_name(ctx, name);
		krb5_free_keytab_entry_contents(ctx, &e);
	}
	krb5_kt_end_seq_get(ctx, kt, &cur);
}

/* The file checks: there, a file, readable by its owner only. */
static int
krb_check_file(const char *path, const char *principal, char *err,
    size_t errlen)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		int e = errno;
		return err_set(err, errlen, -e,
		    "keytab %s: %s; export the key of %s into "
		    "it (kadmin: ktadd -k %s %s), or fix kerberos.keytab", path,
		    strerror(e), principal, path, principal);
	}
	if (!S_ISREG(st.st_mode)) {
		return err_set(err, errlen, -EINVAL, "keytab %s is not a file",
		    path);
	}
	/* systemd's credentials are private to the service whatever their
	 * mode shows (an ACL makes it 0440 where ramfs is not available) */
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) && !krb_is_credential(path)) {
		return err_set(err, errlen, -EPERM,
		    "keytab %s is readable or writable by %s "
		    "(mode %04o): it holds %s's key; chmod 600 %s", path,
		    st.st_mode & S_IRWXO ? "others" : "its group",
		    (unsigned)(st.st_mode & 07777), principal, path);
	}
	return 0;
}

static void
krb_close(struct krb *k)
{
	if (k->kt != NULL)
		krb5_kt_close(k->ctx, k->kt);
	if (k->princ != NULL)
		krb5_free_principal(k->ctx, k->princ);
	if (k->cc != NULL)
		krb5_cc_close(k->ctx, k->cc);
	if (k->ctx != NULL)
		krb5_free_context(k->ctx);
	free(k->principal);
}

/* Opens the context, the principal and the keytab, and checks that the
 * keytab holds a key for the principal. */
static int
krb_open(struct krb *k, const struct krb_opts *o, char *err, size_t errlen)
{
	char why[512], names[1024], ktname[4200];
	krb5_keytab_entry e;
	krb5_error_code code;
	int r;

	if ((k->principal = strdup(o->principal)) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	krb_keytab_path(o->keytab, k->keytab, sizeof(k->keytab));
	if ((code = krb5_init_context(&k->ctx)) != 0) {
		snprintf(err, errlen, "cannot start Kerberos: %s (is krb5.conf "
		    "readable?)", error_message(code));
		k->ctx = NULL;
		return -EINVAL;
	}
	if ((code = krb5_parse_name(k->ctx, o->principal, &k->princ)) != 0) {
		krb_errmsg(k->ctx, code, why, sizeof(why));
		return err_set(err, errlen, -EINVAL,
		    "kerberos.principal \"%s\": %s",
		    o->principal, why);
	}
	if (o->use_ticket_cache)
		return 0;
	if ((r = krb_check_file(k->keytab, o->principal, err, errlen)) < 0)
		return r;
	snprintf(ktname, sizeof(ktname), "FILE:%s", k->keytab);
	if ((code = krb5_kt_resolve(k->ctx, ktname, &k->kt)) != 0) {
		krb_errmsg(k->ctx, code, why, sizeof(why));
		return err_set(err, errlen, -EINVAL, "keytab %s: %s", k->keytab,
		    why);
	}
	code = krb5_kt_get_entry(k->ctx, k->kt, k->princ, 0, 0, &e);
	if (code == KRB5_KT_NOTFOUND) {
		krb_keytab_names(k->ctx, k->kt, names, sizeof(names));
		return err_set(err, errlen, -ENOENT,
		    "keytab %s holds no key for %s (it holds: "
		    "%s); fix kerberos.principal, or export the key (kadmin: "
		    "ktadd -k %s %s)", k->keytab, o->principal,
		    names[0] ? names : "nothing", k->keytab, o->principal);
	}
	if (code != 0) {
		krb_errmsg(k->ctx, code, why, sizeof(why));
		return err_set(err, errlen, -EINVAL, "keytab %s: %s", k->keytab,
		    why);
	}
	krb5_free_keytab_entry_contents(k->ctx, &e);
	return 0;
}

int
krb_check(const struct krb_opts *o, char *err, size_t errlen)
{
	struct krb k;
	int r;

	memset(&k, 0, sizeof(k));
	r = krb_open(&k, o, err, errlen);
	krb_close(&k);
	return r;
}

/* The sentence for a failed login, with the fix. */
static void
krb_login_error(struct krb *k, krb5_error_code code, char *err, size_t errlen)
{
	char why[512], realm[256];

	snprintf(realm, sizeof(realm), "%.*s", (int)k->princ->realm.length,
	    k->princ->realm.data);
	krb_errmsg(k->ctx, code, why, sizeof(why));
	switch (code) {
	case KRB5_KDC_UNREACH:
		snprintf(err, errlen, "no KDC of realm %s answers (%s): check "
		    "the realm's kdc in krb5.conf and that it is reachable",
		    realm, why);
		break;
	case KRB5_REALM_UNKNOWN:
	case KRB5_REALM_CANT_RESOLVE:
		snprintf(err, errlen, "realm %s is unknown (%s): add it to "
		    "[realms] in krb5.conf, or fix kerberos.principal", realm,
		    why);
		break;
	case KRB5KDC_ERR_C_PRINCIPAL_UNKNOWN:
		snprintf(err, errlen, "the KDC of %s does not know %s: create it "
		    "(kadmin: addprinc -randkey %s) or fix kerberos.principal",
		    realm, k->principal, k->principal);
		break;
	case KRB5KDC_ERR_PREAUTH_FAILED:
	case KRB5KRB_AP_ERR_BAD_INTEGRITY:
		snprintf(err, errlen, "the KDC refused the key of %s in %s (%s): "
		    "the principal's key changed since the keytab was made; "
		    "export it again (kadmin: ktadd -k %s %s)", k->principal,
		    k->keytab, why, k->keytab, k->principal);
		break;
	case KRB5KRB_AP_ERR_SKEW:      /* the KDC checked the preauth time */
	case KRB5_KDCREP_SKEW:         /* we checked the reply's time */
		snprintf(err, errlen, "this host's clock and the KDC's differ by "
		    "more than the allowed skew (%s): set the time right "
		    "(chrony or systemd-timesyncd)", why);
		break;
	default:
		snprintf(err, errlen, "cannot log in as %s with %s: %s",
		    k->principal, k->keytab, why);
	}
}

/* Logs in from the keytab into a new memory cache, then moves its tickets
 * into k->cc in one step, so that a reader never sees it empty; the new
 * ticket's times go to *start and *end. */
static int
krb_get_tickets(struct krb *k, time_t *start, time_t *end, char *err,
    size_t errlen)
{
	krb5_get_init_creds_opt *opt = NULL;
	krb5_ccache tmp = NULL;
	krb5_creds creds;
	krb5_error_code code;

	memset(&creds, 0, sizeof(creds));
	if ((code = krb5_get_init_creds_opt_alloc(k->ctx, &opt)) == 0)
		code = krb5_get_init_creds_keytab(k->ctx, &creds, k->princ, k->kt,
		    0, NULL, opt);
	krb5_get_init_creds_opt_free(k->ctx, opt);
	if (code != 0) {
		krb_login_error(k, code, err, errlen);
		return -EACCES;
	}
	if ((code = krb5_cc_new_unique(k->ctx, "MEMORY", NULL, &tmp)) != 0 ||
	    (code = krb5_cc_initialize(k->ctx, tmp, k->princ)) != 0 ||
	    (code = krb5_cc_store_cred(k->ctx, tmp, &creds)) != 0 ||
	    (k->cc != NULL && (code = krb5_cc_move(k->ctx, tmp, k->cc)) != 0)) {
		char why[512];
		krb_errmsg(k->ctx, code, why, sizeof(why));
		snprintf(err, errlen, "cannot keep %s's tickets: %s",
		    k->principal, why);
		if (tmp != NULL)
			krb5_cc_destroy(k->ctx, tmp);
		krb5_free_cred_contents(k->ctx, &creds);
		return -EIO;
	}
	if (k->cc == NULL)
		k->cc = tmp;    /* the first login's cache is the one */
	*start = creds.times.starttime ? creds.times.starttime :
	    creds.times.authtime;
	*end = creds.times.endtime;
	krb5_free_cred_contents(k->ctx, &creds);
	return 0;
}

/* With use_ticket_cache: the end of the ticket-granting ticket in the
 * default cache. */
static int
krb_use_cache(struct krb *k, char *err, size_t errlen)
{
	krb5_cc_cursor cur;
	krb5_creds c;
	krb5_error_code code;

	if ((code = krb5_cc_default(k->ctx, &k->cc)) != 0 ||
	    (code = krb5_cc_start_seq_get(k->ctx, k->cc, &cur)) != 0) {
		char why[512];
		krb_errmsg(k->ctx, code, why, sizeof(why));
		return err_set(err, errlen, -ENOENT,
		    "kerberos.use_ticket_cache: %s; run kinit "
		    "as %s, or set use_ticket_cache = false to use the keytab",
		    why, k->principal);
	}
	while (krb5_cc_next_cred(k->ctx, k->cc, &cur, &c) == 0) {
		if (c.server->length == 2 && c.server->data[0].length == 6 &&
		    memcmp(c.server->data[0].data, "krbtgt", 6) == 0) {
			k->start = c.times.authtime;
			k->end = c.times.endtime;
		}
		krb5_free_cred_contents(k->ctx, &c);
	}
	krb5_cc_end_seq_get(k->ctx, k->cc, &cur);
	if (k->end == 0) {
		return err_set(err, errlen, -ENOENT,
		    "kerberos.use_ticket_cache: the default "
		    "cache holds no ticket-granting ticket; run kinit as %s, or "
		    "set use_ticket_cache = false to use the keytab",
		    k->principal);
	}
	return 0;
}

struct krb *
krb_login(const struct krb_opts *o, char *err, size_t errlen)
{
	struct krb *k = calloc(1, sizeof(*k));
	const char *type, *name;
	char ccname[256];

	if (k == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	k->renew_at = o->renew_at;
	if (krb_open(k, o, err, errlen) < 0)
		goto fail;
	if (o->use_ticket_cache) {
		if (krb_use_cache(k, err, errlen) < 0)
			goto fail;
		return k;
	}
	k->renews = 1;
	if (krb_get_tickets(k, &k->start, &k->end, err, errlen) < 0)
		goto fail;
	type = krb5_cc_get_type(k->ctx, k->cc);
	name = krb5_cc_get_name(k->ctx, k->cc);
	snprintf(ccname, sizeof(ccname), "%s:%s", type, name);
	/* librdkafka's SASL and every GSSAPI user in the process read it */
	if (setenv("KRB5CCNAME", ccname, 1) < 0) {
		snprintf(err, errlen, "cannot set KRB5CCNAME: %s", strerror(errno));
		goto fail;
	}
	return k;
fail:
	krb_free(k);
	return NULL;
}

void
krb_free(struct krb *k)
{
	if (k == NULL)
		return;
	if (k->running)
		pthread_join(k->worker, NULL);
	if (k->renews && k->cc != NULL) {
		krb5_cc_destroy(k->ctx, k->cc);
		k->cc = NULL;
	}
	krb_close(k);
	free(k);
}

time_t
krb_expires(const struct krb *k)
{
	return k->end;
}

time_t
krb_renew_due(const struct krb *k)
{
	return k->start + (time_t)((double)(k->end - k->start) * k->renew_at);
}

/* The renewal thread: one login, its result left for krb_renew(). */
static void *
krb_renew_main(void *arg)
{
	struct krb *k = arg;

	k->result_err[0] = '\0';
	k->result = krb_get_tickets(k, &k->result_start, &k->result_end,
	    k->result_err, sizeof(k->result_err));
	return NULL;
}

/* Takes the result of a login: the new ticket, or the failure and when
 * to try again.  Returns KRB_RENEWED or the negative errno, with the
 * sentence in err. */
static int
krb_renew_result(struct krb *k, time_t now, char *err, size_t errlen)
{
	int backoff;

	if (k->result == 0) {
		k->start = k->result_start;
		k->end = k->result_end;
		k->failures = 0;
		k->next_try = 0;
		return KRB_RENEWED;
	}
	snprintf(err, errlen, "%s", k->result_err);
	k->failures++;
	backoff = k->failures < 6 ? 1 << k->failures : KRB_BACKOFF_MAX;
	k->next_try = now + backoff;
	return k->result;
}

int
krb_renew(struct krb *k, time_t now, char *err, size_t errlen)
{
	int r;

	if (k->running) {
		/* the thread's result, once it has ended */
		if (pthread_tryjoin_np(k->worker, NULL) != 0)
			return 0;
		k->running = 0;
		return krb_renew_result(k, now, err, errlen);
	}
	if (!k->renews || now < krb_renew_due(k) || now < k->next_try)
		return 0;
	if ((r = thread_start(&k->worker, krb_renew_main, k)) != 0) {
		k->result = -r;
		snprintf(k->result_err, sizeof(k->result_err), "cannot start "
		    "the renewal thread: %s", strerror(r));
		return krb_renew_result(k, now, err, errlen);
	}
	k->running = 1;
	return KRB_STARTED;
}
