#include "agent/complete/oncomplete.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/escape.h"
#include "lib/fsutil.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "lib/thread.h"

extern char **environ;

#define ONCOMPLETE_DIR "on_complete"
#define ONCOMPLETE_BACKOFF_MAX 300 /* seconds between tries, at most */
#define ONCOMPLETE_POLL_MS 100     /* how soon a stop or an exit is seen */
#define ONCOMPLETE_LINE_MAX 512    /* of the last stderr line kept */

/* A revision of an hour: done, or waiting for its command. */
struct oncomplete_rev {
	size_t table;             /* in c->tables */
	char dt[9], hr[3];
	uint64_t revision, rows;
	char *path;               /* pending ones only */
	int tries;                /* in this run */
	time_t next_at;           /* CLOCK_MONOTONIC seconds */
};

struct oncomplete {
	const struct conf *c;
	char *dir;                /* <spool_dir>/on_complete */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop, settle;
	struct oncomplete_rev *done;     /* one per hour: its highest */
	size_t ndone, done_cap;
	struct oncomplete_rev *pending;  /* in the order noted */
	size_t npending, pending_cap;
	struct oncomplete_stats *stats;  /* per table */
};

/* How one run of the command ended. */
enum oncomplete_result { ONCOMPLETE_OK, ONCOMPLETE_FAILED,
    ONCOMPLETE_TIMEOUT, ONCOMPLETE_STOPPED };

static time_t
oncomplete_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static int
oncomplete_same_hour(const struct oncomplete_rev *a, size_t table,
    const char *dt, const char *hr)
{
	return a->table == table && strcmp(a->dt, dt) == 0 &&
	    strcmp(a->hr, hr) == 0;
}

/* The done entry of the hour, or NULL. */
static struct oncomplete_rev *
oncomplete_done_of(struct oncomplete *oc, size_t table, const char *dt,
    const char *hr)
{
	for (size_t i = 0; i < oc->ndone; i++)
		if (oncomplete_same_hour(&oc->done[i], table, dt, hr))
			return &oc->done[i];
	return NULL;
}

/* Records revision r of its hour as done.  Returns 0 or -ENOMEM. */
static int
oncomplete_mark_done(struct oncomplete *oc, const struct oncomplete_rev *r)
{
	struct oncomplete_rev *d = oncomplete_done_of(oc, r->table, r->dt,
	    r->hr);

	if (d == NULL) {
		if (grow_array((void **)&oc->done, &oc->done_cap,
		    oc->ndone + 1, sizeof(*oc->done)) < 0)
			return -ENOMEM;
		d = &oc->done[oc->ndone++];
		*d = *r;
		d->path = NULL;
	} else if (r->revision > d->revision) {
		d->revision = r->revision;
		d->rows = r->rows;
	}
	return 0;
}

/* Appends a pending revision (path copied).  Returns 0 or -ENOMEM. */
static int
oncomplete_add_pending(struct oncomplete *oc, const struct oncomplete_rev *r)
{
	struct oncomplete_rev *p;

	if (grow_array((void **)&oc->pending, &oc->pending_cap,
	    oc->npending + 1, sizeof(*oc->pending)) < 0)
		return -ENOMEM;
	p = &oc->pending[oc->npending];
	*p = *r;
	if ((p->path = strdup(r->path)) == NULL)
		return -ENOMEM;
	oc->npending++;
	oc->stats[r->table].pending++;
	return 0;
}

static void
oncomplete_drop_pending(struct oncomplete *oc, size_t k)
{
	oc->stats[oc->pending[k].table].pending--;
	free(oc->pending[k].path);
	memmove(&oc->pending[k], &oc->pending[k + 1],
	    (oc->npending - k - 1) * sizeof(*oc->pending));
	oc->npending--;
}

/* --- the record --- */

