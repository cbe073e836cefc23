/*
 * kedge: Kafka -> UDTFs -> hourly Hive partitions, exactly once.
 * The command line: subcommands run, check-config, verify, report, parse,
 * checkpoint show, status, bench udtf, config-reference.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/cli/bench.h"
#include "agent/cli/preview.h"
#include "agent/cli/report.h"
#include "agent/cli/verify.h"
#include "agent/config/config.h"
#include "agent/ops/status.h"
#include "agent/run.h"
#include "agent/target/webhdfs.h"
#include "agent/twopc.h"
#include "lib/log.h"

/* printed from the command table below */
static void usage(FILE *out);

/* Parses the options after a subcommand: -c, and the one flag (NULL: none)
 * the subcommand takes (--exit-at-end for run, --online for check-config).
 * Returns 0, or 2 after printing the usage. */
static int
parse_opts(int argc, char **argv, const char **config, int *flag)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "exit-at-end", no_argument, NULL, 'e' },
		{ "online", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			*config = optarg;
			break;
		case 'e':
		case 'o':
			if (flag == NULL || (ch == 'e') != (strcmp(argv[0], "run") == 0))
				goto bad;
			*flag = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind == argc)
		return 0;
bad:
	usage(stderr);
	return 2;
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
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "online", no_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CONF_DEFAULT_PATH;
	struct conf_report rep = { 0 };
	char info[2048] = "", *doc;
	int ch, online = 0, json = 0, ok;
	struct conf *c;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'o':
			online = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
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
	const char *path = CONF_DEFAULT_PATH;
	struct conf_report rep = { 0 };
	struct run_opts o = { 0 };
	struct conf *c;
	int r;

	if ((r = parse_opts(argc, argv, &path, &o.exit_at_end)) != 0)
		return r;
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
	log_set_level_name(c->log.level); /* the config checked the name */
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
		{ "config", required_argument, NULL, 'c' },
		{ "table", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct preview_opts o = { NULL, 0 };
	const char *path = CONF_DEFAULT_PATH, *input = NULL;
	struct conf *c;
	FILE *in = stdin;
	int ch, r;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
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
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		input = argv[optind++];
	if (optind != argc || o.table == NULL) {
		usage(stderr);
		return 2;
	}
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
 * credential cache), CAs and timeouts; o's url and base_dir are url's.
 * Returns the directory (the caller removes it and frees it), or NULL
 * with the sentence in err. */
