#include "lib/grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int
grow_array(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : size < GROW_MIN_BYTES ? GROW_MIN_BYTES / size : 1;
	/* where doubling would overflow, exactly need */
	while (ncap < need)
		ncap = ncap > SIZE_MAX / size / 2 ? need : ncap * 2;
	/* said here, not left to reallocarray: a sanitizer's reallocarray
	 * aborts on an overflow instead of failing with ENOMEM */
	if (ncap > SIZE_MAX / size ||
	    (np = reallocarray(*p, ncap, size)) == NULL)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}
