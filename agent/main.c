/*
 * kedge: Kafka -> UDTFs -> hourly Hive partitions, exactly once.
 * The command line.  One table, commands[] below, holds each
 * command's name, function, synopsis, what it does and its options: `kedge
 * --help`, `kedge COMMAND --help` and the usage errors are all printed
 * from it, so a new command is its function and one entry.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/cli/bench.h"
#include "agent/cli/preview.h"
#include "agent/cli/reconcile.h"
#include "agent/cli/report.h"
#include "agent/cli/verify.h"
#include "agent/config/config.h"
#include "agent/ops/status.h"
#include "agent/run.h"
#include "agent/target/target.h"
#include "agent/target/webhdfs.h"
#include "agent/twopc.h"
#include "lib/log.h"

/* A command: its name (argv[1], or two words: "bench udtf" is argv[1]
 * and argv[2]), what runs it (given argv from the name's last word on,
 * so that argv[0] is that word), and its usage: the synopsis after
 * "kedge NAME", the paragraph that says what it does and its options, a
 * line each ("  --from YYYYMMDDHH  the first hour"; -h, --help is added;
 * NULL: none).  A '\n' in the synopsis continues it on a line indented
 * under its first, in the paragraph on a line indented to the
 * paragraphs' text. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
	const char *help;
	const char *options;
};

/* These walk commands[], at the end. */
static void usage(FILE *out);
static int usage_unknown(int argc, char **argv);
static const struct command *command_find(int argc, char **argv,
    int *words);

/* The command running: what usage_error() and --help speak of. */
static const struct command *cmd;

/* The column the paragraphs' text starts at. */
#define USAGE_INDENT 18

/* Writes s, each line after a '\n' indented by indent columns. */
static void
usage_lines(FILE *out, const char *s, int indent)
{
	for (; *s != '\0'; s++) {
		fputc(*s, out);
		if (*s == '\n')
			fprintf(out, "%*s", indent, "");
	}
}

/* "<lead> kedge NAME SYNOPSIS\n", its lines after the first indented
 * under the synopsis' first. */
static void
usage_synopsis(FILE *out, const char *lead, const struct command *c)
{
	int n = fprintf(out, "%s kedge %s%s", lead, c->name,
	    c->synopsis[0] != '\0' ? " " : "");

	usage_lines(out, c->synopsis, n);
	fputc('\n', out);
}

/* "  NAME            what it does\n". */
static void
usage_paragraph(FILE *out, const struct command *c)
{
	int n = fprintf(out, "  %s", c->name);

	fprintf(out, "%*s", n < USAGE_INDENT ? USAGE_INDENT - n : 2, "");
	usage_lines(out, c->help, USAGE_INDENT);
	fputc('\n', out);
}

/* kedge COMMAND --help: its synopsis, paragraph and options. */
static void
usage_command(FILE *out, const struct command *c)
{
	usage_synopsis(out, "usage:", c);
	fputc('\n', out);
	usage_paragraph(out, c);
	fprintf(out, "\n%s  -h, --help         print this help\n",
	    c->options != NULL ? c->options : "");
}

/* Says on stderr what is wrong, in one line, and the synopsis of the
 * command running.  Returns 2, the exit status of a usage error. */
__attribute__((format(printf, 1, 2)))
static int
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kedge %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_synopsis(stderr, "usage:", cmd);
	return 2;
}

/* getopt_long() over the running command's argv with its short options
 * (and -h), saying its errors as usage errors.  Returns the option, -1
 * after the last one, 'h' after printing the command's help for -h or
 * --help, or '?' after a usage error: what the command then returns is
 * OPT_EXIT('h' or '?'). */
static int
cmd_getopt(int argc, char **argv, const char *shortopts,
    const struct option *longopts)
{
	char opts[32];
	const char *arg;
	int ch;

	snprintf(opts, sizeof(opts), ":%sh", shortopts);
	opterr = 0;
	switch ((ch = getopt_long(argc, argv, opts, longopts, NULL))) {
	case 'h':
		usage_command(stdout, cmd);
		return ch;
	case ':':
		usage_error("%s needs a value", argv[optind - 1]);
		return '?';
	case '?':
		arg = argv[optind - 1];
		if (optopt != 0 && strncmp(arg, "--", 2) == 0)
			usage_error("%.*s takes no value", (int)strcspn(arg, "="),
			    arg);
		else if (optopt != 0)
			usage_error("unknown option -%c", optopt);
		else
			usage_error("unknown option %.*s", (int)strcspn(arg, "="),
			    arg);
		return '?';
	default:
		return ch;
	}
}

