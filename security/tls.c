#include "security/tls.h"
#include "lib/err.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>

/* OpenSSL's reason for the last failure, for a sentence. */
static const char *
tls_reason(char *buf, size_t len)
{
	unsigned long e = ERR_peek_last_error();

	if (e == 0)
		snprintf(buf, len, "no PEM data");
	else
		ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

static FILE *
tls_open(const char *what, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (f == NULL)
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
	return f;
}

/* The CA file (or CRL file) holds at least one PEM item OpenSSL reads. */
static int
tls_check_pems(const char *what, const char *path, int crl, char *err,
    size_t errlen)
{
	char why[256];
	FILE *f;
	int n = 0;

	if ((f = tls_open(what, path, err, errlen)) == NULL)
		return -ENOENT;
	for (;;) {
		void *item = crl ? (void *)PEM_read_X509_CRL(f, NULL, NULL, NULL) :
		    (void *)PEM_read_X509(f, NULL, NULL, NULL);
		if (item == NULL)
			break;
		if (crl)
			X509_CRL_free(item);
		else
			X509_free(item);
		n++;
	}
	fclose(f);
	if (n == 0) {
		return err_set(err, errlen, -EINVAL,
		    "%s %s holds no PEM %s (%s): give the PEM "
		    "file, -----BEGIN %s-----", what, path, crl ? "CRL" :
		    "certificate", tls_reason(why, sizeof(why)),
		    crl ? "X509 CRL" : "CERTIFICATE");
	}
	ERR_clear_error();
	return 0;
}

static void
tls_time(const ASN1_TIME *t, char *buf, size_t len, time_t *out)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	ASN1_TIME_to_tm(t, &tm);
	*out = timegm(&tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* What PEM_read_PrivateKey() asked of tls_password(). */
struct tls_password {
	const char *password;      /* NULL: none given */
	int asked;                 /* the key is encrypted */
};

/* OpenSSL's passphrase callback: the password given, or a failure, as
 * OpenSSL's default would prompt on the terminal. */
static int
tls_password(char *buf, int size, int rwflag, void *arg)
{
	struct tls_password *p = arg;
	size_t len;

	(void)rwflag;
	p->asked = 1;
	if (p->password == NULL || (len = strlen(p->password)) > (size_t)size)
		return -1;
	memcpy(buf, p->password, len);
	return (int)len;
}

/* Reads the client key from fp; NULL with the sentence in err. */
static EVP_PKEY *
tls_read_key(const struct tls_files *f, FILE *fp, char *err, size_t errlen)
{
	struct tls_password pw = { f->key_password, 0 };
	char why[256];
	EVP_PKEY *key;

	if ((key = PEM_read_PrivateKey(fp, NULL, tls_password, &pw)) != NULL)
		return key;
	if (pw.asked && f->key_password == NULL)
		snprintf(err, errlen, "kafka.security.key_file %s is encrypted "
		    "and no password is given: set kafka.rdkafka "
		    "ssl_key_password (librdkafka's ssl.key.password) to its "
		    "password, or decrypt the key (openssl pkey -in KEY -out "
		    "PLAIN)", f->key_file);
	else if (pw.asked)
		snprintf(err, errlen, "kafka.security.key_file %s: the password "
		    "in kafka.rdkafka ssl_key_password does not decrypt it (%s)",
		    f->key_file, tls_reason(why, sizeof(why)));
	else
		snprintf(err, errlen, "kafka.security.key_file %s holds no PEM "
		    "private key (%s)", f->key_file, tls_reason(why,
		    sizeof(why)));
	ERR_clear_error();
	return NULL;
}

/* The client certificate: parses, is valid now, matches its key. */
static int
tls_check_cert(const struct tls_files *f, time_t *cert_end, char *err,
    size_t errlen)
{
	char why[256], from[32], until[32];
	EVP_PKEY *key = NULL;
	X509 *cert = NULL;
	time_t start, end;
	FILE *fp;
	int r = -EINVAL;

	if ((fp = tls_open("kafka.security.cert_file", f->cert_file, err,
	    errlen)) == NULL)
		return -ENOENT;
	cert = PEM_read_X509(fp, NULL, NULL, NULL);
	fclose(fp);
	if (cert == NULL) {
		snprintf(err, errlen, "kafka.security.cert_file %s holds no PEM "
		    "certificate (%s)", f->cert_file, tls_reason(why, sizeof(why)));
		goto out;
	}
	tls_time(X509_get0_notBefore(cert), from, sizeof(from), &start);
	tls_time(X509_get0_notAfter(cert), until, sizeof(until), &end);
	if (X509_cmp_current_time(X509_get0_notBefore(cert)) > 0) {
		snprintf(err, errlen, "certificate %s is not valid yet: from %s "
		    "(is this host's clock right?)", f->cert_file, from);
		goto out;
	}
	if (X509_cmp_current_time(X509_get0_notAfter(cert)) < 0) {
		snprintf(err, errlen, "certificate %s expired at %s: renew it",
		    f->cert_file, until);
		goto out;
	}
	if (f->key_file == NULL) {
		snprintf(err, errlen, "kafka.security.cert_file is set but "
		    "key_file is not: name the certificate's private key");
		goto out;
	}
	if ((fp = tls_open("kafka.security.key_file", f->key_file, err,
	    errlen)) == NULL) {
		r = -ENOENT;
		goto out;
	}
	key = tls_read_key(f, fp, err, errlen);
	fclose(fp);
	if (key == NULL)
		goto out;
	if (X509_check_private_key(cert, key) != 1) {
		ERR_clear_error();
		snprintf(err, errlen, "key %s does not match certificate %s: "
		    "give the key the certificate was made for", f->key_file,
		    f->cert_file);
		goto out;
	}
	*cert_end = end;
	r = 0;
out:
	EVP_PKEY_free(key);
	X509_free(cert);
	return r;
}

int
tls_check(const struct tls_files *f, time_t *cert_end, char *err,
    size_t errlen)
{
	int r;

	*cert_end = 0;
	if (f->ca_file != NULL && (r = tls_check_pems("kafka.security.ca_file",
	    f->ca_file, 0, err, errlen)) < 0)
		return r;
	if (f->crl_file != NULL && (r = tls_check_pems("kafka.security.crl_file",
	    f->crl_file, 1, err, errlen)) < 0)
		return r;
	if (f->cert_file != NULL)
		return tls_check_cert(f, cert_end, err, errlen);
	if (f->key_file != NULL) {
		return err_set(err, errlen, -EINVAL,
		    "kafka.security.key_file is set but "
		    "cert_file is not: name the key's certificate");
	}
	return 0;
}