static char *
verify_fetch(const char *url, struct webhdfs_opts *o, char *err,
    size_t errlen)
{
	const char *host = strstr(url, "://") + 3, *slash = strchr(host, '/');
	const char *tmp = getenv("TMPDIR");
	struct webhdfs *w = NULL;
	char *root = NULL, *dir = NULL;
	char why[1024];

	if ((root = strndup(url, slash ? (size_t)(slash - url) :
	    strlen(url))) == NULL ||
	    asprintf(&dir, "%s/kedge-verify-XXXXXX", tmp ? tmp : "/tmp") < 0) {
		dir = NULL;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	o->url = root;
	o->base_dir = slash ? slash : "/";
	if (mkdtemp(dir) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (webhdfs_global_init() < 0 ||
	    (w = webhdfs_open(o, why, sizeof(why))) == NULL ||
	    webhdfs_mirror(w, dir, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s", url, why);
		verify_remove(dir);
		goto fail;
	}
	webhdfs_close(w);
	free(root);
	return dir;
fail:
	webhdfs_close(w);
	free(root);
	free(dir);
	return NULL;
}

/* The result line goes to stdout, violation or not: it is the answer the
 * caller asked for; only a check that could not run goes to stderr. */
static int
cmd_verify(int argc, char **argv)
{
	/* seconds to connect, and for a whole request (one file's copy) */
	struct webhdfs_opts o = { .connect_timeout = 10, .timeout = 600 };
	const char *where = NULL;
	char msg[4096], *dir = NULL;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--user") == 0 && i + 1 < argc)
			o.user = argv[++i];
		else if (strcmp(argv[i], "--ca-file") == 0 && i + 1 < argc)
			o.ca_file = argv[++i];
		else if (argv[i][0] != '-' && where == NULL)
			where = argv[i];
		else
			where = NULL, i = argc;
	}
	if (where == NULL) {
		usage(stderr);
		return 2;
	}
	if (strncmp(where, "http://", 7) == 0 ||
	    strncmp(where, "https://", 8) == 0) {
		if ((dir = verify_fetch(where, &o, msg, sizeof(msg))) == NULL) {
			fprintf(stderr, "%s\n", msg);
			return 2;
		}
		where = dir;
	}
	r = verify_check(where, msg, sizeof(msg));
	if (dir != NULL) {
		verify_remove(dir);
		free(dir);
	}
	if (r < 0) {
		fprintf(stderr, "%s\n", msg);
		return 2;
	}
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
		{ "config", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "table", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { NULL, NULL, NULL };
	const char *path = CONF_DEFAULT_PATH;
	char err[1024];
	struct conf *c;
	int ch, r;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'f':
		case 't':
			if (parse_hour(optarg) < 0) {
				fprintf(stderr, "kedge report: --%s %s: give the "
				    "hour as YYYYMMDDHH\n", ch == 'f' ? "from" :
				    "to", optarg);
				return 2;
			}
			*(ch == 'f' ? &o.from : &o.to) = optarg;
			break;
		case 'T':
			o.table = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc || o.from == NULL || o.to == NULL)
		goto bad;
	if (strcmp(o.from, o.to) > 0) {
		fprintf(stderr, "kedge report: --from %s is after --to %s\n",
		    o.from, o.to);
		return 2;
	}
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
bad:
	usage(stderr);
	return 2;
}

static int
cmd_checkpoint(int argc, char **argv)
{
	const char *path = CONF_DEFAULT_PATH;
	struct conf *c;
	int r;

	if (argc < 2 || strcmp(argv[1], "show") != 0) {
		usage(stderr);
		return 2;
	}
	if ((r = parse_opts(argc - 1, argv + 1, &path, NULL)) != 0)
		return r;
	if ((c = load(path)) == NULL)
		return 1;
	r = twopc_show(c, stdout);
	conf_free(c);
	return r;
}

static int
cmd_status(int argc, char **argv)
{
	const char *path = CONF_DEFAULT_PATH;
	struct conf *c;
	int r;

	if ((r = parse_opts(argc, argv, &path, NULL)) != 0)
		return r;
	if ((c = load(path)) == NULL)
		return 1;
	r = status_show(c, stdout);
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
cmd_bench_consume(int argc, char **argv)
{
	const char *path = CONF_DEFAULT_PATH;
	struct conf *c;
	int ch, r;

	optind = 1;
	while ((ch = getopt(argc, argv, "c:")) != -1) {
		if (ch != 'c') {
			usage(stderr);
			return 2;
		}
		path = optarg;
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if ((c = load(path)) == NULL)
		return 1;
	log_set_level_name(c->log.level);
	r = bench_consume(c, 600, stdout);
	conf_free(c);
	return r;
}

static int
cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "table", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "delimiter", required_argument, NULL, 'd' },
		{ "regex", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "passes", required_argument, NULL, 'p' },
		{ "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { NULL, NULL, '\n', NULL, 0.5, 0, BENCH_BOTH };
	long n;
	const char *path = CONF_DEFAULT_PATH;
	struct conf *c;
	char *end;
	int ch, r;

	if (argc >= 2 && strcmp(argv[1], "consume") == 0)
		return cmd_bench_consume(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "udtf") != 0)
		goto bad;
	optind = 1;
	while ((ch = getopt_long(argc - 1, argv + 1, "c:", longopts,
	    NULL)) != -1) {
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
			if (parse_delimiter(optarg, &o.delimiter) < 0) {
				fprintf(stderr, "kedge bench: --delimiter \"%s\": "
				    "give one character, or \\n, \\0 or \\t\n",
				    optarg);
				return 2;
			}
			break;
		case 'r':
			o.regex = optarg;
			break;
		case 's':
			o.seconds = strtod(optarg, &end);
			if (*end != '\0' || !(o.seconds > 0 && o.seconds <= 60))
				goto bad;
			break;
		case 'p':
			n = strtol(optarg, &end, 10);
			if (*end != '\0' || n < 1 || n > 1000)
				goto bad;
			o.passes = (int)n;
			break;
		case 'o':
			if (strcmp(optarg, "udtf") == 0)
				o.only = BENCH_UDTF;
			else if (strcmp(optarg, "regex") == 0)
				o.only = BENCH_REGEX;
			else
				goto bad;
			break;
		default:
			goto bad;
		}
	}
	if (optind != argc - 1 || o.table == NULL || o.input == NULL)
		goto bad;
	if ((c = load(path)) == NULL)
		return 1;
	r = bench_udtf(c, &o, stdout);
	conf_free(c);
	return r;
bad:
	usage(stderr);
	return 2;
}

static int
cmd_config_reference(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		usage(stderr);
		return 2;
	}
	conf_write_reference(stdout);
	return 0;
}

static int
cmd_version(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("kedge %s\n", KEDGE_VERSION);
	return 0;
}

static int
cmd_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	usage(stdout);
	return 0;
}