#define OPT_EXIT(ch) ((ch) == 'h' ? 0 : 2)
#define OPT_HELP { "help", no_argument, NULL, 'h' }
#define OPT_CONFIG { "config", required_argument, NULL, 'c' }
#define OPT_END { NULL, 0, NULL, 0 }
#define HELP_CONFIG \
	"  -c, --config FILE  the configuration (default " CONF_DEFAULT_PATH ")\n"

/* After the options: a usage error for an argument left over. */
static int
no_more_args(int argc, char **argv)
{
	if (optind < argc)
		return usage_error("unexpected argument \"%s\"", argv[optind]);
	return 0;
}

/* The options of a command that takes none.  Returns -1, or the status
 * the command exits with. */
static int
opts_none(int argc, char **argv)
{
	static const struct option longopts[] = { OPT_HELP, OPT_END };
	int ch;

	if ((ch = cmd_getopt(argc, argv, "", longopts)) != -1)
		return OPT_EXIT(ch);
	return no_more_args(argc, argv) != 0 ? 2 : -1;
}

/* The options of a command that takes -c FILE alone.  Returns -1 with
 * the file in *path, or the status the command exits with. */
static int
opts_config_only(int argc, char **argv, const char **path)
{
	static const struct option longopts[] = { OPT_CONFIG, OPT_HELP,
	    OPT_END };
	int ch;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		if (ch != 'c')
			return OPT_EXIT(ch);
		*path = optarg;
	}
	return no_more_args(argc, argv) != 0 ? 2 : -1;
}

static struct conf *
load(const char *path)
{
	char err[1024];
	struct conf *c = conf_load(path, err, sizeof(err));

	if (c == NULL)
		fprintf(stderr, "%s\n", err);
	return c;
}

static int
cmd_check_config(int argc, char **argv)
{
	static const struct option longopts[] = { OPT_CONFIG,
	    { "online", no_argument, NULL, 'o' },
	    { "json", no_argument, NULL, 'j' }, OPT_HELP, OPT_END };
	const char *path = CONF_DEFAULT_PATH;
	struct conf_report rep = { 0 };
	char info[2048] = "", *doc;
	int ch, online = 0, json = 0, ok;
	struct conf *c;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		if (ch == 'c')
			path = optarg;
		else if (ch == 'o')
			online = 1;
		else if (ch == 'j')
			json = 1;
		else
			return OPT_EXIT(ch);
	}
	if (no_more_args(argc, argv) != 0)
		return 2;
	/* every error, the file's keys and then what they name */
	if ((c = conf_load_all(path, &rep)) != NULL &&
	    run_check(c, &rep) == 0 && online)
		run_check_online(c, info, sizeof(info), &rep);
	conf_free(c);
	ok = rep.nerrors == 0 && !rep.oom;
	if (json) {
		if ((doc = conf_report_json(&rep)) == NULL) {
			fprintf(stderr, "kedge check-config: out of memory\n");
			ok = 0;
		} else
			printf("%s\n", doc);
		free(doc);
	} else {
		conf_report_write(&rep, stderr);
		if (ok)
			printf("configuration OK%s%s\n", online ? ": " : "",
			    info);
	}
	conf_report_clear(&rep);
	return ok ? 0 : 1;
}

/* Logs what a check of the configuration found. */
static void
log_report(const struct conf_report *rep)
{
	char text[4096];

	for (size_t i = 0; i < rep->nerrors; i++) {
		conf_diag_text(&rep->errors[i], text, sizeof(text));
		log_errx("%s", text);
	}
	for (size_t i = 0; i < rep->nwarnings; i++) {
		conf_diag_text(&rep->warnings[i], text, sizeof(text));
		log_warnx("%s", text);
	}
	if (rep->oom)
		log_errx("out of memory checking the configuration");
}