/* Replaces table i's record with what oc holds.  Returns 0 or -errno. */
static int
oncomplete_save(struct oncomplete *oc, size_t i)
{
	struct buf b = { 0 };
	char *path = NULL;
	int r = 0;

	for (size_t k = 0; k < oc->ndone && r == 0; k++) {
		const struct oncomplete_rev *d = &oc->done[k];

		if (d->table == i)
			r = buf_printf(&b, "done %s %s %" PRIu64 " %" PRIu64
			    "\n", d->dt, d->hr, d->revision, d->rows);
	}
	for (size_t k = 0; k < oc->npending && r == 0; k++) {
		const struct oncomplete_rev *p = &oc->pending[k];

		if (p->table == i)
			r = buf_printf(&b, "pending %s %s %" PRIu64 " %" PRIu64
			    " %s\n", p->dt, p->hr, p->revision, p->rows,
			    p->path);
	}
	if (r == 0 && asprintf(&path, "%s/%s", oc->dir,
	    oc->c->tables[i].name) < 0)
		r = -ENOMEM;
	if (r == 0)
		r = fs_write_atomic(path, b.data != NULL ? b.data : "", b.len);
	if (r < 0)
		log_warnx("on_complete: cannot write %s/%s: %s; a restart may "
		    "run the command again for revisions it ran", oc->dir,
		    oc->c->tables[i].name, strerror(-r));
	free(path);
	buf_clear(&b);
	return r;
}

