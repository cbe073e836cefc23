/* The WebHDFS handle and its requests: the curl handle, SPNEGO or
 * user.name, the URLs, the answer, the redirects, the sentence for a
 * refusal; see webhdfs_int.h. */
#include "agent/target/webhdfs_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/target/webhdfs_answer.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/grow.h"

#define WH_PREFIX "/webhdfs/v1"

int
webhdfs_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -ENOMEM;
}

/* The most kedge reads of an answer of status: a 200's is the request's
 * (w->body_max), any other (a redirect's, a refusal's) is small. */
static size_t
wh_answer_max(const struct webhdfs *w, long status)
{
	return status == 200 ? w->body_max : WH_ANSWER_SMALL;
}

/* A 200's answer goes to w->sink when there is one; any other answer to
 * w->body.  Past its bound, curl fails the request (CURLE_WRITE_ERROR) and
 * w->over says why. */
static size_t
wh_on_body(char *p, size_t size, size_t n, void *arg)
{
	struct webhdfs *w = arg;
	size_t len = size * n;
	long status = 0;

	curl_easy_getinfo(w->curl, CURLINFO_RESPONSE_CODE, &status);
	if (w->sink >= 0 && status == 200) {
		if ((int64_t)len > w->sink_max - w->sink_len) {
			w->over = 2;
			return 0;
		}
		w->sink_len += (int64_t)len;
		return fs_write_all(w->sink, p, len) == 0 ? len : 0;
	}
	if (w->body_len + len > wh_answer_max(w, status)) {
		w->over = 1;
		return 0;
	}
	/* and the NUL after it */
	if (grow_array((void **)&w->body, &w->body_cap, w->body_len + len + 1,
	    1) < 0)
		return 0;
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

/* libcurl's progress callback: a request in flight is abandoned once
 * w->cancel is set (libcurl calls it about once a second at least). */
static int
wh_on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	const struct webhdfs *w = arg;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return atomic_load(w->cancel) != 0;
}

/* The HDFS path of rel ("" for base_dir itself, without a trailing '/'
 * that the sentences in err would show), malloc'd; NULL when out of
 * memory. */
char *
wh_path(const struct webhdfs *w, const char *rel)
{
	char *path;

	if (rel[0] == '\0' && w->base[0] != '\0')
		return strdup(w->base);
	return asprintf(&path, "%s/%s", w->base, rel) < 0 ? NULL : path;
}

/* Appends name=value to u's query, both percent-encoded by libcurl. */
static CURLUcode
wh_url_param(CURLU *u, const char *name, const char *value)
{
	CURLUcode rc;
	char *param;

	if (asprintf(&param, "%s=%s", name, value) < 0)
		return CURLUE_OUT_OF_MEMORY;
	rc = curl_url_set(u, CURLUPART_QUERY, param,
	    CURLU_APPENDQUERY | CURLU_URLENCODE);
	free(param);
	return rc;
}

/* The URL of op on the HDFS path in *url (curl_free() it), with user.name
 * for simple authentication and param ("name=value", the value as it is)
 * when it is not NULL. */
int
wh_url(const struct webhdfs *w, const char *path, const char *op,
    const char *param, char **url, char *err, size_t errlen)
{
	CURLU *u = curl_url_dup(w->base_url);
	CURLUcode rc = CURLUE_OUT_OF_MEMORY;
	char *full = NULL;

	*url = NULL;
	if (u == NULL || asprintf(&full, "%s%s", w->prefix, path) < 0) {
		full = NULL;
		goto out;
	}
	if ((rc = curl_url_set(u, CURLUPART_PATH, full, CURLU_URLENCODE)) !=
	    CURLUE_OK || (rc = wh_url_param(u, "op", op)) != CURLUE_OK ||
	    (w->user != NULL &&
	    (rc = wh_url_param(u, "user.name", w->user)) != CURLUE_OK))
		goto out;
	/* libcurl keeps param's first '=' and encodes the rest */
	if (param != NULL && (rc = curl_url_set(u, CURLUPART_QUERY, param,
	    CURLU_APPENDQUERY | CURLU_URLENCODE)) != CURLUE_OK)
		goto out;
	rc = curl_url_get(u, CURLUPART_URL, url, 0);
out:
	curl_url_cleanup(u);
	free(full);
	if (rc == CURLUE_OK)
		return 0;
	snprintf(err, errlen, "%s %s: cannot make its URL: %s", op, path,
	    curl_url_strerror(rc));
	return rc == CURLUE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;
}

int
webhdfs_url(const struct webhdfs *w, const char *rel, const char *op,
    const char *param, char **url, char *err, size_t errlen)
{
	char *path = wh_path(w, rel);
	int r;

	if (path == NULL) {
		*url = NULL;
		return err_set(err, errlen, -ENOMEM, "out of memory");
	}
	r = wh_url(w, path, op, param, url, err, errlen);
	free(path);
	return r;
}