static int
cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = { OPT_CONFIG,
	    { "exit-at-end", no_argument, NULL, 'e' }, OPT_HELP, OPT_END };
	const char *path = CONF_DEFAULT_PATH;
	struct conf_report rep = { 0 };
	struct run_opts o = { 0 };
	struct conf *c;
	int ch, r;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		if (ch == 'c')
			path = optarg;
		else if (ch == 'e')
			o.exit_at_end = 1;
		else
			return OPT_EXIT(ch);
	}
	if (no_more_args(argc, argv) != 0)
		return 2;
	/* check-config's checks first: what they refuse, run refuses, with
	 * EX_CONFIG, which systemd's RestartPreventExitStatus= does not
	 * retry */
	if ((c = conf_load_all(path, &rep)) == NULL || rep.nerrors > 0 ||
	    rep.oom || run_check(c, &rep) < 0) {
		log_report(&rep);
		conf_report_clear(&rep);
		conf_free(c);
		return RUN_EX_CONFIG;
	}
	/* the config checked the names */
	log_set_level_name(c->log.level);
	log_set_format_name(c->log.format);
	/* its warnings: the run says each itself, where it meets it */
	conf_report_clear(&rep);
	/* warned, not refused: a root-only host may mean it */
	if (geteuid() == 0)
		log_warnx("kedge runs as root: plugins run with root's rights, "
		    "and what it writes belongs to root, which kedge.service "
		    "(User=kedge) cannot write later; run it as the user kedge "
		    "(systemctl start kedge, or runuser -u kedge -- kedge run), "
		    "after chown -R kedge: %s%s%s", c->output.spool_dir,
		    c->output.local_dir != NULL ? " " : "",
		    c->output.local_dir != NULL ? c->output.local_dir : "");
	r = run_main(c, &o);
	conf_free(c);
	return r;
}

static int
cmd_parse(int argc, char **argv)
{
	static const struct option longopts[] = {
		OPT_CONFIG,
		{ "table", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		OPT_HELP, OPT_END,
	};
	struct preview_opts o = { NULL, 0 };
	const char *path = CONF_DEFAULT_PATH, *input = NULL;
	struct conf *c;
	FILE *in = stdin;
	int ch, r;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 't':
			o.table = optarg;
			break;
		case 'j':
			o.json = 1;
			break;
		default:
			return OPT_EXIT(ch);
		}
	}
	if (optind < argc)
		input = argv[optind++];
	if (no_more_args(argc, argv) != 0)
		return 2;
	if (o.table == NULL)
		return usage_error("--table is required");
	if (input != NULL && strcmp(input, "-") != 0 &&
	    (in = fopen(input, "r")) == NULL) {
		fprintf(stderr, "kedge parse: %s: %s\n", input, strerror(errno));
		return 1;
	}
	if ((c = load(path)) == NULL)
		r = 1;
	else
		r = preview_print(c, &o, in, stdout);
	conf_free(c);
	if (in != stdin)
		fclose(in);
	return r;
}

static int
verify_remove_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

