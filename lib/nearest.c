#include "lib/nearest.h"

#include <stdint.h>
#include <string.h>

static size_t
nearest_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

size_t
nearest_distance(const char *a, size_t alen, const char *b, size_t blen)
{
	/* three rows of the table: i - 2, i - 1 and i */
	size_t rows[3][NEAREST_NAME_MAX + 1];

	if (alen > NEAREST_NAME_MAX || blen > NEAREST_NAME_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= blen; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= alen; i++) {
		size_t *cur = rows[i % 3], *up = rows[(i - 1) % 3];
		size_t *up2 = rows[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= blen; j++) {
			cur[j] = nearest_min(nearest_min(up[j] + 1, cur[j - 1] + 1),
			    up[j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				cur[j] = nearest_min(cur[j], up2[j - 2] + 1);
		}
	}
	return rows[alen % 3][blen];
}

int
nearest_closer(const char *a, size_t alen, const char *b, size_t blen,
    size_t max, size_t *best)
{
	size_t d = nearest_distance(a, alen, b, blen);

	if (d > max || d >= *best)
		return 0;
	*best = d;
	return 1;
}
