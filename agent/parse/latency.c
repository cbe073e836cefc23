#include "agent/parse/latency.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const struct latency_quantile latency_quantiles[LATENCY_NQUANTILES] = {
	{ 0.5, "p50" },
	{ 0.9, "p90" },
	{ 0.99, "p99" },
	{ 0.999, "p99.9" },
};

/* Puts rec among the slowest, dropping the fastest of them when full. */
void
latency_keep_slow(struct latency *l, uint64_t ns, const struct udtf_record *rec)
{
	struct latency_slow s;
	size_t i;

	snprintf(s.topic, sizeof(s.topic), "%s", rec->topic ? rec->topic : "");
	s.partition = rec->partition;
	s.offset = rec->offset;
	s.ns = ns;
	if (l->nslow < LATENCY_SLOWEST) {
		i = l->nslow++;
	} else {
		/* slow[0] is the fastest: it leaves */
		i = 0;
		for (; i + 1 < l->nslow && l->slow[i + 1].ns < ns; i++)
			l->slow[i] = l->slow[i + 1];
		l->slow[i] = s;
		return;
	}
	for (; i > 0 && l->slow[i - 1].ns > ns; i--)
		l->slow[i] = l->slow[i - 1];
	l->slow[i] = s;
}

void
latency_describe(const struct latency *l, char *buf, size_t len)
{
	const struct hist *h = &l->hist;
	size_t at;

	at = (size_t)snprintf(buf, len, "mean %" PRIu64,
	    h->count ? h->sum_ns / h->count : 0);
	for (size_t i = 0; i < LATENCY_NQUANTILES && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, " %s %" PRIu64,
		    latency_quantiles[i].name,
		    hist_quantile(h, latency_quantiles[i].q));
	if (at < len)
		snprintf(buf + at, len - at, " max %" PRIu64, h->max_ns);
}

void
latency_describe_slow(const struct latency_slow *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s [%" PRId32 "] offset %" PRId64 ": %" PRIu64
	    " ns", s->topic, s->partition, s->offset, s->ns);
}