/* Removes the copy verify_fetch() made. */
static void
verify_remove(const char *dir)
{
	nftw(dir, verify_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Copies the tree at a WebHDFS URL ("http[s]://host:port/dir") into a new
 * directory under $TMPDIR, with o's user (NULL: SPNEGO with the default
 * credential cache), CAs and timeouts.  Returns the directory (the caller
 * removes it and frees it), or NULL with the sentence in err. */
static char *
verify_fetch(const char *url, const struct webhdfs_opts *o, char *err,
    size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	struct target *t = NULL;
	char *dir = NULL;
	char why[1024];

	if (asprintf(&dir, "%s/kedge-verify-XXXXXX", tmp ? tmp : "/tmp") < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (mkdtemp(dir) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if ((t = target_open_at(url, o, err, errlen)) == NULL ||
	    target_mirror(t, dir, why, sizeof(why)) < 0) {
		if (t != NULL)
			snprintf(err, errlen, "%s: %s", url, why);
		verify_remove(dir);
		goto fail;
	}
	target_close(t);
	return dir;
fail:
	target_close(t);
	free(dir);
	return NULL;
}

/* The result goes to stdout, violation or not: it is the answer the
 * caller asked for; only a check that could not run goes to stderr. */
static int
cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "ca-file", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		OPT_HELP, OPT_END,
	};
	/* seconds to connect, and for a whole request (one file's copy) */
	struct webhdfs_opts o = { .connect_timeout = 10, .timeout = 600 };
	struct verify_summary sum;
	const char *where;
	char msg[4096], *dir = NULL;
	int ch, r, json = 0;

	while ((ch = cmd_getopt(argc, argv, "", longopts)) != -1) {
		if (ch == 'u')
			o.user = optarg;
		else if (ch == 'a')
			o.ca_file = optarg;
		else if (ch == 'j')
			json = 1;
		else
			return OPT_EXIT(ch);
	}
	if (optind == argc)
		return usage_error("a directory or URL is required");
	where = argv[optind++];
	if (no_more_args(argc, argv) != 0)
		return 2;
	if (target_is_url(where)) {
		if ((dir = verify_fetch(where, &o, msg, sizeof(msg))) == NULL) {
			fprintf(stderr, "%s\n", msg);
			return 2;
		}
		where = dir;
	}
	r = verify_check(where, &sum, msg, sizeof(msg));
	if (dir != NULL) {
		verify_remove(dir);
		free(dir);
	}
	if (r < 0) {
		fprintf(stderr, "%s\n", msg);
		return 2;
	}
	if (json)
		return verify_print_json(r, &sum, msg, stdout) < 0 ? 2 : r;
	printf("%s\n", msg);
	return r;
}

/* "YYYYMMDDHH" with an hour 00..23: the dt and hr of a partition. */
static int
parse_hour(const char *s)
{
	if (strlen(s) != 10 || strspn(s, "0123456789") != 10 ||
	    strcmp(s + 8, "23") > 0)
		return -EINVAL;
	return 0;
}

static int
cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		OPT_CONFIG,
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "table", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		OPT_HELP, OPT_END,
	};
	struct report_opts o = { NULL, NULL, NULL, 0 };
	const char *path = CONF_DEFAULT_PATH;
	char err[1024];
	struct conf *c;
	int ch, r;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'f':
		case 't':
			if (parse_hour(optarg) < 0)
				return usage_error("--%s %s: give the hour as "
				    "YYYYMMDDHH", ch == 'f' ? "from" : "to",
				    optarg);
			*(ch == 'f' ? &o.from : &o.to) = optarg;
			break;
		case 'T':
			o.table = optarg;
			break;
		case 'j':
			o.json = 1;
			break;
		default:
			return OPT_EXIT(ch);
		}
	}
	if (no_more_args(argc, argv) != 0)
		return 2;
	if (o.from == NULL || o.to == NULL)
		return usage_error("--%s is required", o.from ? "to" : "from");
	if (strcmp(o.from, o.to) > 0)
		return usage_error("--from %s is after --to %s", o.from, o.to);
	if ((c = load(path)) == NULL)
		return 1;
	r = report_print(c, &o, stdout, err, sizeof(err));
	conf_free(c);
	if (r < 0) {
		fflush(stdout);
		fprintf(stderr, "kedge report: %s\n", err);
		return 1;
	}
	return 0;
}

static int
cmd_reconcile(int argc, char **argv)
{
	static const struct option longopts[] = {
		OPT_CONFIG,
		{ "table", required_argument, NULL, 'T' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "offline", required_argument, NULL, 'o' },
		{ "offline-format", required_argument, NULL, 'F' },
		{ "offline-layout", required_argument, NULL, 'L' },
		{ "offline-time", required_argument, NULL, 'E' },
		{ "offline-counts", required_argument, NULL, 'C' },
		{ "offline-table", required_argument, NULL, 'O' },
		{ "print-sql", required_argument, NULL, 'S' },
		{ "lookback", required_argument, NULL, 'b' },
		{ "lateness", required_argument, NULL, 'l' },
		{ "columns", required_argument, NULL, 'k' },
		{ "explain", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "user", required_argument, NULL, 'u' },
		{ "ca-file", required_argument, NULL, 'a' },
		OPT_HELP, OPT_END,
	};
	struct reconcile_opts o = { .lookback = -1, .lateness = -1 };
	const char *path = CONF_DEFAULT_PATH;
	char err[4096], *end;
	struct conf *c;
	long *n;
	int ch, r;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		switch (ch) {
		case 'c': path = optarg; break;
		case 'T': o.table = optarg; break;
		case 'f': o.from = optarg; break;
		case 't': o.to = optarg; break;
		case 'o': o.offline = optarg; break;
		case 'F': o.offline_format = optarg; break;
		case 'L': o.offline_layout = optarg; break;
		case 'E': o.offline_time = optarg; break;
		case 'C': o.offline_counts = optarg; break;
		case 'O': o.offline_table = optarg; break;
		case 'S': o.print_sql = optarg; break;
		case 'k': o.columns = optarg; break;
		case 'j': o.json = 1; break;
		case 'u': o.user = optarg; break;
		case 'a': o.ca_file = optarg; break;
		case 'b':
		case 'l':
		case 'x':
			n = ch == 'b' ? &o.lookback : ch == 'l' ? &o.lateness :
			    &o.explain;
			*n = strtol(optarg, &end, 10);
			if (*end != '\0' || end == optarg || *n < 0 ||
			    *n > 10000)
				return usage_error("--%s %s: give a number from "
				    "0 to 10000", ch == 'b' ? "lookback" : ch ==
				    'l' ? "lateness" : "explain", optarg);
			break;
		default:
			return OPT_EXIT(ch);
		}
	}
	if (no_more_args(argc, argv) != 0)
		return 2;
	if (reconcile_check(&o, err, sizeof(err)) < 0)
		return usage_error("%s", err);
	if ((c = load(path)) == NULL)
		return 2;
	r = reconcile_run(c, &o, stdout, err, sizeof(err));
	conf_free(c);
	if (r < 0) {
		fflush(stdout);
		fprintf(stderr, "kedge reconcile: %s\n", err);
		return 2;
	}
	return r;
}