/* One request.  Returns the HTTP status, or a negative errno with the
 * sentence in err when no answer came. */
long
wh_do(struct webhdfs *w, const char *method, const char *url,
    struct wh_src *src, const char *what, char *err, size_t errlen)
{
	CURL *c = w->curl;
	const char *loc = NULL;
	long status = 0;
	CURLcode rc;

	if (w->cancel != NULL && atomic_load(w->cancel))
		return err_set(err, errlen, -ECANCELED, "%s: not sent: kedge "
		    "is stopping", what);
	/* libcurl 7.88 leaks the list of cookie files on every reset (curl
	 * issue 10694, fixed in 8.0): empty it first.  That forgets the
	 * cookies too, unless a share holds them, as w->cookies does. */
	curl_easy_setopt(c, CURLOPT_COOKIEFILE, NULL);
	curl_easy_reset(c);
	w->body_len = 0;
	w->body[0] = '\0';
	w->sink_len = 0;
	w->over = 0;
	free(w->location);
	w->location = NULL;
	w->curl_err[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, w->curl_err);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* no request of an https client goes out in the clear */
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, w->tls ? "https" :
	    "http,https");
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
	if (w->cancel != NULL) {
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, wh_on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, w);
	}
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
	rc = curl_easy_perform(c);
	if (rc == CURLE_ABORTED_BY_CALLBACK)
		return err_set(err, errlen, -ECANCELED, "%s: abandoned: kedge "
		    "is stopping", what);
	if (rc != CURLE_OK && w->over) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (w->over == 2)
			return err_set(err, errlen, -EFBIG, "%s: the server sent "
			    "more than the %" PRId64 " bytes HDFS listed for it; "
			    "refusing the copy", what, w->sink_max);
		return err_set(err, errlen, -EFBIG, "%s: the answer (%ld) is "
		    "longer than %zu bytes, the most kedge reads of it", what,
		    status, wh_answer_max(w, status));
	}
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s: no answer from %s: %s", what, w->url,
		    w->curl_err[0] != '\0' ? w->curl_err : curl_easy_strerror(rc));
		return rc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT :
		    rc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED : -EIO;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK &&
	    loc != NULL && (w->location = strdup(loc)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", what);
		return -ENOMEM;
	}
	return status;
}

/* "host:port" of u (the scheme's port when u names none), malloc'd, for
 * a sentence; NULL when u has no host or out of memory. */
char *
wh_host_port(CURLU *u)
{
	char *host = NULL, *port = NULL, *hp = NULL;

	if (curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) ==
	    CURLUE_OK && asprintf(&hp, "%s:%s", host, port) < 0)
		hp = NULL;
	curl_free(host);
	curl_free(port);
	return hp;
}

/* The URL of the redirect in w->location, resolved against w->url, in *url
 * (curl_free() it).  A client of an https URL follows only https: a
 * redirect to http would send the data and the delegation token in the
 * clear.  The sentences name the scheme and host, never the query, which
 * may hold a token. */
