#include "webhdfs.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash.h"
#include "fsutil.h"

#define WH_ANSWER_MAX (64 * 1024 * 1024) /* a listing or a file read */
#define WH_PREFIX "/webhdfs/v1"

struct webhdfs {
	CURL *curl;
	CURLSH *cookies;           /* Hadoop's hadoop.auth cookie */
	char *url;                 /* no trailing '/' */
	char *base;                /* "/dir" or "" for the root */
	char *user;                /* NULL: SPNEGO */
	char *ca_file;
	char *where;               /* url and base, for messages */
	long connect_timeout;
	long timeout;
	struct curl_slist *octets; /* Content-Type of the bytes */
	char *body;                /* the answer, NUL-terminated */
	size_t body_len, body_cap;
	size_t body_max;           /* of this request's answer */
	int sink;                  /* >= 0: the answer goes to this fd */
	char location[4096];
	char curl_err[CURL_ERROR_SIZE];
};

/* What a request uploads: a file, or bytes in memory. */
struct wh_src {
	int fd;                    /* -1: mem */
	const char *mem;
	size_t len;
	size_t off;                /* of mem */
};

int
webhdfs_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -ENOMEM;
}

static size_t
wh_on_body(char *p, size_t size, size_t n, void *arg)
{
	struct webhdfs *w = arg;
	size_t len = size * n, cap = w->body_cap;
	char *body;

	if (w->sink >= 0)
		return fs_write_all(w->sink, p, len) == 0 ? len : 0;
	if (w->body_len + len > w->body_max)
		return 0; /* curl fails the request: CURLE_WRITE_ERROR */
	while (w->body_len + len + 1 > cap)
		cap = cap ? cap * 2 : 4096;
	if (cap != w->body_cap) {
		if ((body = realloc(w->body, cap)) == NULL)
			return 0;
		w->body = body;
		w->body_cap = cap;
	}
	memcpy(w->body + w->body_len, p, len);
	w->body_len += len;
	w->body[w->body_len] = '\0';
	return len;
}

static size_t
wh_on_read(char *p, size_t size, size_t n, void *arg)
{
	struct wh_src *s = arg;
	size_t want = size * n;
	ssize_t got;

	if (s->fd < 0) {
		got = (ssize_t)(s->len - s->off < want ? s->len - s->off : want);
		memcpy(p, s->mem + s->off, (size_t)got);
		s->off += (size_t)got;
		return (size_t)got;
	}
	got = read(s->fd, p, want);
	return got < 0 ? CURL_READFUNC_ABORT : (size_t)got;
}

/* curl rewinds an upload that SPNEGO's 401 made it send again. */
static int
wh_on_seek(void *arg, curl_off_t off, int origin)
{
	struct wh_src *s = arg;

	if (origin != SEEK_SET)
		return CURL_SEEKFUNC_CANTSEEK;
	if (s->fd < 0) {
		s->off = (size_t)off;
		return CURL_SEEKFUNC_OK;
	}
	return lseek(s->fd, (off_t)off, SEEK_SET) < 0 ? CURL_SEEKFUNC_FAIL :
	    CURL_SEEKFUNC_OK;
}

/* Appends s to the buffer at *len, percent-encoding all but unreserved
 * characters and those in keep. */
static void
wh_encode(char *buf, size_t size, size_t *len, const char *s,
    const char *keep)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s != '\0' && *len + 4 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c) != NULL ||
		    (c != '\0' && strchr(keep, c) != NULL)) {
			buf[(*len)++] = (char)c;
		} else {
			buf[(*len)++] = '%';
			buf[(*len)++] = hex[c >> 4];
			buf[(*len)++] = hex[c & 15];
		}
	}
	buf[*len] = '\0';
}

/* The HDFS path of rel ("" for base_dir itself, without a trailing '/'
 * that the sentences in err would show). */
static void
wh_path(const struct webhdfs *w, const char *rel, char *buf, size_t size)
{
	if (rel[0] == '\0' && w->base[0] != '\0')
		snprintf(buf, size, "%s", w->base);
	else
		snprintf(buf, size, "%s/%s", w->base, rel);
}

/* The URL of op on the HDFS path, with more query parameters (already
 * encoded, each starting with '&') when more is not NULL. */