static int
cmd_checkpoint_show(int argc, char **argv)
{
	const char *path = CONF_DEFAULT_PATH;
	struct conf *c;
	int r;

	if ((r = opts_config_only(argc, argv, &path)) >= 0)
		return r;
	if ((c = load(path)) == NULL)
		return 1;
	r = twopc_show(c, stdout);
	conf_free(c);
	return r;
}

/* kedge status [-c FILE] [--json]: exits 0 when the daemon runs and is
 * healthy, 1 when it runs and a check fails, 3 when it does not run. */
static int
cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		OPT_CONFIG,
		{ "json", no_argument, NULL, 'j' },
		OPT_HELP, OPT_END,
	};
	const char *path = CONF_DEFAULT_PATH;
	int ch, as_json = 0, r;
	struct conf *c;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'j':
			as_json = 1;
			break;
		default:
			return OPT_EXIT(ch);
		}
	}
	if (no_more_args(argc, argv) != 0)
		return 2;
	if ((c = load(path)) == NULL)
		return 1;
	r = status_show(c, as_json, stdout);
	conf_free(c);
	return r;
}

/* "\n", "\0", "\t" or one character. */
static int
parse_delimiter(const char *s, char *out)
{
	if (s[0] == '\\' && s[1] != '\0' && s[2] == '\0') {
		const char *from = "n0t\\", *to = "\n\0\t\\";
		const char *at = strchr(from, s[1]);
		if (at == NULL)
			return -EINVAL;
		*out = to[at - from];
		return 0;
	}
	if (s[0] == '\0' || s[1] != '\0')
		return -EINVAL;
	*out = s[0];
	return 0;
}

static int
cmd_bench_udtf(int argc, char **argv)
{
	static const struct option longopts[] = {
		OPT_CONFIG,
		{ "table", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "delimiter", required_argument, NULL, 'd' },
		{ "regex", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "passes", required_argument, NULL, 'p' },
		{ "only", required_argument, NULL, 'o' },
		OPT_HELP, OPT_END,
	};
	struct bench_opts o = { NULL, NULL, '\n', NULL, 0.5, 0, BENCH_BOTH };
	const char *path = CONF_DEFAULT_PATH;
	struct conf *c;
	char *end;
	long n;
	int ch, r;

	while ((ch = cmd_getopt(argc, argv, "c:", longopts)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 't':
			o.table = optarg;
			break;
		case 'i':
			o.input = optarg;
			break;
		case 'd':
			if (parse_delimiter(optarg, &o.delimiter) < 0)
				return usage_error("--delimiter \"%s\": give one "
				    "character, or \\n, \\0 or \\t", optarg);
			break;
		case 'r':
			o.regex = optarg;
			break;
		case 's':
			o.seconds = strtod(optarg, &end);
			if (*end != '\0' || !(o.seconds > 0 && o.seconds <= 60))
				return usage_error("--seconds %s: give more "
				    "than 0, at most 60", optarg);
			break;
		case 'p':
			n = strtol(optarg, &end, 10);
			if (*end != '\0' || n < 1 || n > 1000)
				return usage_error("--passes %s: give 1 to 1000",
				    optarg);
			o.passes = (int)n;
			break;
		case 'o':
			if (strcmp(optarg, "udtf") == 0)
				o.only = BENCH_UDTF;
			else if (strcmp(optarg, "regex") == 0)
				o.only = BENCH_REGEX;
			else
				return usage_error("--only %s: give udtf or "
				    "regex", optarg);
			break;
		default:
			return OPT_EXIT(ch);
		}
	}
	if (no_more_args(argc, argv) != 0)
		return 2;
	if (o.table == NULL || o.input == NULL)
		return usage_error("--%s is required", o.table ? "input" :
		    "table");
	if ((c = load(path)) == NULL)
		return 1;
	r = bench_udtf(c, &o, stdout);
	conf_free(c);
	return r;
}