static int
oncomplete_digits(const char *s, size_t n)
{
	if (strlen(s) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Parses one line of table i's record into oc.  Returns 0, -EINVAL or
 * -ENOMEM. */
static int
oncomplete_load_line(struct oncomplete *oc, size_t i, char *line)
{
	struct oncomplete_rev r = { .table = i };
	char kind[8], dt[16], hr[16];
	int at = 0;

	if (sscanf(line, "%7s %15s %15s %" SCNu64 " %" SCNu64 " %n", kind, dt,
	    hr, &r.revision, &r.rows, &at) != 5 || !oncomplete_digits(dt, 8) ||
	    !oncomplete_digits(hr, 2) || r.revision == 0)
		return -EINVAL;
	memcpy(r.dt, dt, sizeof(r.dt)); /* lengths checked above */
	memcpy(r.hr, hr, sizeof(r.hr));
	if (strcmp(kind, "done") == 0)
		return oncomplete_mark_done(oc, &r);
	if (strcmp(kind, "pending") != 0 || line[at] == '\0')
		return -EINVAL;
	r.path = line + at;
	return oncomplete_add_pending(oc, &r);
}

/* Reads table i's record, if any.  Returns 0 or -ENOMEM; a record that
 * cannot be read, and a line that is not a record, are logged and left
 * out. */
static int
oncomplete_load_table(struct oncomplete *oc, size_t i)
{
	struct buf b = { 0 };
	char *path = NULL, *line, *next;
	int r;

	if (asprintf(&path, "%s/%s", oc->dir, oc->c->tables[i].name) < 0)
		return -ENOMEM;
	if ((r = fs_read_all(path, &b)) == 0)
		r = buf_append(&b, "", 1);
	if (r == -ENOENT || (r < 0 && r != -ENOMEM)) {
		if (r != -ENOENT)
			log_warnx("on_complete: cannot read %s: %s; left out: "
			    "the hours it recorded may be announced again",
			    path, strerror(-r));
		r = 0;
		goto out;
	}
	for (line = b.data; r == 0 && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if ((r = oncomplete_load_line(oc, i, line)) == -EINVAL) {
			char shown[ESCAPE_BUF];

			log_warnx("on_complete: %s: a line is not a record, "
			    "left out: \"%s\"", path, escape_str(line, shown,
			    sizeof(shown)));
			r = 0;
		}
	}
out:
	buf_clear(&b);
	free(path);
	return r;
}

/* --- one run of the command --- */

/* The placeholders of the command's arguments, in braces, and the
 * variables of its environment that carry the same values. */
static const struct oncomplete_var {
	const char *name;
	const char *env;
} oncomplete_vars[] = {
	{ "table", "KEDGE_TABLE" },
	{ "dt", "KEDGE_DT" },
	{ "hr", "KEDGE_HR" },
	{ "revision", "KEDGE_REVISION" },
	{ "path", "KEDGE_PATH" },
	{ "rows", "KEDGE_ROWS" },
};
#define ONCOMPLETE_NVARS (sizeof(oncomplete_vars) / sizeof(oncomplete_vars[0]))

/* The index in oncomplete_vars of the placeholder name[0..len), or
 * ONCOMPLETE_NVARS. */
static size_t
oncomplete_var(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ONCOMPLETE_NVARS; i++)
		if (strlen(oncomplete_vars[i].name) == len &&
		    memcmp(oncomplete_vars[i].name, name, len) == 0)
			break;
	return i;
}

int
oncomplete_placeholder(const char *name, size_t len)
{
	return oncomplete_var(name, len) < ONCOMPLETE_NVARS;
}

/* The value of oncomplete_vars[i] for r; a number is written in buf. */
static const char *
oncomplete_value(const struct oncomplete *oc, const struct oncomplete_rev *r,
    size_t i, char *buf, size_t size)
{
	switch (i) {
	case 0:
		return oc->c->tables[r->table].name;
	case 1:
		return r->dt;
	case 2:
		return r->hr;
	case 3:
		snprintf(buf, size, "%" PRIu64, r->revision);
		return buf;
	case 4:
		return r->path;
	default:
		snprintf(buf, size, "%" PRIu64, r->rows);
		return buf;
	}
}

/* arg with every {name} replaced; NULL when short of memory. */
static char *
oncomplete_expand(const struct oncomplete *oc, const struct oncomplete_rev *r,
    const char *arg)
{
	struct buf b = { 0 };
	char num[32];
	const char *p = arg, *v;
	size_t i;

	while (*p != '\0') {
		const char *end = p[0] == '{' ? strchr(p, '}') : NULL;

		if (end != NULL && (i = oncomplete_var(p + 1,
		    (size_t)(end - p - 1))) < ONCOMPLETE_NVARS) {
			v = oncomplete_value(oc, r, i, num, sizeof(num));
			if (buf_append(&b, v, strlen(v)) < 0)
				goto fail;
			p = end + 1;
		} else if (buf_append(&b, p++, 1) < 0) {
			goto fail;
		}
	}
	if (buf_append(&b, "", 1) < 0)
		goto fail;
	return b.data;
fail:
	buf_clear(&b);
	return NULL;
}

static void
oncomplete_strv_free(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* The command's argv and environment for r; 0 or -ENOMEM. */
static int
oncomplete_build(const struct oncomplete *oc, const struct oncomplete_rev *r,
    char ***argvp, char ***envp)
{
	const struct conf_strv *cmd = &oc->c->output.on_complete;
	size_t nenv = 0, k = 0;
	char **argv, **env, num[32];

	while (environ[nenv] != NULL)
		nenv++;
	argv = calloc(cmd->n + 1, sizeof(*argv));
	env = calloc(nenv + ONCOMPLETE_NVARS + 1, sizeof(*env));
	*argvp = argv;
	*envp = env;
	if (argv == NULL || env == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < cmd->n; i++)
		if ((argv[i] = oncomplete_expand(oc, r, cmd->v[i])) == NULL)
			return -ENOMEM;
	for (size_t i = 0; i < ONCOMPLETE_NVARS; i++)
		if (asprintf(&env[k++], "%s=%s", oncomplete_vars[i].env,
		    oncomplete_value(oc, r, i, num, sizeof(num))) < 0) {
			env[--k] = NULL;
			return -ENOMEM;
		}
	for (size_t i = 0; i < nenv; i++)
		if (strncmp(environ[i], "KEDGE_", 6) != 0 &&
		    (env[k++] = strdup(environ[i])) == NULL)
			return -ENOMEM;
	return 0;
}

/* Keeps the last non-empty line of what *fd gives, in line[]; closes *fd
 * (and sets it to -1) at its end. */
static void
oncomplete_read_stderr(int *fd, char *partial, size_t *plen, char *line)
{
	char chunk[4096];
	ssize_t n;

	if (*fd < 0)
		return;
	while ((n = read(*fd, chunk, sizeof(chunk))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] != '\n') {
				if (*plen < ONCOMPLETE_LINE_MAX - 1)
					partial[(*plen)++] = chunk[i];
				continue;
			}
			if (*plen > 0) {
				memcpy(line, partial, *plen);
				line[*plen] = '\0';
			}
			*plen = 0;
		}
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(*fd);
		*fd = -1;
	}
}

static int
oncomplete_stopping(struct oncomplete *oc)
{
	int stop;

	pthread_mutex_lock(&oc->lock);
	stop = oc->stop && !oc->settle;
	pthread_mutex_unlock(&oc->lock);
	return stop;
}

/* Spawns the command for r with stdin and stdout on /dev/null and stderr
 * into a pipe whose read end is in *fd, in a process group of its own with
 * no signal blocked.  Returns its pid, or -errno with the sentence in
 * err. */