/* A subcommand: its name (argv[1]), what runs it (given argv from the
 * name on), and its usage: the synopsis after "kedge NAME" and the
 * paragraph that says what it does, its first line led by the label it
 * goes by.  A '\n' in either continues on a line indented to the
 * paragraphs' text.  An alias has no synopsis and is not listed. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
	const char *help;
};

static const struct command commands[] = {
	{ "run", cmd_run, "[-c FILE] [--exit-at-end]",
	    "run             consume, parse and land rows until SIGTERM or SIGINT" },
	{ "check-config", cmd_check_config, "[-c FILE] [--online] [--json]",
	    "check-config    parse and check the configuration as run would (keys,\n"
	    "UDTFs, librdkafka's properties, files, keytab), print\n"
	    "\"configuration OK\" or every error, FILE:LINE: key:\n"
	    "what; exit 0 or 1.  --online also logs in and asks\n"
	    "the brokers for the topics; --json prints one JSON\n"
	    "document {\"ok\", \"errors\", \"warnings\"}" },
	{ "verify", cmd_verify, "DIR | URL [--user NAME] [--ca-file PEM]",
	    "verify DIR      check that the part files landed in DIR (output.local_dir)\n"
	    "hold every offset exactly once and agree with their\n"
	    "hours' manifests; print \"verify OK: ...\" or the first\n"
	    "violation; exit 0 or 1 (2: DIR unreadable).  A\n"
	    "WebHDFS or HttpFS URL (https://namenode:9871/dir)\n"
	    "is copied to $TMPDIR first, with SPNEGO from the\n"
	    "default credential cache or as --user NAME; an\n"
	    "https URL's certificate checked with --ca-file's CAs" },
	{ "report", cmd_report, "[-c FILE] --from YYYYMMDDHH --to YYYYMMDDHH\n"
	    "[--table NAME]",
	    "report          print as TSV, per table and hour from --from to --to\n"
	    "(dt and hr, inclusive), what the hour's manifest says\n"
	    "or, for an hour not complete yet, its files and rows,\n"
	    "read from output.target; exit 0, or 1 when a manifest\n"
	    "or sidecar does not parse" },
	{ "parse", cmd_parse, "--table NAME [-c FILE] [--json] [FILE]",
	    "parse           run a table's UDTFs over sample records (FILE or\n"
	    "stdin, one a line) and print what each would become:\n"
	    "its rows as the table lands them, with their hour\n"
	    "(dt=YYYYMMDD/hr=HH), or why it would be rejected" },
	{ "checkpoint", cmd_checkpoint, "show [-c FILE]",
	    "checkpoint show print the last checkpoint record in the store" },
	{ "status", cmd_status, "[-c FILE]",
	    "status          print what the daemon last reported: records, rows,\n"
	    "rejects and UDTF ns/record per table, the slowest\n"
	    "records, checkpoints; and whether it still runs" },
	{ "bench", cmd_bench, "udtf [-c FILE] --table NAME --input FILE\n"
	    "[--delimiter C] [--regex PATTERN] [--seconds S]\n"
	    "[--passes N [--only udtf|regex]]\n"
	    "bench consume [-c FILE]",
	    "bench udtf      run a table's UDTF chain over a file of records (one\n"
	    "per line, or per --delimiter byte: \\n, \\0, \\t or one\n"
	    "character) on one core and print records/s, ns/record,\n"
	    "percentiles, rows, rejects, the cost of timing, and\n"
	    "a PCRE2-JIT regex doing the same extraction as a ratio\n"
	    "(--regex; derived from the log_format for nginx), over\n"
	    "the records the regex matches; --passes: N passes and\n"
	    "no clock, for an instruction counter\n"
	    "bench consume   read the topics to their end with kedge's\n"
	    "consumer, dropping every record unparsed, and print the\n"
	    "rate, CPU time and peak RSS: fetching alone" },
	{ "config-reference", cmd_config_reference, "",
	    "config-reference  print every configuration key as Markdown" },
	{ "--version", cmd_version, "", NULL },
	{ "version", cmd_version, NULL, NULL },
	{ "--help", cmd_help, NULL, NULL },
	{ "help", cmd_help, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

/* Writes s, each line after a '\n' indented to the paragraphs' text. */
static void
usage_lines(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		fputc(*s, out);
		if (*s == '\n')
			fputs("                  ", out);
	}
}

/* The synopsis of every listed command, what each does, and the options. */
static void
usage(FILE *out)
{
	const struct command *c;
	const char *lead = "usage:";

	for (c = commands; c->name != NULL; c++) {
		if (c->synopsis == NULL)
			continue;
		fprintf(out, "%s kedge %s%s", lead, c->name,
		    c->synopsis[0] != '\0' ? " " : "");
		usage_lines(out, c->synopsis);
		fputc('\n', out);
		lead = "      ";
	}
	fputc('\n', out);
	for (c = commands; c->name != NULL; c++) {
		if (c->help == NULL)
			continue;
		fputs("  ", out);
		usage_lines(out, c->help);
		fputc('\n', out);
	}
	fprintf(out, "\n"
	    "  -c, --config FILE  configuration file (default " CONF_DEFAULT_PATH ")\n"
	    "  --exit-at-end      (run) stop once every partition is read to its end\n");
}

/* What systemd/kedge.service's UMask= says, whatever the shell that
 * started kedge says: no file kedge makes is writable by its group or
 * readable by others.  A stricter mask stays. */
#define KEDGE_UMASK 027

int
main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";

	umask(umask(0) | KEDGE_UMASK);

	for (const struct command *c = commands; c->name != NULL; c++)
		if (strcmp(name, c->name) == 0)
			return c->run(argc - 1, argv + 1);
	usage(stderr);
	return 2;
}