static int
cmd_bench_consume(int argc, char **argv)
{
	const char *path = CONF_DEFAULT_PATH;
	struct conf *c;
	int r;

	if ((r = opts_config_only(argc, argv, &path)) >= 0)
		return r;
	if ((c = load(path)) == NULL)
		return 1;
	log_set_level_name(c->log.level);
	log_set_format_name(c->log.format);
	r = bench_consume(c, 600, stdout);
	conf_free(c);
	return r;
}

static int
cmd_config_reference(int argc, char **argv)
{
	int r;

	if ((r = opts_none(argc, argv)) >= 0)
		return r;
	conf_write_reference(stdout);
	return 0;
}

static int
cmd_version(int argc, char **argv)
{
	int r;

	if ((r = opts_none(argc, argv)) >= 0)
		return r;
	printf("kedge %s\n", KEDGE_VERSION);
	return 0;
}

static int
cmd_help(int argc, char **argv)
{
	static const struct option longopts[] = { OPT_HELP, OPT_END };
	const struct command *c;
	int ch, words;

	if ((ch = cmd_getopt(argc, argv, "", longopts)) != -1)
		return OPT_EXIT(ch);
	if (optind == argc) {
		usage(stdout);
		return 0;
	}
	if ((c = command_find(argc - optind, argv + optind, &words)) == NULL)
		return usage_unknown(argc - optind + 1, argv + optind - 1);
	optind += words;
	if (no_more_args(argc, argv) != 0)
		return 2;
	usage_command(stdout, c);
	return 0;
}