static int
wh_url(const struct webhdfs *w, const char *path, const char *op,
    const char *more, char *buf, size_t size, char *err, size_t errlen)
{
	size_t len = (size_t)snprintf(buf, size, "%s" WH_PREFIX, w->url);

	wh_encode(buf, size, &len, path, "/=:@");
	len += (size_t)snprintf(buf + len, size - len, "?op=%s", op);
	if (w->user != NULL) {
		len += (size_t)snprintf(buf + len, size - len, "&user.name=");
		wh_encode(buf, size, &len, w->user, "");
	}
	if (more != NULL)
		len += (size_t)snprintf(buf + len, size - len, "%s", more);
	if (len + 1 < size)
		return 0;
	snprintf(err, errlen, "%s %s: the URL is too long", op, path);
	return -ENAMETOOLONG;
}

/* The value of the JSON string member name in the answer, unescaped
 * roughly (enough for an error message). */
static void
wh_json_string(const char *body, const char *name, char *out, size_t size)
{
	char key[64];
	const char *p;
	size_t n = 0;

	out[0] = '\0';
	snprintf(key, sizeof(key), "\"%s\"", name);
	if ((p = strstr(body, key)) == NULL || (p = strchr(p + strlen(key),
	    '"')) == NULL)
		return;
	for (p++; *p != '\0' && *p != '"' && n + 1 < size; p++) {
		if (*p == '\\' && p[1] != '\0') {
			p++;
			/* Hadoop's messages may end in a Java stack trace */
			if (*p == 'n' && strncmp(p + 1, "\\tat ", 5) == 0)
				break;
			if (*p == 'n' || *p == 't' || *p == 'r') {
				out[n++] = ' ';
				continue;
			}
		}
		out[n++] = *p;
	}
	out[n] = '\0';
}

/* The JSON literal after member name: true, false or a number. */
static const char *
wh_json_value(const char *body, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\"", name);
	if ((p = strstr(body, key)) == NULL)
		return NULL;
	p += strlen(key);
	while (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

/* One request.  Returns the HTTP status, or a negative errno with the
 * sentence in err when no answer came. */
static long
wh_do(struct webhdfs *w, const char *method, const char *url,
    struct wh_src *src, const char *what, char *err, size_t errlen)
{
	CURL *c = w->curl;
	const char *loc = NULL;
	long status = 0;
	CURLcode rc;

	/* libcurl 7.88 leaks the list of cookie files on every reset (curl
	 * issue 10694, fixed in 8.0): empty it first.  That forgets the
	 * cookies too, unless a share holds them, as w->cookies does. */
	curl_easy_setopt(c, CURLOPT_COOKIEFILE, NULL);
	curl_easy_reset(c);
	w->body_len = 0;
	w->body[0] = '\0';
	w->location[0] = '\0';
	w->curl_err[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, w->curl_err);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, w->connect_timeout);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, w->timeout);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, wh_on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, w);
	/* the cookie Hadoop sets after SPNEGO saves a handshake a request;
	 * the share keeps it from one request to the next */
	curl_easy_setopt(c, CURLOPT_SHARE, w->cookies);
	curl_easy_setopt(c, CURLOPT_COOKIEFILE, "");
	if (w->ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, w->ca_file);
	if (w->user == NULL) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_NEGOTIATE);
		curl_easy_setopt(c, CURLOPT_USERPWD, ":");
	}
	if (src != NULL) {
		struct stat st;
		curl_off_t size = (curl_off_t)src->len;

		if (src->fd >= 0) {
			if (fstat(src->fd, &st) < 0 ||
			    lseek(src->fd, 0, SEEK_SET) < 0) {
				snprintf(err, errlen, "%s: %s", what, strerror(errno));
				return -errno;
			}
			size = (curl_off_t)st.st_size;
		}
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, wh_on_read);
		curl_easy_setopt(c, CURLOPT_READDATA, src);
		curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, wh_on_seek);
		curl_easy_setopt(c, CURLOPT_SEEKDATA, src);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, size);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, w->octets);
		if (strcmp(method, "PUT") != 0)
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	} else if (strcmp(method, "GET") != 0) {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	}
	if ((rc = curl_easy_perform(c)) != CURLE_OK) {
		snprintf(err, errlen, "%s: no answer from %s: %s", what, w->url,
		    w->curl_err[0] != '\0' ? w->curl_err : curl_easy_strerror(rc));
		return rc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT :
		    rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : -EIO;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK &&
	    loc != NULL)
		snprintf(w->location, sizeof(w->location), "%s", loc);
	return status;
}

