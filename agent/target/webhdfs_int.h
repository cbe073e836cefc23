/*
 * webhdfs_int: what webhdfs.c (the WebHDFS operations: GETFILESTATUS,
 * CREATE and its redirected PUT, RENAME, DELETE, OPEN, LISTSTATUS, the
 * mirror) shares with webhdfs_http.c (the handle and its requests: the
 * curl handle, SPNEGO or user.name, the URLs, the answer, the redirects,
 * the sentence for a refusal).  Private to webhdfs*.c: the rest of kedge
 * sees only webhdfs.h.
 */
#ifndef KEDGE_WEBHDFS_INT_H
#define KEDGE_WEBHDFS_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "agent/target/webhdfs.h"

/* What kedge reads of an answer, by kind, before it refuses the rest: a
 * FileStatus, a boolean, a redirect or a refusal is small; a listing may
 * be a whole directory (HttpFS answers LISTSTATUS_BATCH with all of it);
 * a file read is bounded by its caller, a file fetched by its listed
 * length. */
#define WH_ANSWER_SMALL (64 * 1024)
#define WH_ANSWER_LIST (64 * 1024 * 1024)

struct webhdfs {
	CURL *curl;
	CURLSH *cookies;           /* Hadoop's hadoop.auth cookie */
	char *url;                 /* no trailing '/' */
	CURLU *base_url;           /* url parsed: what each request's starts as */
	char *prefix;              /* url's own path, then WH_PREFIX */
	int tls;                   /* url is https: so must every redirect be */
	char *base;                /* "/dir" or "" for the root */
	char *user;                /* NULL: SPNEGO */
	char *ca_file;
	char *where;               /* url and base, for messages */
	long connect_timeout;
	long timeout;
	struct curl_slist *octets; /* Content-Type of the bytes */
	char *body;                /* the answer, NUL-terminated */
	size_t body_len, body_cap;
	size_t body_max;           /* of this request's 200 answer; any
	                            * other's is WH_ANSWER_SMALL */
	int sink;                  /* >= 0: a 200's answer goes to this fd */
	int64_t sink_max;          /* the bytes it may take */
	int64_t sink_len;          /* taken */
	int over;                  /* the bound the answer passed: 0 none, 1
	                            * body_max, 2 sink_max */
	int no_batch;              /* the server has no LISTSTATUS_BATCH */
	char *location;            /* of the last answer, or NULL */
	const atomic_int *cancel;  /* set: requests fail; NULL: none */
	char curl_err[CURL_ERROR_SIZE];
};

/* What a request uploads: a file, or bytes in memory. */
struct wh_src {
	int fd;                    /* -1: mem */
	const char *mem;
	size_t len;
	size_t off;                /* of mem */
};

/* The HDFS path of rel, malloc'd; NULL when out of memory. */
char *wh_path(const struct webhdfs *w, const char *rel);

/* The URL of op on the HDFS path in *url (curl_free() it); 0 or a
 * negative errno with the sentence in err. */
int wh_url(const struct webhdfs *w, const char *path, const char *op,
    const char *param, char **url, char *err, size_t errlen);

/* One request: the HTTP status, or a negative errno with the sentence in
 * err when no answer came, or -EFBIG when it was longer than its bound
 * (w->body_max for a 200, w->sink_max for a 200 going to w->sink,
 * WH_ANSWER_SMALL for any other). */
long wh_do(struct webhdfs *w, const char *method, const char *url,
    struct wh_src *src, const char *what, char *err, size_t errlen);

/* "host:port" of u, malloc'd; NULL when it has no host or out of memory. */
char *wh_host_port(CURLU *u);

/* The URL of the redirect in w->location in *url (curl_free() it); 0 or a
 * negative errno with the sentence in err (https follows https only). */
int wh_follow(struct webhdfs *w, const char *what, char **url, char *err,
    size_t errlen);

/* The sentence for an answer that is not the one wanted; returns a
 * negative errno. */
int wh_refused(struct webhdfs *w, long status, const char *what, char *err,
    size_t errlen);

/* GETs op of rel's HDFS path, with param ("name=value") when not NULL:
 * the HTTP status, or a negative errno with the sentence in err. */
long wh_get(struct webhdfs *w, const char *rel, const char *op,
    const char *param, char *what, size_t whatlen, char *err, size_t errlen);

/* Hands the answer in w->body over (the caller frees it; *len its
 * length), w taking a new buffer for the next: for an answer read while
 * other requests are made.  NULL when out of memory. */
char *wh_body_take(struct webhdfs *w, size_t *len);

/* GETs op of rel's HDFS path for its JSON answer, in w->body: 1, 0 when no
 * such path, or a negative errno with the sentence in err. */
int wh_get_json(struct webhdfs *w, const char *rel, const char *op,
    char *what, size_t whatlen, char *err, size_t errlen);

#endif /* KEDGE_WEBHDFS_INT_H */
