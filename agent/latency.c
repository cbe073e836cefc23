#include "latency.h"

#include <stdio.h>
#include <string.h>

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
