/*
 * tls: what kedge checks of its TLS files before it talks to a broker
 * over SSL or SASL_SSL, with OpenSSL, so that a wrong file is a sentence
 * naming the file and the fix at start rather than a failed handshake
 * later: the CA file parses and holds certificates, the client
 * certificate (when given) is valid now and matches its key, and how long
 * it has left.  An encrypted key is read with the password given, never
 * by asking on the terminal.
 */
#ifndef KEDGE_SECURITY_TLS_H
#define KEDGE_SECURITY_TLS_H

#include <stddef.h>
#include <time.h>

struct tls_files {
	const char *ca_file;     /* NULL: the system's CAs */
	const char *cert_file;   /* NULL: no client certificate */
	const char *key_file;
	const char *key_password; /* of an encrypted key_file; NULL: none */
	const char *crl_file;    /* NULL: none */
};

/* Checks the files.  Sets *cert_end to when the client certificate
 * expires (0 without one).  Returns 0, or a negative errno with the
 * sentence in err. */
int tls_check(const struct tls_files *f, time_t *cert_end, char *err,
    size_t errlen);

#endif /* KEDGE_SECURITY_TLS_H */