static const struct command commands[] = {
	{ "run", cmd_run, "[-c FILE] [--exit-at-end]",
	    "consume, parse and land rows until SIGTERM or SIGINT;\n"
	    "exit 78 on a configuration error (what check-config\n"
	    "refuses) or when another kedge runs on the spool",
	    HELP_CONFIG
	    "  --exit-at-end      stop once every partition is read to its end\n" },
	{ "check-config", cmd_check_config, "[-c FILE] [--online] [--json]",
	    "parse and check the configuration as run would (keys,\n"
	    "UDTFs, librdkafka's properties, files, keytab), print\n"
	    "\"configuration OK\" or every error, FILE:LINE: key:\n"
	    "what; exit 0 or 1",
	    HELP_CONFIG
	    "  --online           also log in, ask the brokers for the topics\n"
	    "                     and, with the webhdfs target, HDFS for its\n"
	    "                     directory\n"
	    "  --json             one JSON document: ok, errors, warnings\n" },
	{ "verify", cmd_verify, "[--json] [--user NAME] [--ca-file PEM] DIR|URL",
	    "check that the part files landed in DIR (output.local_dir)\n"
	    "hold every offset exactly once and agree with their\n"
	    "hours' manifests; print \"verify OK: ...\" or the first\n"
	    "violation; exit 0 or 1 (2: DIR unreadable).  A\n"
	    "WebHDFS or HttpFS URL (https://namenode:9871/dir)\n"
	    "is copied to $TMPDIR first",
	    "  --json             the answer as one JSON document: ok, and the\n"
	    "                     counts or the violation\n"
	    "  --user NAME        a URL as the HDFS user NAME, not with SPNEGO\n"
	    "                     from the default credential cache\n"
	    "  --ca-file PEM      check an https URL's certificate with these CAs\n" },
	{ "report", cmd_report, "[-c FILE] --from YYYYMMDDHH --to YYYYMMDDHH\n"
	    "[--table NAME] [--json]",
	    "print as TSV, per table and hour from --from to --to\n"
	    "(dt and hr, inclusive), what the hour's manifest says\n"
	    "or, for an hour not complete yet, its files and rows,\n"
	    "read from output.target; exit 0, or 1 when a manifest\n"
	    "or sidecar does not parse",
	    HELP_CONFIG
	    "  --from YYYYMMDDHH  the first hour\n"
	    "  --to YYYYMMDDHH    the last hour\n"
	    "  --table NAME       this table only\n"
	    "  --json             one JSON document, the hours as an array of\n"
	    "                     objects, not TSV\n" },
	{ "reconcile", cmd_reconcile, "[-c FILE] --table NAME --from YYYYMMDDHH\n"
	    "--to YYYYMMDDHH (--offline DIR|URL | --offline-counts FILE |\n"
	    "--print-sql spark --offline-table DB.TABLE)\n"
	    "[--offline-format raw|hive-text|tsv|csv|jsonl]\n"
	    "[--offline-layout PATTERN] [--offline-time COLUMN]\n"
	    "[--lookback HOURS] [--lateness HOURS] [--columns LIST]\n"
	    "[--explain N] [--json] [--user NAME] [--ca-file PEM]",
	    "per hour from --from to --to, whether the table's\n"
	    "rows in output.target are the offline table's: rows\n"
	    "and fingerprints, the offline rows bucketed by event\n"
	    "time from the load partitions [from - lookback,\n"
	    "to + lateness]; TSV (or --json) with a verdict an\n"
	    "hour; exit 0 when all match, 1 when not, 2 when a\n"
	    "side cannot be read.  --print-sql spark prints the\n"
	    "query that counts the offline side in Spark, whose\n"
	    "TSV --offline-counts reads (docs/reconcile.md)",
	    HELP_CONFIG
	    "  --table NAME       the table compared\n"
	    "  --from YYYYMMDDHH  the first event hour\n"
	    "  --to YYYYMMDDHH    the last event hour\n"
	    "  --offline DIR|URL  the offline table's files, under partitions\n"
	    "                     named by --offline-layout\n"
	    "  --offline-counts FILE\n"
	    "                     the TSV the --print-sql query produced\n"
	    "  --print-sql spark  print the Spark SQL query over --offline-table\n"
	    "  --offline-table DB.TABLE\n"
	    "                     the offline table the query reads\n"
	    "  --offline-format F raw (one record a line, through the table's\n"
	    "                     UDTFs), hive-text, tsv, csv or jsonl\n"
	    "  --offline-layout P the load partitions (default dt=%Y%m%d/hr=%H)\n"
	    "  --offline-time COL the offline side's event-time column\n"
	    "  --lookback HOURS   load hours read before --from (default 1)\n"
	    "  --lateness HOURS   load hours read after --to (default 2)\n"
	    "  --columns LIST     the columns compared (a,b or name=other)\n"
	    "  --explain N        up to N rows on one side only per hour\n"
	    "  --json             one JSON document, not TSV\n"
	    "  --user NAME        a URL as the HDFS user NAME, not with SPNEGO\n"
	    "  --ca-file PEM      check an https URL's certificate with these CAs\n" },
	{ "parse", cmd_parse, "[-c FILE] --table NAME [--json] [FILE]",
	    "run a table's UDTFs over sample records (FILE or\n"
	    "stdin, one a line) and print what each would become:\n"
	    "its rows as the table lands them, with their hour\n"
	    "(dt=YYYYMMDD/hr=HH), or why it would be rejected",
	    HELP_CONFIG
	    "  --table NAME       the table whose chain runs\n"
	    "  --json             one JSON object a record\n" },
	{ "checkpoint show", cmd_checkpoint_show, "[-c FILE]",
	    "print the last checkpoint record in the store", HELP_CONFIG },
	{ "status", cmd_status, "[-c FILE] [--json]",
	    "print what the daemon last reported: records, rows,\n"
	    "rejects and UDTF ns/record per table, the slowest\n"
	    "records, partitions and lag, checkpoints; whether it\n"
	    "still runs and is healthy, naming each check that\n"
	    "fails (exit 0: healthy, 1: a check fails, 3: not\n"
	    "running)",
	    HELP_CONFIG
	    "  --json             the same as one JSON document\n" },
	{ "bench udtf", cmd_bench_udtf, "[-c FILE] --table NAME --input FILE\n"
	    "[--delimiter C] [--regex PATTERN] [--seconds S]\n"
	    "[--passes N [--only udtf|regex]]",
	    "run a table's UDTF chain over a file of records on\n"
	    "one core and print records/s, ns/record, percentiles,\n"
	    "rows, rejects, the cost of timing, and a PCRE2-JIT\n"
	    "regex doing the same extraction as a ratio, over the\n"
	    "records the regex matches",
	    HELP_CONFIG
	    "  --table NAME       the table whose chain runs\n"
	    "  --input FILE       the records, one a line\n"
	    "  --delimiter C      between records instead: \\n, \\0, \\t or one\n"
	    "                     character\n"
	    "  --regex PATTERN    the reference regex (derived from the\n"
	    "                     log_format for nginx)\n"
	    "  --seconds S        each measured pass runs S s (0.5; at most 60)\n"
	    "  --passes N         N passes and no clock, for an instruction\n"
	    "                     counter\n"
	    "  --only udtf|regex  with --passes: only the UDTF, or the regex\n" },
	{ "bench consume", cmd_bench_consume, "[-c FILE]",
	    "read the topics to their end with kedge's consumer,\n"
	    "dropping every record unparsed, and print the rate,\n"
	    "CPU time and peak RSS: fetching alone",
	    HELP_CONFIG },
	{ "config-reference", cmd_config_reference, "",
	    "print every configuration key as Markdown", NULL },
	{ "version", cmd_version, "", "print kedge and its version", NULL },
	{ "help", cmd_help, "[COMMAND]",
	    "print this usage, or a command's own with its options", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

/* The length of the first word of name. */
static size_t
first_word(const char *name)
{
	return strcspn(name, " ");
}

/* The synopsis of every listed command, what each does, and how to see
 * a command's options. */
static void
usage(FILE *out)
{
	const char *lead = "usage:";

	for (const struct command *c = commands; c->name != NULL; c++) {
		usage_synopsis(out, lead, c);
		lead = "      ";
	}
	fputc('\n', out);
	for (const struct command *c = commands; c->name != NULL; c++)
		usage_paragraph(out, c);
	fprintf(out, "\n  Each command's options: kedge COMMAND --help.\n");
}

/* The names a command can be called by, the words of a group ("bench
 * udtf", "bench consume") once, for a usage error's synopsis. */
static void
usage_names(FILE *out)
{
	const struct command *c, *last = NULL;

	fprintf(out, "usage: kedge COMMAND [OPTIONS], COMMAND one of:");
	for (c = commands; c->name != NULL; last = c++) {
		size_t n = first_word(c->name);

		if (last == NULL || first_word(last->name) != n ||
		    strncmp(last->name, c->name, n) != 0)
			fprintf(out, " %.*s", (int)n, c->name);
	}
	fprintf(out, "\n");
}

/* A usage error in the command's name, argv[1]: not a command, or the
 * first word of a group ("bench") without a second one it knows.  Says
 * so, with the synopses of the group's commands or every command's name.
 * Returns 2. */
static int
usage_unknown(int argc, char **argv)
{
	int found = 0;

	for (const struct command *c = commands; argc > 1 && c->name != NULL;
	    c++) {
		size_t n = first_word(c->name);

		if (c->name[n] == '\0' || strncmp(c->name, argv[1], n) != 0 ||
		    argv[1][n] != '\0')
			continue;
		if (found++ == 0) {
			if (argc > 2)
				fprintf(stderr, "kedge %s: unknown command "
				    "\"%s\"\n", argv[1], argv[2]);
			else
				fprintf(stderr, "kedge %s: which one?\n",
				    argv[1]);
		}
		usage_synopsis(stderr, found == 1 ? "usage:" : "      ", c);
	}
	if (found > 0)
		return 2;
	if (argc > 1)
		fprintf(stderr, "kedge: unknown command \"%s\"\n", argv[1]);
	else
		fprintf(stderr, "kedge: a command is required\n");
	usage_names(stderr);
	return 2;
}

/* The command argv names; *words gets how many words its name takes. */
static const struct command *
command_find(int argc, char **argv, int *words)
{
	for (const struct command *c = commands; c->name != NULL; c++) {
		size_t n = first_word(c->name);

		if (strncmp(c->name, argv[0], n) != 0 || argv[0][n] != '\0')
			continue;
		if (c->name[n] == '\0') {
			*words = 1;
			return c;
		}
		if (argc > 1 && strcmp(c->name + n + 1, argv[1]) == 0) {
			*words = 2;
			return c;
		}
	}
	return NULL;
}

/* What systemd/kedge.service's UMask= says, whatever the shell that
 * started kedge says: no file kedge makes is writable by its group or
 * readable by others.  A stricter mask stays. */
#define KEDGE_UMASK 027

int
main(int argc, char **argv)
{
	/* the conventional spellings of two commands */
	static const char *const alias[][2] = {
		{ "--help", "help" }, { "-h", "help" }, { "--version", "version" },
	};
	int words;

	umask(umask(0) | KEDGE_UMASK);
	log_init();

	for (size_t i = 0; argc > 1 && i < sizeof(alias) / sizeof(alias[0]);
	    i++)
		if (strcmp(argv[1], alias[i][0]) == 0)
			argv[1] = (char *)alias[i][1];
	if (argc < 2 || (cmd = command_find(argc - 1, argv + 1, &words)) == NULL)
		return usage_unknown(argc, argv);
	return cmd->run(argc - words, argv + words);
}