static pid_t
oncomplete_spawn(char **argv, char **env, int *fd, char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	int pfd[2], r;
	pid_t pid = -1;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot make a pipe: %s",
		    strerror(errno));
		return -errno;
	}
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGHUP);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	r = posix_spawnp(&pid, argv[0], &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pfd[1]);
	if (r != 0) {
		char shown[ESCAPE_BUF];

		close(pfd[0]);
		snprintf(err, errlen, "cannot run \"%s\": %s",
		    escape_str(argv[0], shown, sizeof(shown)), strerror(r));
		return -r;
	}
	fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
	*fd = pfd[0];
	return pid;
}

/* Runs the command for r once: waits for it, killing its process group at
 * the timeout or when the thread must stop.  The outcome is in err (its
 * exit status, signal or timeout, and its last stderr line). */
static enum oncomplete_result
oncomplete_run(struct oncomplete *oc, const struct oncomplete_rev *r,
    char *err, size_t errlen)
{
	char **argv = NULL, **env = NULL, partial[ONCOMPLETE_LINE_MAX];
	char line[ONCOMPLETE_LINE_MAX] = "", shown[ONCOMPLETE_LINE_MAX];
	enum oncomplete_result res = ONCOMPLETE_FAILED;
	time_t deadline = oncomplete_now() + oc->c->output.on_complete_timeout;
	size_t plen = 0;
	int fd = -1, status = 0, killed = 0;
	pid_t pid;

	if (oncomplete_build(oc, r, &argv, &env) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if ((pid = oncomplete_spawn(argv, env, &fd, err, errlen)) < 0)
		goto out;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		pid_t w;

		if (poll(&p, fd >= 0 ? 1 : 0, ONCOMPLETE_POLL_MS) != 0)
			oncomplete_read_stderr(&fd, partial, &plen, line);
		if ((w = waitpid(pid, &status, WNOHANG)) == pid)
			break;
		if (w < 0 && errno != EINTR) {
			/* ECHILD: the child is not ours to wait for, so its
			 * end is unknown: never a success */
			snprintf(err, errlen, "cannot wait for it: %s",
			    strerror(errno));
			kill(-pid, SIGKILL);
			goto out;
		}
		if (!killed && oncomplete_now() >= deadline)
			killed = 1;
		else if (!killed && oncomplete_stopping(oc))
			killed = 2;
		if (killed) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
	}
	oncomplete_read_stderr(&fd, partial, &plen, line);
	if (plen > 0) {
		memcpy(line, partial, plen);
		line[plen] = '\0';
	}
	escape_str(line, shown, sizeof(shown));
	if (killed == 1) {
		res = ONCOMPLETE_TIMEOUT;
		snprintf(err, errlen, "timed out after %d s, its process group "
		    "killed; last stderr line \"%s\"",
		    oc->c->output.on_complete_timeout, shown);
	} else if (killed == 2) {
		res = ONCOMPLETE_STOPPED;
		snprintf(err, errlen, "killed: kedge is stopping");
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		res = ONCOMPLETE_OK;
		snprintf(err, errlen, "exit status 0");
	} else if (WIFEXITED(status)) {
		snprintf(err, errlen, "exit status %d; last stderr line \"%s\"",
		    WEXITSTATUS(status), shown);
	} else {
		snprintf(err, errlen, "killed by signal %d (%s); last stderr "
		    "line \"%s\"", WTERMSIG(status),
		    strsignal(WTERMSIG(status)), shown);
	}
out:
	if (fd >= 0)
		close(fd);
	oncomplete_strv_free(argv);
	oncomplete_strv_free(env);
	return res;
}

/* --- the thread --- */

/* The first pending revision due at now, none earlier of its hour before
 * it; or -1, with the soonest due time in *soonest (0: nothing waits). */
static ssize_t
oncomplete_next(struct oncomplete *oc, time_t now, time_t *soonest)
{
	*soonest = 0;
	for (size_t k = 0; k < oc->npending; k++) {
		const struct oncomplete_rev *r = &oc->pending[k];
		int first = 1;

		for (size_t j = 0; j < k && first; j++)
			first = !oncomplete_same_hour(&oc->pending[j], r->table,
			    r->dt, r->hr);
		if (!first || (oc->settle &&
		    r->tries >= ONCOMPLETE_SETTLE_TRIES))
			continue;
		if (r->next_at <= now)
			return (ssize_t)k;
		if (*soonest == 0 || r->next_at < *soonest)
			*soonest = r->next_at;
	}
	return -1;
}

