/*
 * fuzz_webhdfs: the input is a WebHDFS or HttpFS answer, as a server
 * (hostile or broken) might send it; byte 0 picks the reader (% 4: the
 * FileStatus of GETFILESTATUS, the FileStatuses of LISTSTATUS, or with
 * bit 2 set the DirectoryListing of LISTSTATUS_BATCH after "m", the
 * boolean of MKDIRS/RENAME/DELETE, the RemoteException of a refusal), the
 * rest is the body.  Each reader must return its documented values only,
 * write a reason when it refuses, never hand on a listed name that is "",
 * ".", "..", or holds a '/' (nor, after "m", one that does not sort after
 * it), and keep a RemoteException's text within its buffer and free of
 * control bytes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/target/webhdfs_answer.h"
#include "fuzz/fuzzkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* arg: the startAfter of the request, or NULL */
static int
fuzz_on_entry(const char *name, int is_dir, int64_t len, void *arg)
{
	const char *after = arg;

	if (name[0] == '\0' || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || strchr(name, '/') != NULL ||
	    (after != NULL && strcmp(name, after) <= 0))
		fuzzkit_die("webhdfs_answer_list", "a listed name that is no "
		    "entry of a directory");
	if ((is_dir != 0 && is_dir != 1) || len < 0 || (is_dir && len != 0))
		fuzzkit_die("webhdfs_answer_list", "an entry's type or length "
		    "out of range");
	return 0;
}

static void
fuzz_check_err(const char *who, int r, const char *err)
{
	if (r < 0 && (err[0] == '\0' || memchr(err, '\0', 512) == NULL))
		fuzzkit_die(who, "refused without a reason");
}

static void
fuzz_check_text(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n == size)
		fuzzkit_die("webhdfs_answer_exception", "a text without its NUL");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			fuzzkit_die("webhdfs_answer_exception", "a text with a "
			    "control byte");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], exc[64], msg[256];
	const char *body = (const char *)data + 1;
	size_t len = size - 1;
	int64_t length;
	int is_dir, more, r;

	if (size == 0)
		return 0;
	err[0] = '\0';
	switch (data[0] % 4) {
	case 0:
		r = webhdfs_answer_status(body, len, "S", &is_dir, &length, err,
		    sizeof(err));
		if (r != 0 && r != -EPROTO)
			fuzzkit_die("webhdfs_answer_status", "returned %d", r);
		if (r == 0 && (length < 0 || (is_dir != 0 && is_dir != 1)))
			fuzzkit_die("webhdfs_answer_status", "a length or type out "
			    "of range");
		fuzz_check_err("webhdfs_answer_status", r, err);
		break;
	case 1:
		if (data[0] & 4)
			r = webhdfs_answer_list(body, len, "L", "m", &more,
			    fuzz_on_entry, (void *)"m", err, sizeof(err));
		else
			r = webhdfs_answer_list(body, len, "L", NULL, NULL,
			    fuzz_on_entry, NULL, err, sizeof(err));
		if (r != 0 && r != -EPROTO && r != -E2BIG)
			fuzzkit_die("webhdfs_answer_list", "returned %d", r);
		fuzz_check_err("webhdfs_answer_list", r, err);
		break;
	case 2:
		r = webhdfs_answer_boolean(body, len, "B", err, sizeof(err));
		if (r != 0 && r != 1 && r != -EPROTO)
			fuzzkit_die("webhdfs_answer_boolean", "returned %d", r);
		fuzz_check_err("webhdfs_answer_boolean", r, err);
		break;
	default:
		webhdfs_answer_exception(body, len, exc, sizeof(exc), msg,
		    sizeof(msg));
		fuzz_check_text(exc, sizeof(exc));
		fuzz_check_text(msg, sizeof(msg));
		break;
	}
	return 0;
}