/* What to do about the exception HDFS named, for the sentence after it. */
static const char *
wh_advice(const char *exception, const char *message)
{
	if (strcmp(exception, "SafeModeException") == 0)
		return "; kedge retries until the NameNode leaves safe mode "
		    "(by itself after a start, or `hdfs dfsadmin -safemode "
		    "leave`)";
	if (strstr(exception, "QuotaExceededException") != NULL)
		return "; kedge retries: raise the quota (`hdfs dfsadmin "
		    "-setSpaceQuota`) or free space under output.webhdfs.base_dir";
	if (strcmp(exception, "AccessControlException") == 0)
		return "; kedge retries: give its user write access to "
		    "output.webhdfs.base_dir (`hdfs dfs -chown` or `-chmod`)";
	if (strstr(message, "Failed to find datanode") != NULL)
		return "; kedge retries: the NameNode has no live DataNode to "
		    "send the upload to (just restarted, or all down or full)";
	return "";
}

/* The sentence for an answer that is not the one wanted: Hadoop's
 * RemoteException when there is one.  Returns a negative errno. */
static int
wh_refused(struct webhdfs *w, long status, const char *what, char *err,
    size_t errlen)
{
	char exception[128], message[512];

	wh_json_string(w->body, "exception", exception, sizeof(exception));
	wh_json_string(w->body, "message", message, sizeof(message));
	if (status == 401)
		snprintf(err, errlen, "%s: HDFS refused kedge's authentication "
		    "(401)%s%s: %s", what, message[0] ? ": " : "", message,
		    w->user == NULL ? "check kedge's Kerberos login and that "
		    "the KDC knows HTTP/<the host in output.webhdfs.url>" :
		    "the cluster wants Kerberos: set output.webhdfs.auth = "
		    "\"kerberos\"");
	else if (exception[0] != '\0')
		snprintf(err, errlen, "%s: HDFS answered %ld %s: %s%s", what,
		    status, exception, message, wh_advice(exception, message));
	else
		snprintf(err, errlen, "%s: HDFS answered %ld", what, status);
	switch (status) {
	case 401:
	case 403:
		return -EACCES;
	case 404:
		return -ENOENT;
	default:
		return status >= 500 ? -EAGAIN : -EPROTO;
	}
}

/* GETs op of rel's HDFS path; what names the request for messages.
 * Returns the HTTP status, or a negative errno with the sentence in err. */
static long
wh_get(struct webhdfs *w, const char *rel, const char *op, char *what,
    size_t whatlen, char *err, size_t errlen)
{
	char path[4096], url[8192];

	wh_path(w, rel, path, sizeof(path));
	snprintf(what, whatlen, "%s %s", op, path);
	if (wh_url(w, path, op, NULL, url, sizeof(url), err, errlen) < 0)
		return -ENAMETOOLONG;
	return wh_do(w, "GET", url, NULL, what, err, errlen);
}

/* GETs op of rel's HDFS path for its JSON answer, in w->body.  Returns 1,
 * 0 when HDFS has no such path, or a negative errno with the sentence in
 * err. */
static int
wh_get_json(struct webhdfs *w, const char *rel, const char *op, char *what,
    size_t whatlen, char *err, size_t errlen)
{
	long st;

	if ((st = wh_get(w, rel, op, what, whatlen, err, errlen)) < 0)
		return (int)st;
	if (st == 404)
		return 0;
	return st == 200 ? 1 : wh_refused(w, st, what, err, errlen);
}

int
webhdfs_stat(struct webhdfs *w, const char *rel, int64_t *len, char *err,
    size_t errlen)
{
	char what[4200];
	const char *v;
	int r;

	if ((r = wh_get_json(w, rel, "GETFILESTATUS", what, sizeof(what), err,
	    errlen)) <= 0)
		return r;
	if ((v = wh_json_value(w->body, "length")) == NULL) {
		snprintf(err, errlen, "%s: no length in the answer", what);
		return -EPROTO;
	}
	*len = strtoll(v, NULL, 10);
	return strstr(w->body, "\"DIRECTORY\"") == NULL ? 1 : -EISDIR;
}