/* The pending entry for (table, dt, hr, revision), or -1. */
static ssize_t
oncomplete_find(struct oncomplete *oc, const struct oncomplete_rev *r)
{
	for (size_t k = 0; k < oc->npending; k++)
		if (oncomplete_same_hour(&oc->pending[k], r->table, r->dt,
		    r->hr) && oc->pending[k].revision == r->revision)
			return (ssize_t)k;
	return -1;
}

/* Books the outcome of one run of r (with oc->lock held). */
static void
oncomplete_account(struct oncomplete *oc, const struct oncomplete_rev *r,
    enum oncomplete_result res, const char *why)
{
	const char *table = oc->c->tables[r->table].name;
	ssize_t k = oncomplete_find(oc, r);
	struct oncomplete_rev *p;
	int backoff;

	if (res == ONCOMPLETE_STOPPED || k < 0)
		return;
	p = &oc->pending[k];
	if (res == ONCOMPLETE_OK) {
		oc->stats[r->table].ok++;
		log_info("on_complete: %s dt=%s hr=%s revision %" PRIu64 " (%"
		    PRIu64 " rows) announced", table, r->dt, r->hr, r->revision,
		    r->rows);
		if (oncomplete_mark_done(oc, p) < 0)
			log_warnx("on_complete: out of memory; %s dt=%s hr=%s "
			    "may be announced again", table, r->dt, r->hr);
		oncomplete_drop_pending(oc, (size_t)k);
		oncomplete_save(oc, r->table);
		return;
	}
	if (res == ONCOMPLETE_TIMEOUT)
		oc->stats[r->table].timeout++;
	else
		oc->stats[r->table].failed++;
	p->tries++;
	backoff = p->tries >= 9 ? ONCOMPLETE_BACKOFF_MAX : 1 << (p->tries - 1);
	if (backoff > ONCOMPLETE_BACKOFF_MAX)
		backoff = ONCOMPLETE_BACKOFF_MAX;
	p->next_at = oncomplete_now() + backoff;
	log_warnx("on_complete: %s dt=%s hr=%s revision %" PRIu64 ": %s; "
	    "try %d failed, the next in %d s", table, r->dt, r->hr,
	    r->revision, why, p->tries, backoff);
}

static void *
oncomplete_main(void *arg)
{
	struct oncomplete *oc = arg;

	pthread_mutex_lock(&oc->lock);
	for (;;) {
		struct oncomplete_rev r;
		enum oncomplete_result res;
		time_t now = oncomplete_now(), soonest;
		ssize_t k = oncomplete_next(oc, now, &soonest);
		char why[1024];

		if (oc->stop && (!oc->settle || (k < 0 && soonest == 0)))
			break;
		if (k < 0) {
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += soonest == 0 ? 3600 : soonest - now;
			pthread_cond_timedwait(&oc->cond, &oc->lock, &until);
			continue;
		}
		r = oc->pending[k];
		if ((r.path = strdup(r.path)) == NULL) {
			pthread_mutex_unlock(&oc->lock);
			sleep(1);
			pthread_mutex_lock(&oc->lock);
			continue;
		}
		pthread_mutex_unlock(&oc->lock);
		res = oncomplete_run(oc, &r, why, sizeof(why));
		pthread_mutex_lock(&oc->lock);
		oncomplete_account(oc, &r, res, why);
		free(r.path);
	}
	pthread_mutex_unlock(&oc->lock);
	return NULL;
}

static void
oncomplete_free(struct oncomplete *oc)
{
	for (size_t k = 0; k < oc->npending; k++)
		free(oc->pending[k].path);
	free(oc->pending);
	free(oc->done);
	free(oc->stats);
	free(oc->dir);
	free(oc);
}

struct oncomplete *
oncomplete_start(const struct conf *c, char *err, size_t errlen)
{
	struct oncomplete *oc;
	int r;

	if ((oc = calloc(1, sizeof(*oc))) == NULL ||
	    (oc->stats = calloc(c->n_tables, sizeof(*oc->stats))) == NULL ||
	    asprintf(&oc->dir, "%s/" ONCOMPLETE_DIR, c->output.spool_dir) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	oc->c = c;
	if ((r = fs_mkdirs(oc->dir, 0755)) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", oc->dir,
		    strerror(-r));
		goto fail;
	}
	pthread_mutex_init(&oc->lock, NULL);
	pthread_cond_init(&oc->cond, NULL);
	if ((r = thread_start(&oc->thread, oncomplete_main, oc)) != 0) {
		snprintf(err, errlen, "cannot start the on_complete thread: %s",
		    strerror(r));
		pthread_mutex_destroy(&oc->lock);
		pthread_cond_destroy(&oc->cond);
		goto fail;
	}
	return oc;
fail:
	if (oc != NULL)
		oncomplete_free(oc);
	return NULL;
}

