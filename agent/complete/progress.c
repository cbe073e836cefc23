#include "agent/complete/progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsondoc.h"

static const char *const progress_keys[] = { "host", "max_event_us",
    "pending_us", "at_end", "last_record", "written" };
#define PROGRESS_NKEYS (sizeof(progress_keys) / sizeof(progress_keys[0]))

/* Reads value i of progress_keys into the progress arg. */
static int
progress_value(struct jsondoc *d, size_t i, const json_t *v, void *arg)
{
	struct progress *p = arg;
	int64_t at_end;
	int r;

	if (v == NULL)
		return jsondoc_missing(d, progress_keys[i]);
	switch (i) {
	case 0:
		if ((r = jsondoc_string(d, v, &p->host)) == 0 &&
		    p->host[0] == '\0')
			return jsondoc_fail(d, "empty");
		return r;
	case 1:
		return jsondoc_int_or_null(d, v, -PROGRESS_US_MAX,
		    PROGRESS_US_MAX, PROGRESS_NO_MAX, &p->max_event_us);
	case 2:
		return jsondoc_int_or_null(d, v, -PROGRESS_US_MAX,
		    PROGRESS_US_MAX, PROGRESS_NO_PENDING, &p->pending_us);
	case 3:
		if ((r = jsondoc_int(d, v, 0, 1, &at_end)) == 0)
			p->at_end = (int)at_end;
		return r;
	case 4:
		return jsondoc_int(d, v, 0, INT64_MAX, &p->last_record);
	default:
		return jsondoc_int(d, v, 0, INT64_MAX, &p->written);
	}
}

int
progress_parse(const char *text, size_t len, struct progress *p, char *err,
    size_t errlen)
{
	struct jsondoc d = JSONDOC_INIT(err, errlen);
	json_t *root;
	int r;

	memset(p, 0, sizeof(*p));
	if ((root = jsondoc_parse(&d, text, len)) == NULL)
		return -EINVAL;
	r = jsondoc_fields(&d, root, progress_keys, PROGRESS_NKEYS,
	    progress_value, p);
	json_decref(root);
	return r;
}

/* t within the bounds the parser holds it to; none stays none. */
static int64_t
progress_clamp(int64_t t, int64_t none)
{
	if (t == none)
		return t;
	return t > PROGRESS_US_MAX ? PROGRESS_US_MAX : t < -PROGRESS_US_MAX ?
	    -PROGRESS_US_MAX : t;
}

int
progress_format(const struct progress *p, struct buf *out)
{
	json_t *o = json_object();
	int r;

	if (o == NULL)
		return -ENOMEM;
	if ((r = jsondoc_set_str(o, "host", p->host)) == 0 &&
	    (r = jsondoc_set_int_or_null(o, "max_event_us",
	    progress_clamp(p->max_event_us, PROGRESS_NO_MAX),
	    PROGRESS_NO_MAX)) == 0 &&
	    (r = jsondoc_set_int_or_null(o, "pending_us",
	    progress_clamp(p->pending_us, PROGRESS_NO_PENDING),
	    PROGRESS_NO_PENDING)) == 0 &&
	    (r = jsondoc_set_int(o, "at_end", p->at_end ? 1 : 0)) == 0 &&
	    (r = jsondoc_set_int(o, "last_record", p->last_record)) == 0 &&
	    (r = jsondoc_set_int(o, "written", p->written)) == 0)
		r = jsondoc_dump(o, out);
	json_decref(o);
	return r;
}

void
progress_clear(struct progress *p)
{
	if (p == NULL)
		return;
	free(p->host);
	memset(p, 0, sizeof(*p));
}