int
wh_follow(struct webhdfs *w, const char *what, char **url, char *err,
    size_t errlen)
{
	CURLU *u = curl_url_dup(w->base_url);
	char *scheme = NULL, *host = NULL;
	int r = -EPROTO;

	*url = NULL;
	if (u == NULL)
		return err_set(err, errlen, -ENOMEM, "%s: out of memory", what);
	if (w->location == NULL ||
	    curl_url_set(u, CURLUPART_URL, w->location, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (host = wh_host_port(u)) == NULL) {
		snprintf(err, errlen, "%s: HDFS redirected to a Location that is "
		    "not a URL", what);
		goto out;
	}
	if (strcmp(scheme, "https") != 0 &&
	    (w->tls || strcmp(scheme, "http") != 0)) {
		snprintf(err, errlen, "%s: HDFS redirected from %s to %s://%s; "
		    "kedge follows %s only, so that neither the data nor a "
		    "delegation token travel in the clear", what, w->url, scheme,
		    host, w->tls ? "https" : "http and https");
		goto out;
	}
	r = curl_url_get(u, CURLUPART_URL, url, 0) == CURLUE_OK ? 0 : -ENOMEM;
	if (r < 0)
		snprintf(err, errlen, "%s: out of memory", what);
out:
	curl_free(scheme);
	free(host);
	curl_url_cleanup(u);
	return r;
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
	/* the NameNode's web server answers while its RPC server is away */
	if (strcmp(exception, "EOFException") == 0 ||
	    strcmp(exception, "ConnectException") == 0 ||
	    strcmp(exception, "RetriableException") == 0)
		return "; kedge retries: the NameNode is starting or stopping";
	if (strstr(message, "Failed to find datanode") != NULL)
		return "; kedge retries: the NameNode has no live DataNode to "
		    "send the upload to (just restarted, or all down or full)";
	return "";
}

/* The sentence for an answer that is not the one wanted: Hadoop's
 * RemoteException when there is one.  Returns a negative errno. */
int
wh_refused(struct webhdfs *w, long status, const char *what, char *err,
    size_t errlen)
{
	char exception[128], message[512];

	webhdfs_answer_exception(w->body, w->body_len, exception,
	    sizeof(exception), message, sizeof(message));
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

/* GETs op of rel's HDFS path, with param when not NULL; what names the
 * request for messages.  Returns the HTTP status, or a negative errno
 * with the sentence in err. */
long
wh_get(struct webhdfs *w, const char *rel, const char *op,
    const char *param, char *what, size_t whatlen, char *err, size_t errlen)
{
	char *path = wh_path(w, rel), *url = NULL;
	long st;

	if (path == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(what, whatlen, "%s %s", op, path);
	if ((st = wh_url(w, path, op, param, &url, err, errlen)) == 0)
		st = wh_do(w, "GET", url, NULL, what, err, errlen);
	curl_free(url);
	free(path);
	return st;
}

/* GETs op of rel's HDFS path for its JSON answer, in w->body.  Returns 1,
 * 0 when HDFS has no such path, or a negative errno with the sentence in
 * err. */
int
wh_get_json(struct webhdfs *w, const char *rel, const char *op, char *what,
    size_t whatlen, char *err, size_t errlen)
{
	long st;

	if ((st = wh_get(w, rel, op, NULL, what, whatlen, err, errlen)) < 0)
		return (int)st;
	if (st == 404)
		return 0;
	return st == 200 ? 1 : wh_refused(w, st, what, err, errlen);
}

char *
wh_body_take(struct webhdfs *w, size_t *len)
{
	char *body = w->body, *fresh = malloc(4096);

	if (fresh == NULL)
		return NULL;
	*len = w->body_len;
	fresh[0] = '\0';
	w->body = fresh;
	w->body_len = 0;
	w->body_cap = 4096;
	return body;
}

/* Cuts the '/'s s ends with. */
static void
wh_trim_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
}

/* Parses w->url into w->base_url, w->prefix and w->tls. */
static int
wh_parse_url(struct webhdfs *w, char *err, size_t errlen)
{
	char *scheme = NULL, *path = NULL;
	CURLUcode rc;
	int r = -EINVAL;

	if ((w->base_url = curl_url()) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	if ((rc = curl_url_set(w->base_url, CURLUPART_URL, w->url, 0)) !=
	    CURLUE_OK ||
	    (rc = curl_url_get(w->base_url, CURLUPART_SCHEME, &scheme, 0)) !=
	    CURLUE_OK ||
	    (rc = curl_url_get(w->base_url, CURLUPART_PATH, &path,
	    CURLU_URLDECODE)) != CURLUE_OK) {
		snprintf(err, errlen, "%s: not a URL: %s", w->url,
		    curl_url_strerror(rc));
		goto out;
	}
	if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
		snprintf(err, errlen, "%s: not an http:// or https:// URL", w->url);
		goto out;
	}
	w->tls = strcmp(scheme, "https") == 0;
	wh_trim_slashes(path);
	r = asprintf(&w->prefix, "%s" WH_PREFIX, path) < 0 ? -ENOMEM : 0;
	if (r < 0) {
		w->prefix = NULL;
		snprintf(err, errlen, "out of memory");
	}
out:
	curl_free(scheme);
	curl_free(path);
	return r;
}

const char *
webhdfs_clear_warning(const char *url)
{
	if (strncmp(url, "http://", 7) != 0)
		return NULL;
	return "is http://, not https://: the data, and the SPNEGO token or "
	    "the user.name and the delegation tokens that authenticate kedge, "
	    "travel in the clear, readable and replayable by anyone on the "
	    "network path; use the https:// address of the NameNode or HttpFS";
}

struct webhdfs *
webhdfs_open(const struct webhdfs_opts *o, char *err, size_t errlen)
{
	struct webhdfs *w;

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
	wh_trim_slashes(w->url);
	wh_trim_slashes(w->base);
	if (asprintf(&w->where, "%s%s", w->url, w->base) < 0) {
		w->where = NULL;
		snprintf(err, errlen, "out of memory");
		webhdfs_close(w);
		return NULL;
	}
	if (wh_parse_url(w, err, errlen) < 0) {
		webhdfs_close(w);
		return NULL;
	}
	w->connect_timeout = o->connect_timeout;
	w->timeout = o->timeout;
	w->body_cap = 4096;
	w->body_max = WH_ANSWER_SMALL;
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
	curl_url_cleanup(w->base_url);
	free(w->prefix);
	free(w->location);
	free(w->url);
	free(w->base);
	free(w->user);
	free(w->ca_file);
	free(w->where);
	free(w->body);
	free(w);
}

void
webhdfs_set_cancel(struct webhdfs *w, const atomic_int *cancel)
{
	w->cancel = cancel;
}

const char *
webhdfs_where(const struct webhdfs *w)
{
	return w->where;
}