/* Writes src to the HDFS path in CREATE's two steps. */
static int
wh_create(struct webhdfs *w, const char *path, struct wh_src *src,
    char *err, size_t errlen)
{
	struct wh_src none = { -1, "", 0, 0 };
	char url[8192], what[4200];
	long st;

	snprintf(what, sizeof(what), "CREATE %s", path);
	if (wh_url(w, path, "CREATE", "&overwrite=true", url, sizeof(url), err,
	    errlen) < 0)
		return -ENAMETOOLONG;
	if ((st = wh_do(w, "PUT", url, &none, what, err, errlen)) < 0)
		return (int)st;
	if (st != 307 || w->location[0] == '\0')
		return wh_refused(w, st, what, err, errlen);
	snprintf(url, sizeof(url), "%s", w->location);
	if ((st = wh_do(w, "PUT", url, src, what, err, errlen)) < 0) {
		const char *host = strstr(url, "://");
		int hostlen = 0;

		/* HttpFS sends the bytes to itself: wh_do named it */
		if (strncmp(url, w->url, strlen(w->url)) == 0)
			return (int)st;
		host = host != NULL ? host + 3 : url;
		while (host[hostlen] != '\0' && host[hostlen] != '/')
			hostlen++;
		snprintf(err, errlen, "%s: no answer from the DataNode %.*s that "
		    "the NameNode sent kedge to: %s; kedge retries", what,
		    hostlen, host, w->curl_err[0] != '\0' ? w->curl_err :
		    "the connection failed");
		return (int)st;
	}
	return st == 201 || st == 200 ? 0 : wh_refused(w, st, what, err, errlen);
}

/* A PUT op whose answer is {"boolean": ...}: 1 for true, 0 for false. */
static int
wh_boolean_op(struct webhdfs *w, const char *method, const char *path,
    const char *op, const char *more, char *err, size_t errlen)
{
	char url[8192], what[4200];
	const char *v;
	long st;

	snprintf(what, sizeof(what), "%s %s", op, path);
	if (wh_url(w, path, op, more, url, sizeof(url), err,
	    errlen) < 0)
		return -ENAMETOOLONG;
	if ((st = wh_do(w, method, url, NULL, what, err, errlen)) < 0)
		return (int)st;
	if (st != 200)
		return wh_refused(w, st, what, err, errlen);
	if ((v = wh_json_value(w->body, "boolean")) == NULL) {
		snprintf(err, errlen, "%s: no boolean in the answer", what);
		return -EPROTO;
	}
	return strncmp(v, "true", 4) == 0;
}

/* Renames from to to; false (the source gone, or the destination there)
 * is an error. */
static int
wh_rename(struct webhdfs *w, const char *from, const char *to, char *err,
    size_t errlen)
{
	char more[4200];
	size_t len = (size_t)snprintf(more, sizeof(more), "&destination=");
	int r;

	wh_encode(more, sizeof(more), &len, to, "/");
	if ((r = wh_boolean_op(w, "PUT", from, "RENAME", more, err,
	    errlen)) != 0)
		return r < 0 ? r : 0;
	snprintf(err, errlen, "RENAME %s to %s: HDFS answered false", from, to);
	return -EIO;
}

/* The hidden temporary name beside rel's final path. */
static void
wh_temp(const struct webhdfs *w, const char *rel, char *buf, size_t size)
{
	const char *name = strrchr(rel, '/');
	int dirlen = name != NULL ? (int)(name - rel) + 1 : 0;

	snprintf(buf, size, "%s/%.*s.%s.tmp", w->base, dirlen, rel,
	    name != NULL ? name + 1 : rel);
}

/* Writes src under the temporary name and renames it to rel, deleting
 * what is at rel first when replace is set: RENAME does not replace, so a
 * reader may then briefly find no file, never half of one. */
static int
wh_place(struct webhdfs *w, struct wh_src *src, const char *rel,
    int replace, char *err, size_t errlen)
{
	char tmp[4096], path[4096];
	int r;

	wh_temp(w, rel, tmp, sizeof(tmp));
	wh_path(w, rel, path, sizeof(path));
	if ((r = wh_create(w, tmp, src, err, errlen)) < 0)
		return r;
	crash_point("webhdfs-before-rename");
	if (replace && (r = wh_boolean_op(w, "DELETE", path, "DELETE", NULL,
	    err, errlen)) < 0)
		return r;
	return wh_rename(w, tmp, path, err, errlen);
}