int
oncomplete_load(struct oncomplete *oc)
{
	int r = 0;

	pthread_mutex_lock(&oc->lock);
	for (size_t i = 0; i < oc->c->n_tables && r == 0; i++)
		r = oncomplete_load_table(oc, i);
	if (r == 0 && oc->npending > 0) {
		log_info("on_complete: %zu revision(s) pending from before",
		    oc->npending);
		pthread_cond_broadcast(&oc->cond);
	}
	pthread_mutex_unlock(&oc->lock);
	return r;
}

void
oncomplete_note(struct oncomplete *oc, const char *table, const char *dt,
    const char *hr, uint64_t revision, uint64_t rows, const char *path)
{
	struct oncomplete_rev r = { .revision = revision, .rows = rows,
	    .path = (char *)path };
	const struct oncomplete_rev *d;

	if ((r.table = conf_table_find(oc->c, table)) == oc->c->n_tables ||
	    !oncomplete_digits(dt, 8) || !oncomplete_digits(hr, 2))
		return;
	snprintf(r.dt, sizeof(r.dt), "%s", dt);
	snprintf(r.hr, sizeof(r.hr), "%s", hr);
	pthread_mutex_lock(&oc->lock);
	if (((d = oncomplete_done_of(oc, r.table, dt, hr)) != NULL &&
	    d->revision >= revision) || oncomplete_find(oc, &r) >= 0)
		goto out;
	r.next_at = oncomplete_now();
	if (oncomplete_add_pending(oc, &r) < 0) {
		log_warnx("on_complete: out of memory; %s dt=%s hr=%s "
		    "revision %" PRIu64 " waits for the next look at the hour",
		    table, dt, hr, revision);
		goto out;
	}
	oncomplete_save(oc, r.table);
	pthread_cond_broadcast(&oc->cond);
out:
	pthread_mutex_unlock(&oc->lock);
}

void
oncomplete_settle(struct oncomplete *oc)
{
	pthread_mutex_lock(&oc->lock);
	oc->settle = 1;
	pthread_mutex_unlock(&oc->lock);
}

/* Stops and joins the thread; oc is left to free. */
static void
oncomplete_join(struct oncomplete *oc)
{
	pthread_mutex_lock(&oc->lock);
	oc->stop = 1;
	pthread_cond_broadcast(&oc->cond);
	pthread_mutex_unlock(&oc->lock);
	pthread_join(oc->thread, NULL);
	pthread_mutex_destroy(&oc->lock);
	pthread_cond_destroy(&oc->cond);
}

void
oncomplete_stop(struct oncomplete *oc)
{
	if (oc == NULL)
		return;
	oncomplete_join(oc);
	oncomplete_free(oc);
}

void
oncomplete_handover(struct oncomplete *to, struct oncomplete *from)
{
	struct oncomplete_rev *swap;
	size_t n;

	oncomplete_join(from);
	pthread_mutex_lock(&to->lock);
	/* to read no record: what it holds is empty, and goes with from */
	swap = to->done, to->done = from->done, from->done = swap;
	n = to->ndone, to->ndone = from->ndone, from->ndone = n;
	n = to->done_cap, to->done_cap = from->done_cap, from->done_cap = n;
	swap = to->pending, to->pending = from->pending, from->pending = swap;
	n = to->npending, to->npending = from->npending, from->npending = n;
	n = to->pending_cap, to->pending_cap = from->pending_cap,
	    from->pending_cap = n;
	memcpy(to->stats, from->stats, to->c->n_tables * sizeof(*to->stats));
	for (size_t k = 0; k < to->npending; k++)
		to->pending[k].tries = 0, to->pending[k].next_at = 0;
	pthread_cond_broadcast(&to->cond);
	pthread_mutex_unlock(&to->lock);
	oncomplete_free(from);
}

void
oncomplete_get_stats(struct oncomplete *oc, size_t i,
    struct oncomplete_stats *out)
{
	pthread_mutex_lock(&oc->lock);
	*out = oc->stats[i];
	pthread_mutex_unlock(&oc->lock);
}
