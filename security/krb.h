/*
 * krb: kedge's Kerberos login.  kedge logs in with MIT krb5 from its
 * keytab into a private credential cache in memory, named in KRB5CCNAME so
 * that everything in the process that speaks GSSAPI (librdkafka's SASL,
 * the HDFS publisher's SPNEGO) finds the tickets there, and it logs in
 * again before they expire, in-process, without forking kinit.
 *
 * Every failure is one sentence that names the principal, the keytab or
 * the realm and the fix; the module never logs (the run loop does).
 */
#ifndef KEDGE_SECURITY_KRB_H
#define KEDGE_SECURITY_KRB_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct krb;

struct krb_opts {
	const char *principal;
	const char *keytab;      /* relative: under $CREDENTIALS_DIRECTORY */
	int use_ticket_cache;    /* use KRB5CCNAME's tickets, do not renew */
	double renew_at;         /* fraction of a ticket's lifetime */
};

/* Checks what can be checked offline: the keytab exists, is a file, is
 * readable by its owner only, and holds a key for the principal.  Returns
 * 0, or a negative errno with the sentence in err. */
int krb_check(const struct krb_opts *o, char *err, size_t errlen);

/* Logs in (krb_check first) and points KRB5CCNAME at the new cache.
 * Returns the login, or NULL with the sentence in err: the KDC is
 * unreachable, refused the key (wrong key version), does not know the
 * principal or the realm, or the clocks are more than the allowed skew
 * apart. */
struct krb *krb_login(const struct krb_opts *o, char *err, size_t errlen);
/* Frees k (accepts NULL); a login under way is waited for first, at
 * most libkrb5's own timeouts. */
void krb_free(struct krb *k);

/* When the ticket ends, and when the next login is due (UNIX time). */
time_t krb_expires(const struct krb *k);
time_t krb_renew_due(const struct krb *k);

#define KRB_RENEWED 1   /* krb_renew(): a new ticket is in the cache */
#define KRB_STARTED 2   /* krb_renew(): a new login is under way */

/* Never waits on the KDC, which libkrb5 gives no time limit (a silent one
 * takes it about 27 s): the login runs in a thread of its own, one at a
 * time, and moves the new tickets into the cache in one step.
 *
 * When a login under way has finished, takes its result: returns
 * KRB_RENEWED, or a negative errno with the sentence in err (the old
 * tickets stay in use until they expire; the next try waits longer, up to
 * a minute).  Otherwise, when now is past the renewal time and the last
 * failure's backoff, starts one and returns KRB_STARTED; else returns 0. */
int krb_renew(struct krb *k, time_t now, char *err, size_t errlen);

#endif /* KEDGE_SECURITY_KRB_H */