int
webhdfs_put(struct webhdfs *w, const char *src, const char *rel, char *err,
    size_t errlen)
{
	struct wh_src s = { -1, NULL, 0, 0 };
	struct stat st;
	int64_t len;
	int r;

	if ((s.fd = open(src, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(s.fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		r = -errno;
		goto out;
	}
	if ((r = webhdfs_stat(w, rel, &len, err, errlen)) < 0)
		goto out;
	if (r == 1 && len == (int64_t)st.st_size) {
		r = 0; /* an earlier try got there; its answer was lost */
		goto out;
	}
	if (r == 1) {
		snprintf(err, errlen, "%s%s exists in HDFS with %" PRId64 " bytes, "
		    "the spool's copy has %lld; keeping both, resolve by hand",
		    w->base, rel, len, (long long)st.st_size);
		r = -EEXIST;
		goto out;
	}
	r = wh_place(w, &s, rel, 0, err, errlen);
	/* a RENAME that was done but whose answer was lost */
	if (r < 0 && r != -EACCES && webhdfs_stat(w, rel, &len, err, errlen) == 1 &&
	    len == (int64_t)st.st_size)
		r = 0;
out:
	if (s.fd >= 0)
		close(s.fd);
	return r;
}

int
webhdfs_write(struct webhdfs *w, const char *rel, const void *data,
    size_t len, char *err, size_t errlen)
{
	struct wh_src s = { -1, data, len, 0 };

	return wh_place(w, &s, rel, 1, err, errlen);
}

int
webhdfs_read(struct webhdfs *w, const char *rel, size_t max, char **data,
    size_t *len, char *err, size_t errlen)
{
	char url[8192], what[4200];
	long st;

	*data = NULL;
	*len = 0;
	if ((st = wh_get(w, rel, "OPEN", what, sizeof(what), err, errlen)) ==
	    307 && w->location[0] != '\0') {
		/* WebHDFS sends the reader to a datanode; HttpFS answers itself */
		snprintf(url, sizeof(url), "%s", w->location);
		w->body_max = max;
		st = wh_do(w, "GET", url, NULL, what, err, errlen);
		w->body_max = WH_ANSWER_MAX;
	}
	if (st < 0)
		return (int)st;
	if (st == 404)
		return 0;
	if (st != 200)
		return wh_refused(w, st, what, err, errlen);
	if (w->body_len > max) {
		snprintf(err, errlen, "%s: longer than %zu bytes", what, max);
		return -EFBIG;
	}
	if ((*data = malloc(w->body_len + 1)) == NULL)
		return -ENOMEM;
	memcpy(*data, w->body, w->body_len + 1);
	*len = w->body_len;
	return 1;
}

int
webhdfs_fetch(struct webhdfs *w, const char *rel, int fd, char *err,
    size_t errlen)
{
	char url[8192], what[4200];
	long st;

	/* HttpFS answers with the bytes, WebHDFS sends the reader to a
	 * datanode: either way only a 200's body is the file */
	w->sink = fd;
	st = wh_get(w, rel, "OPEN", what, sizeof(what), err, errlen);
	if (st == 307 && w->location[0] != '\0') {
		snprintf(url, sizeof(url), "%s", w->location);
		if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
			st = -errno;
		else
			st = wh_do(w, "GET", url, NULL, what, err, errlen);
	}
	w->sink = -1;
	if (st < 0)
		return (int)st;
	return st == 200 ? 0 : wh_refused(w, st, what, err, errlen);
}

/* The end of the JSON object that starts at p ('{'), strings skipped;
 * NULL when it does not end. */
static const char *
wh_json_object_end(const char *p)
{
	int depth = 0, quoted = 0;

	for (; *p != '\0'; p++) {
		if (quoted) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"')
				quoted = 0;
		} else if (*p == '"') {
			quoted = 1;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}' && --depth == 0) {
			return p;
		}
	}
	return NULL;
}

int
webhdfs_list(struct webhdfs *w, const char *rel,
    int (*fn)(const char *name, int is_dir, int64_t len, void *arg),
    void *arg, char *err, size_t errlen)
{
	char what[4200], name[1024], type[32], *body;
	const char *p, *end, *v;
	int r;

	if ((r = wh_get_json(w, rel, "LISTSTATUS", what, sizeof(what), err,
	    errlen)) <= 0)
		return r;
	/* fn may make requests of its own, which reuse w->body */
	if ((body = strdup(w->body)) == NULL)
		return -ENOMEM;
	if ((p = strstr(body, "\"FileStatus\"")) == NULL ||
	    (p = strchr(p, '[')) == NULL) {
		snprintf(err, errlen, "%s: no FileStatus list in the answer", what);
		free(body);
		return -EPROTO;
	}
	/* each entry a flat object: pathSuffix, type, length, ... */
	r = 0;
	while (r == 0 && (p = strchr(p, '{')) != NULL &&
	    (end = wh_json_object_end(p)) != NULL) {
		char *obj = strndup(p, (size_t)(end - p + 1));

		if (obj == NULL) {
			free(body);
			return -ENOMEM;
		}
		wh_json_string(obj, "pathSuffix", name, sizeof(name));
		wh_json_string(obj, "type", type, sizeof(type));
		v = wh_json_value(obj, "length");
		if (name[0] != '\0')
			r = fn(name, strcmp(type, "DIRECTORY") == 0,
			    v != NULL ? strtoll(v, NULL, 10) : 0, arg);
		free(obj);
		p = end + 1;
	}
	free(body);
	return r;
}

int
webhdfs_remove(struct webhdfs *w, const char *rel, char *err, size_t errlen)
{
	char path[4096];
	int r;

	wh_path(w, rel, path, sizeof(path));
	r = wh_boolean_op(w, "DELETE", path, "DELETE", NULL, err, errlen);
	return r < 0 ? r : 0;
}

struct wh_mirror {
	struct webhdfs *w;
	const char *rel;
	const char *dir;
	char *err;
	size_t errlen;
};

static int wh_mirror_dir(struct webhdfs *w, const char *rel, const char *dir,
    char *err, size_t errlen);

static int
wh_mirror_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	struct wh_mirror *m = arg;
	char rel[4096], path[4096];
	int fd, r;

	(void)len;
	snprintf(rel, sizeof(rel), "%s%s%s", m->rel, m->rel[0] ? "/" : "",
	    name);
	snprintf(path, sizeof(path), "%s/%s", m->dir, name);
	if (is_dir) {
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			snprintf(m->err, m->errlen, "%s: %s", path, strerror(errno));
			return -errno;
		}
		return wh_mirror_dir(m->w, rel, path, m->err, m->errlen);
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) < 0) {
		snprintf(m->err, m->errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	r = webhdfs_fetch(m->w, rel, fd, m->err, m->errlen);
	close(fd);
	return r;
}

static int
wh_mirror_dir(struct webhdfs *w, const char *rel, const char *dir, char *err,
    size_t errlen)
{
	struct wh_mirror m = { w, rel, dir, err, errlen };

	return webhdfs_list(w, rel, wh_mirror_entry, &m, err, errlen);
}

int
webhdfs_mirror(struct webhdfs *w, const char *dir, char *err, size_t errlen)
{
	return wh_mirror_dir(w, "", dir, err, errlen);
}

struct webhdfs *
webhdfs_open(const struct webhdfs_opts *o, char *err, size_t errlen)
{
	struct webhdfs *w;
	size_t n;

	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->curl = curl_easy_init()) == NULL ||
	    (w->cookies = curl_share_init()) == NULL ||
	    curl_share_setopt(w->cookies, CURLSHOPT_SHARE,
	    CURL_LOCK_DATA_COOKIE) != CURLSHE_OK ||
	    (w->url = strdup(o->url)) == NULL ||
	    (w->base = strdup(o->base_dir)) == NULL ||
	    (o->user != NULL && (w->user = strdup(o->user)) == NULL) ||
	    (o->ca_file != NULL && (w->ca_file = strdup(o->ca_file)) == NULL) ||
	    (w->body = malloc(4096)) == NULL ||
	    (w->octets = curl_slist_append(NULL,
	    "Content-Type: application/octet-stream")) == NULL) {
		snprintf(err, errlen, "out of memory");
		webhdfs_close(w);
		return NULL;
	}
	while ((n = strlen(w->url)) > 0 && w->url[n - 1] == '/')
		w->url[n - 1] = '\0';
	while ((n = strlen(w->base)) > 0 && w->base[n - 1] == '/')
		w->base[n - 1] = '\0';
	if (asprintf(&w->where, "%s%s", w->url, w->base) < 0) {
		w->where = NULL;
		snprintf(err, errlen, "out of memory");
		webhdfs_close(w);
		return NULL;
	}
	w->connect_timeout = o->connect_timeout;
	w->timeout = o->timeout;
	w->body_cap = 4096;
	w->body_max = WH_ANSWER_MAX;
	w->sink = -1;
	return w;
}

void
webhdfs_close(struct webhdfs *w)
{
	if (w == NULL)
		return;
	if (w->curl != NULL)
		curl_easy_cleanup(w->curl);
	if (w->cookies != NULL)
		curl_share_cleanup(w->cookies); /* after the handle using it */
	curl_slist_free_all(w->octets);
	free(w->url);
	free(w->base);
	free(w->user);
	free(w->ca_file);
	free(w->where);
	free(w->body);
	free(w);
}

const char *
webhdfs_where(const struct webhdfs *w)
{
	return w->where;
}
