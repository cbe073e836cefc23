/*
 * jsonpath: the trie of paths and the scan; see jsonpath.h.
 *
 * The paths are a trie of members and array elements: one from the
 * document's root and, with explode, one from each element of the explode
 * array.  The scan reads the document once, left to right and without
 * recursion, checking all of it as RFC 8259 says; it descends only into the
 * members and elements some path needs (a hash table per node finds the
 * members) and records where each wanted value lies.
 */
#include "agent/udtf/jsonpath.h"

#include "lib/digits.h"
#include "lib/err.h"
#include "lib/grow.h"
#include "lib/le.h"
#include "lib/utf8.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The scan's hot helpers, inlined into jsonpath_walk() so that its loop
 * keeps the position in a register: GCC's heuristics leave some out. */
#define JSONPATH_HOT static inline __attribute__((always_inline))
#define JSONPATH_INDEX_DIGITS 9 /* [N] below a billion */

/* A step of some path.  Children are two lists of sibling indexes into the
 * node array: members by name, elements by index. */
struct jsonpath_node {
	const char *name;  /* a member's name, not NUL-terminated */
	size_t namelen;
	size_t index;      /* an element's index */
	int members;       /* the first member child, -1: none */
	int elements;      /* the first element child, -1: none */
	int next;          /* the next sibling of the same list, -1: none */
	int nmembers;
	int table;         /* its members by hash: buckets[table..+mask] */
	uint64_t keys;     /* key_bit() of each member's name */
	unsigned mask;
	int slot;          /* where its value is recorded, -1: nowhere */
	int explode;       /* the explode array */
	/* pointers, as the nodes stay where they are once sealed: */
	struct jsonpath_node *first;  /* the member found first last time */
	struct jsonpath_node *follow; /* the sibling found after it then */
	uint64_t seen;     /* the visit that last took it: the first key wins */
	uint64_t head;     /* a member's first (up to) eight name bytes */
	uint64_t head_mask; /* the bytes of a word that head holds */
	/* its key and colon as a compact record writes them, "NAME":, in two
	 * words, when that is 16 bytes at most and holds no byte a string
	 * escapes; key_mask[0] is 0 when not */
	uint64_t key[2];
	uint64_t key_mask[2];
};

struct jsonpath {
	struct jsonpath_node *nodes; /* [0]: the document's root */
	size_t nnodes, nodes_cap;
	int *buckets;                /* node indexes, -1: empty */
	int elem_root;               /* "@", the explode element; -1: none */
	char *explode;               /* the explode path */
	size_t nroot_slots, nelem_slots;
	struct jsonpath_value *root; /* per document */
	struct jsonpath_value *elems; /* nelem_slots per element */
	size_t nelems, elems_cap;    /* in elements */
	size_t max_elems;            /* elements whose values are recorded */
	char *keybuf;                /* an unescaped key, up to maxname bytes */
	size_t maxname;
	uint64_t gen;                /* visits so far */
};

/* One scan of a document. */
struct jsonpath_pass {
	struct jsonpath *jp;
	const char *base, *end;
	struct jsonpath_value *slots; /* the root's or the element's */
	uint64_t gen, root_gen;       /* the trie's current visit */
	char *err;
	size_t errlen;
	int error;                    /* -EINVAL or -ENOMEM, with err */
};

/* An array or object the scan is in. */
struct jsonpath_frame {
	struct jsonpath_node *node;   /* NULL: nothing in it is wanted */
	const char *start;
	char close;                   /* ']' or '}' */
	int found;                    /* members of node found */
	size_t index;                 /* elements read */
	struct jsonpath_node *last;   /* the member of node found last */
};

static const char *const jsonpath_kind_names[] = {
	[JSONPATH_MISSING] = "missing", [JSONPATH_NULL] = "null",
	[JSONPATH_FALSE] = "a bool", [JSONPATH_TRUE] = "a bool",
	[JSONPATH_NUMBER] = "a number", [JSONPATH_STRING] = "a string",
	[JSONPATH_OBJECT] = "an object", [JSONPATH_ARRAY] = "an array",
};

const char *
jsonpath_kind_name(enum jsonpath_kind kind)
{
	return jsonpath_kind_names[kind];
}

/* The scan.  The functions take the position p and return the position
 * past what they read, or NULL with a reason in sc->err. */

static int
fail_at(struct jsonpath_pass *sc, const char *at, const char *what)
{
	if (at == sc->end)
		what = "unexpected end of record";
	snprintf(sc->err, sc->errlen, "byte %zu: %s", (size_t)(at - sc->base),
	    what);
	return sc->error = -EINVAL;
}

static const char *
fail(struct jsonpath_pass *sc, const char *at, const char *what)
{
	fail_at(sc, at, what);
	return NULL;
}

/* Kept apart from scan_string(), whose hot path it would slow. */
static const char *
fail_control(struct jsonpath_pass *sc, const char *at)
{
	char reason[64];

	snprintf(reason, sizeof(reason), "control byte 0x%02x in a string; it "
	    "must be escaped", (unsigned char)*at);
	return fail(sc, at, reason);
}

/* Most records are compact: the first byte settles it. */
JSONPATH_HOT const char *
skip_ws(const char *p, const char *end)
{
	while (p < end && (unsigned char)*p <= ' ' && (*p == ' ' ||
	    *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* skip_ws() before the byte c that the caller expects next: when c is
 * there at once, as in a compact record, the caller's own test of it
 * folds into this one. */
JSONPATH_HOT const char *
skip_ws_to(const char *p, const char *end, char c)
{
	if (p < end && *p == c)
		return p;
	return skip_ws(p, end);
}

/* Returns the first byte in [p, end) that a string cannot hold as is: a
 * quote, a backslash or a control byte; end when there is none.  Sixteen
 * bytes at a time with SSE2 (always there on x86-64), then eight, as the
 * exact "has a zero byte" test of each word says where the first such byte
 * is; never reading past end. */
JSONPATH_HOT const char *
string_stop(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
#if defined(__SSE2__)
	const __m128i flip = _mm_set1_epi8(0x02), bslash = _mm_set1_epi8('\\'),
	    space = _mm_set1_epi8(0x20);

	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* v ^ 2 keeps control bytes below 0x20 and turns the quote
		 * into 0x20: min(v ^ 2, 0x20) == v ^ 2 finds both at once */
		__m128i t = _mm_xor_si128(v, flip);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(_mm_min_epu8(t, space), t),
		    _mm_cmpeq_epi8(v, bslash)));

		if (m != 0)
			return p + __builtin_ctz(m);
	}
#endif
	for (; end - p >= 8; p += 8) {
		uint64_t w, q, b, c, hit;

		/* the first byte lowest: the lowest hit is exact */
		w = le_get64(p);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		c = (w - ones * 0x20) & ~w;
		hit = (((q - ones) & ~q) | ((b - ones) & ~b) | c) & highs;
		/* as a continue: "if (hit != 0) return" lays the inlined walk
		 * out otherwise, 86 instructions a record more (callgrind) */
		if (hit == 0)
			continue;
		return p + (__builtin_ctzll(hit) >> 3);
	}
	for (; p < end; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
			break;
	return p;
}

/* Reads the escape at p, a backslash inside the string opened at open. */
static const char *
scan_escape(struct jsonpath_pass *sc, const char *open, const char *p)
{
	if (sc->end - p < 2)
		return fail(sc, open, "unterminated string");
	if (p[1] != 'u') {
		if (strchr("\"\\/bfnrt", p[1]) == NULL || p[1] == '\0')
			return fail(sc, p, "invalid escape in a string");
		return p + 2;
	}
	for (int i = 2; i < 6; i++) {
		if (p + i == sc->end)
			return fail(sc, open, "unterminated string");
		if (utf8_hex_value(p[i]) < 0)
			return fail(sc, p, "\\u needs four hex digits");
	}
	return p + 6;
}

/* Reads the string at p (a quote); sets *escaped when it holds a
 * backslash. */
JSONPATH_HOT const char *
scan_string(struct jsonpath_pass *sc, const char *p, int *escaped)
{
	const char *open = p;

	for (p++;; ) {
		p = string_stop(p, sc->end);
		if (p == sc->end)
			return fail(sc, open, "unterminated string");
		if (*p == '"')
			return p + 1;
		if (*p != '\\')
			return fail_control(sc, p);
		*escaped = 1;
		if ((p = scan_escape(sc, open, p)) == NULL)
			return NULL;
	}
}

static inline int
jsonpath_is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* Reads one or more digits; eight at a time where eight bytes can be
 * read, so that a number's length costs no mispredicted branch a digit. */
JSONPATH_HOT const char *
scan_digits(struct jsonpath_pass *sc, const char *p)
{
	if (p == sc->end || !jsonpath_is_digit(*p))
		return fail(sc, p, "invalid number");
	for (; sc->end - p >= 8; p += 8) {
		uint64_t other = digits_misfits(le_get64(p) ^
		    DIGITS_ONES * '0', DIGITS_ONES);

		if (other != 0)
			return p + (__builtin_ctzll(other) >> 3);
	}
	while (p < sc->end && jsonpath_is_digit(*p))
		p++;
	return p;
}

/* The most numbers are [0-9]+(\.[0-9]+)? ending within eight bytes:
 * returns the length of the number at the word w of the eight bytes at
 * p, read at once, or 0 when it is not that simple (a sign, a leading
 * zero, no digit after the point, an exponent, or no end in the word),
 * which scan_number() then reads, and tells of, as ever. */
JSONPATH_HOT size_t
number_in_word(const char *p, uint64_t w)
{
	uint64_t other = digits_misfits(w ^ DIGITS_ONES * '0', DIGITS_ONES);
	unsigned n = (unsigned)__builtin_ctzll(other | (UINT64_C(1) << 63)) >> 3;

	if (n == 0 || (p[0] == '0' && n > 1) || n == 7)
		return 0;
	if (p[n] == '.') {
		other &= ~UINT64_C(0) << (8 * n + 8);
		if (other == 0 || (other & (UINT64_C(0x80) << (8 * n + 8))))
			return 0;
		n = (unsigned)__builtin_ctzll(other) >> 3;
	}
	return p[n] == 'e' || p[n] == 'E' ? 0 : n;
}

/* Reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
JSONPATH_HOT const char *
scan_number(struct jsonpath_pass *sc, const char *p)
{
	const char *end = sc->end;
	size_t n;

	if (end - p >= 8 && (n = number_in_word(p, le_get64(p))) != 0)
		return p + n;

	p += *p == '-';
	if (p < end && *p == '0') {
		if (++p < end && jsonpath_is_digit(*p))
			return fail(sc, p - 1, "number with a leading zero");
	} else if ((p = scan_digits(sc, p)) == NULL) {
		return NULL;
	}
	if (p < end && *p == '.' && (p = scan_digits(sc, p + 1)) == NULL)
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		return scan_digits(sc, p);
	}
	return p;
}

/* scan_literal() when the literal is not there: says why. */
static const char *
fail_literal(struct jsonpath_pass *sc, const char *p, const char *lit,
    size_t len)
{
	size_t avail = (size_t)(sc->end - p);

	if (avail < len && memcmp(p, lit, avail) == 0)
		return fail(sc, sc->end, "");
	return fail(sc, p, "invalid literal; expected true, false or null");
}

/* Reads the literal lit ("true", "false" or "null", len 4 or 5) at p: its
 * first four bytes compare as one word. */
JSONPATH_HOT const char *
scan_literal(struct jsonpath_pass *sc, const char *p, const char *lit,
    size_t len)
{
	uint32_t w, l;

	if ((size_t)(sc->end - p) >= len) {
		memcpy(&w, p, 4);
		memcpy(&l, lit, 4);
		if (w == l && (len == 4 || p[4] == lit[4]))
			return p + len;
	}
	return fail_literal(sc, p, lit, len);
}

/* Reads the value at p, which is not an array or an object; sets *kind.
 * A string, the most common, and a number are told apart before the jump
 * table. */
JSONPATH_HOT const char *
scan_scalar(struct jsonpath_pass *sc, const char *p, int *kind,
    int *escaped)
{
	if (*p == '"') {
		*kind = JSONPATH_STRING;
		return scan_string(sc, p, escaped);
	}
	if (*p == '-' || jsonpath_is_digit(*p)) {
		*kind = JSONPATH_NUMBER;
		return scan_number(sc, p);
	}
	switch (*p) {
	case 't':
		*kind = JSONPATH_TRUE;
		return scan_literal(sc, p, "true", 4);
	case 'f':
		*kind = JSONPATH_FALSE;
		return scan_literal(sc, p, "false", 5);
	case 'n':
		*kind = JSONPATH_NULL;
		return scan_literal(sc, p, "null", 4);
	default:
		*kind = JSONPATH_NUMBER;
		return fail(sc, p, "expected a value");
	}
}

/* The value of the four hex digits at s, which scan_escape() checked. */
static long
hex4(const char *s)
{
	return utf8_hex_value(s[0]) << 12 | utf8_hex_value(s[1]) << 8 |
	    utf8_hex_value(s[2]) << 4 | utf8_hex_value(s[3]);
}

/* Decodes the escapes of the string text s[0..len), which scan_string()
 * accepted, into dst: a lone surrogate becomes U+FFFD.  Returns the length
 * written, never more than len, or -1 when it would pass cap (dst holds
 * cap + 4 bytes). */
static long
decode(char *dst, size_t cap, const char *s, size_t len)
{
	size_t o = 0, i = 0;

	while (i < len) {
		const char *bs = memchr(s + i, '\\', len - i);
		size_t run = bs != NULL ? (size_t)(bs - s) - i : len - i;
		long cp, lo;

		if (o + run > cap)
			return -1;
		memcpy(dst + o, s + i, run);
		o += run;
		i += run;
		if (i == len)
			break;
		switch (s[i + 1]) {
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u': cp = -1; break;
		default: cp = s[i + 1]; break;
		}
		i += 2;
		if (cp < 0) {
			cp = hex4(s + i);
			i += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && len - i >= 6 &&
			    s[i] == '\\' && s[i + 1] == 'u' &&
			    (lo = hex4(s + i + 2)) >= 0xdc00 &&
			    lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				i += 6;
			} else if (cp >= 0xd800 && cp <= 0xdfff) {
				cp = 0xfffd;
			}
		}
		o += utf8_put(dst + o, cp);
		if (o > cap)
			return -1;
	}
	return (long)o;
}

static inline unsigned
key_hash(const char *s, size_t len)
{
	unsigned h = (unsigned)len * 0x9e3779b1u;

	if (len > 0)
		h ^= ((unsigned)(unsigned char)s[0] |
		    (unsigned)(unsigned char)s[len / 2] << 8 |
		    (unsigned)(unsigned char)s[len - 1] << 16) * 0x85ebca6bu;
	return h ^ h >> 15;
}

/* A bit of a name of len bytes, len above 0, from its length and first
 * byte: most keys no path wants miss every member's bit, and so the hash
 * table. */
static inline uint64_t
key_bit(const char *s, size_t len)
{
	return (uint64_t)1 << ((len * 7 + (unsigned char)s[0]) & 63);
}

/* Whether node's name is the key text at key, which the record holds with
 * eight bytes at least from key on: its first eight bytes, read as a word,
 * compare at once. */
JSONPATH_HOT int
same_name(const struct jsonpath_node *node, const char *key, size_t len)
{
	uint64_t w;

	memcpy(&w, key, 8);
	return (w & node->head_mask) == node->head && (len <= 8 ||
	    memcmp(node->name + 8, key + 8, len - 8) == 0);
}

/* Returns node's member child named by the key text, or NULL. */
JSONPATH_HOT struct jsonpath_node *
match_member(struct jsonpath_pass *sc, const struct jsonpath_node *node,
    const char *key, size_t len, int escaped)
{
	struct jsonpath *jp = sc->jp;
	const int *table = jp->buckets + node->table;
	int word = !escaped && sc->end - key >= 8;
	long n;

	if (escaped) {
		if ((n = decode(jp->keybuf, jp->maxname, key, len)) < 0)
			return NULL;
		key = jp->keybuf;
		len = (size_t)n;
	}
	if (len == 0 || (node->keys & key_bit(key, len)) == 0)
		return NULL;
	for (unsigned i = key_hash(key, len);; i++) {
		int c = table[i & node->mask];

		if (c < 0)
			return NULL;
		if (jp->nodes[c].namelen == len && (word ?
		    same_name(&jp->nodes[c], key, len) :
		    memcmp(jp->nodes[c].name, key, len) == 0))
			return &jp->nodes[c];
	}
}

/* Returns the member child of f's node that the documents before had
 * next, when it is the key text, or NULL: records mostly hold their keys
 * in one order, and a guess right spares the hash.  For the keys that
 * guess_key() could not take: written with blanks, or long. */
JSONPATH_HOT struct jsonpath_node *
guess_member(struct jsonpath_pass *sc, const struct jsonpath_frame *f,
    const char *key, size_t len, int escaped)
{
	struct jsonpath_node *n = f->last != NULL ? f->last->follow :
	    f->node->first;

	if (n == NULL || escaped)
		return NULL;
	if (n->namelen != len || !(sc->end - key >= 8 ? same_name(n, key, len) :
	    memcmp(n->name, key, len) == 0))
		return NULL;
	return n;
}

/* Reads the key at p (a quote) and the ':' after it when they are, byte
 * for byte, "NAME": of the member that the documents before had next in
 * f's node, NAME plain: no scan of the string is needed, as such bytes
 * make a string without escapes, and two words compare it all.  Returns
 * the position past the ':' and sets *child, or returns NULL to leave the
 * key to the general path. */
JSONPATH_HOT const char *
guess_key(struct jsonpath_pass *sc, const struct jsonpath_frame *f,
    const char *p, struct jsonpath_node **child)
{
	struct jsonpath_node *n = f->last != NULL ? f->last->follow :
	    f->node->first;
	uint64_t w, t;

	if (n == NULL || n->key_mask[0] == 0 || sc->end - p < 16)
		return NULL;
	memcpy(&w, p, 8);
	memcpy(&t, p + 8, 8);
	if ((((w ^ n->key[0]) & n->key_mask[0]) |
	    ((t ^ n->key[1]) & n->key_mask[1])) != 0)
		return NULL;
	*child = n;
	return p + 3 + n->namelen;
}

/* Notes that child, a member of f's node, came after f->last. */
JSONPATH_HOT void
learn_member(struct jsonpath_frame *f, struct jsonpath_node *child)
{
	if (f->last != NULL)
		f->last->follow = child;
	else
		f->node->first = child;
	f->last = child;
}

static struct jsonpath_node *
match_element(struct jsonpath_pass *sc, const struct jsonpath_node *node,
    size_t index)
{
	for (int c = node->elements; c >= 0; c = sc->jp->nodes[c].next)
		if (sc->jp->nodes[c].index == index)
			return &sc->jp->nodes[c];
	return NULL;
}

/* Begins an element of the explode array: its values, in a block of their
 * own, start missing; its trie starts a new visit.  Past max_elems an
 * element is only counted: *node becomes NULL, nothing in it wanted. */
static int
begin_element(struct jsonpath_pass *sc, struct jsonpath_node **node)
{
	struct jsonpath *jp = sc->jp;

	if (jp->nelems >= jp->max_elems) {
		jp->nelems++;
		*node = NULL;
		return 0;
	}
	*node = &jp->nodes[jp->elem_root];
	/* without element paths an element needs no block */
	if (jp->nelems == jp->elems_cap && jp->nelem_slots > 0) {
		/* an element is nelem_slots values */
		if (grow_array((void **)&jp->elems, &jp->elems_cap,
		    jp->nelems + 1, jp->nelem_slots * sizeof(*jp->elems)) < 0) {
			snprintf(sc->err, sc->errlen, "out of memory");
			return sc->error = -ENOMEM;
		}
	}
	sc->slots = jp->elems + jp->nelems++ * jp->nelem_slots;
	memset(sc->slots, 0, jp->nelem_slots * sizeof(*sc->slots));
	sc->gen = ++jp->gen;
	return 0;
}

/* Sets *node to child, the member of f's node whose key was read, unless
 * an earlier member had the same key: the first wins. */
JSONPATH_HOT void
take_member(struct jsonpath_pass *sc, struct jsonpath_frame *f,
    struct jsonpath_node *child, struct jsonpath_node **node)
{
	if (child->seen != sc->gen) {
		child->seen = sc->gen;
		f->found++;
		learn_member(f, child);
		*node = child;
	}
}

/* Begins the next member or element of the container f, at p: reads a
 * member's key and ':', and sets *node to the child that is wanted, if
 * any.  The first of two members with the same key wins. */
JSONPATH_HOT const char *
next_item(struct jsonpath_pass *sc, struct jsonpath_frame *f, const char *p,
    struct jsonpath_node **node)
{
	struct jsonpath_node *parent = f->node, *child = NULL;
	const char *key;
	int escaped = 0;

	*node = NULL;
	if (f->close == ']') {
		if (parent != NULL && parent->explode) {
			if (begin_element(sc, node) < 0)
				return NULL;
		} else if (parent != NULL && parent->elements >= 0) {
			*node = match_element(sc, parent, f->index++);
		}
		return p;
	}
	if (p == sc->end || *p != '"')
		return fail(sc, p, "expected a string as object key");
	if (parent != NULL && f->found < parent->nmembers &&
	    (key = guess_key(sc, f, p, &child)) != NULL) {
		take_member(sc, f, child, node);
		return key;
	}
	key = p + 1;
	if ((p = scan_string(sc, p, &escaped)) == NULL)
		return NULL;
	if (parent != NULL && f->found < parent->nmembers &&
	    ((child = guess_member(sc, f, key, (size_t)(p - 1 - key),
	    escaped)) != NULL || (child = match_member(sc, parent, key,
	    (size_t)(p - 1 - key), escaped)) != NULL))
		take_member(sc, f, child, node);
	p = skip_ws_to(p, sc->end, ':');
	if (p == sc->end || *p != ':')
		return fail(sc, p, "expected ':' after an object key");
	return p + 1;
}

/* Records the value [start, p) of kind for node, when a path ends there. */
JSONPATH_HOT const char *
took(struct jsonpath_pass *sc, const struct jsonpath_node *node,
    const char *start, const char *p, int kind, int escaped)
{
	struct jsonpath_value *s;

	if (node->explode && kind != JSONPATH_ARRAY && kind != JSONPATH_NULL) {
		snprintf(sc->err, sc->errlen, "explode path %s is %s, not an "
		    "array", sc->jp->explode, jsonpath_kind_name(kind));
		sc->error = -EINVAL;
		return NULL;
	}
	if (node->slot >= 0) {
		s = &sc->slots[node->slot];
		s->p = start;
		s->len = (size_t)(p - start);
		s->kind = (unsigned char)kind;
		s->escaped = (unsigned char)escaped;
	}
	return p;
}

/* Leaves the container f, whose close ends at p. */
static const char *
close_container(struct jsonpath_pass *sc, const struct jsonpath_frame *f,
    const char *p)
{
	if (f->node->explode) {
		sc->slots = sc->jp->root;
		sc->gen = sc->root_gen;
	}
	return took(sc, f->node, f->start, p, f->close == '}' ?
	    JSONPATH_OBJECT : JSONPATH_ARRAY, 0);
}

/* Checks the array or object at p, in which no path wants anything, by
 * the walk's rules but without its frames and trie: bit i of objects says
 * whether the container i levels up is an object.  Returns the position
 * past it, or NULL when the container is wrong or nests more than room
 * levels: the walk then reads it again and says what is wrong. */
JSONPATH_HOT const char *
skip_container(struct jsonpath_pass *sc, const char *p, int room)
{
	const char *end = sc->end;
	uint64_t objects = 0;
	int depth = 0, kind, escaped;

	for (;;) {
		/* at a value, p < end */
		if (*p == '{' || *p == '[') {
			if (depth == room)
				return NULL;
			objects = objects << 1 | (*p == '{');
			depth++;
			p = skip_ws(p + 1, end);
			if (p == end || *p != (objects & 1 ? '}' : ']'))
				goto item;
			p++;
			depth--;
			objects >>= 1;
		} else if ((p = scan_scalar(sc, p, &kind, &escaped)) == NULL) {
			return NULL;
		}
		/* after a value: close containers until one goes on */
		for (;;) {
			if (depth == 0)
				return p;
			p = skip_ws_to(p, end, ',');
			if (p < end && *p == ',') {
				p = skip_ws_to(p + 1, end, '"');
				break;
			}
			if (p == end || *p != (objects & 1 ? '}' : ']'))
				return NULL;
			p++;
			depth--;
			objects >>= 1;
		}
item:
		if (objects & 1) {
			if (p == end || *p != '"' ||
			    (p = scan_string(sc, p, &escaped)) == NULL)
				return NULL;
			p = skip_ws_to(p, end, ':');
			if (p == end || *p != ':')
				return NULL;
			p = skip_ws(p + 1, end);
		}
		if (p == end)
			return NULL;
	}
}

/* Reads the document, one JSON value, without recursion: stack holds the
 * arrays and objects the scan is in, each with the trie node that wants
 * something in it (NULL: nothing, the container is only checked).
 * Returns 0 or sc->error. */
static int
jsonpath_walk(struct jsonpath_pass *sc)
{
	struct jsonpath_frame stack[JSONPATH_MAX_DEPTH], *f;
	struct jsonpath_node *node = &sc->jp->nodes[0];
	const char *p = sc->base, *end = sc->end, *start, *skipped;
	int depth = 0, kind, escaped;

	for (;;) {
		/* at a value, for node */
		if ((p = skip_ws(p, end)) == end)
			return fail_at(sc, p, "");
		start = p;
		if ((*p == '{' || *p == '[') && node == NULL &&
		    (skipped = skip_container(sc, p, JSONPATH_MAX_DEPTH -
		    depth)) != NULL) {
			p = skipped;
		} else if (*p == '{' || *p == '[') {
			if (depth == JSONPATH_MAX_DEPTH)
				return fail_at(sc, p, "nesting deeper than 64");
			f = &stack[depth++];
			*f = (struct jsonpath_frame){ node, p,
			    *p == '{' ? '}' : ']', 0, 0, NULL };
			p = skip_ws(p + 1, end);
			if (p == end || *p != f->close) {
				if ((p = next_item(sc, f, p, &node)) == NULL)
					return sc->error;
				continue;
			}
		} else {
			escaped = 0;
			if ((p = scan_scalar(sc, p, &kind, &escaped)) == NULL ||
			    (node != NULL && took(sc, node, start, p, kind,
			    escaped) == NULL))
				return sc->error;
		}
		/* after a value: close containers until one goes on */
		for (;;) {
			if (depth == 0) {
				if ((p = skip_ws(p, end)) != end)
					return fail_at(sc, p, "trailing bytes "
					    "after the JSON value");
				return 0;
			}
			f = &stack[depth - 1];
			p = skip_ws_to(p, end, ',');
			if (p < end && *p == ',') {
				p = skip_ws_to(p + 1, end, '"');
				if ((p = next_item(sc, f, p, &node)) == NULL)
					return sc->error;
				break;
			}
			if (p == end || *p != f->close)
				return fail_at(sc, p, f->close == '}' ?
				    "expected ',' or '}' in an object" :
				    "expected ',' or ']' in an array");
			depth--;
			p++;
			if (f->node != NULL &&
			    close_container(sc, f, p) == NULL)
				return sc->error;
		}
	}
}

/* Compiling the paths. */

/* Returns the index of a new node without children or value, or -1 when
 * memory runs out. */
static int
new_node(struct jsonpath *jp)
{
	struct jsonpath_node *n;

	/* a node's index is an int */
	if (jp->nnodes >= INT32_MAX ||
	    grow_array((void **)&jp->nodes, &jp->nodes_cap, jp->nnodes + 1,
	    sizeof(*jp->nodes)) < 0)
		return -1;
	n = &jp->nodes[jp->nnodes];
	memset(n, 0, sizeof(*n));
	n->members = n->elements = n->next = n->slot = -1;
	return (int)jp->nnodes++;
}

/* Returns the index of parent's child named name (or, when name is NULL,
 * the element index), added when missing; -1 when memory runs out. */
static int
child_of(struct jsonpath *jp, int parent, const char *name, size_t len,
    size_t index)
{
	struct jsonpath_node *p, *n;
	int c;

	p = &jp->nodes[parent];
	for (c = name != NULL ? p->members : p->elements; c >= 0;
	    c = jp->nodes[c].next) {
		n = &jp->nodes[c];
		if (name != NULL ? n->namelen == len &&
		    memcmp(n->name, name, len) == 0 : n->index == index)
			return c;
	}
	if ((c = new_node(jp)) < 0)
		return -1;
	p = &jp->nodes[parent];
	n = &jp->nodes[c];
	n->name = name;
	n->namelen = len;
	n->index = index;
	if (name != NULL) {
		n->next = p->members;
		p->members = c;
		p->nmembers++;
		if (len > jp->maxname)
			jp->maxname = len;
	} else {
		n->next = p->elements;
		p->elements = c;
	}
	return c;
}

/* Reads "[N]" at *s into *index. */
static int
path_index(const char **s, size_t *index)
{
	const char *p = *s + 1;

	*index = 0;
	for (; jsonpath_is_digit(*p) && p - *s <= JSONPATH_INDEX_DIGITS; p++)
		*index = *index * 10 + (size_t)(*p - '0');
	if (p == *s + 1 || *p != ']')
		return -EINVAL;
	*s = p + 1;
	return 0;
}

/* Adds the steps of path, from s on, below node; sets *leaf to the last.
 * name says whether s starts with a member name or with "[N]".  key names
 * the configuration key for the reasons. */
static int
path_add(struct jsonpath *jp, const char *key, const char *path,
    const char *s, int name, int node, int *leaf, char *err, size_t errlen)
{
	for (int steps = 1;; steps++) {
		size_t len = 0, index = 0;
		const char *at = s;

		if (jp->nodes[node].explode) {
			return err_set(err, errlen, -EINVAL,
			    "%s: path \"%s\" goes into the "
			    "explode array %s; reach its elements with a path "
			    "starting with @", key, path, jp->explode);
		}
		if (steps > JSONPATH_MAX_DEPTH) {
			return err_set(err, errlen, -EINVAL,
			    "%s: path \"%s\" is deeper than "
			    "%d, which no document may be", key, path,
			    JSONPATH_MAX_DEPTH);
		}
		if (name && (len = strcspn(s, ".[]")) == 0) {
			return err_set(err, errlen, -EINVAL,
			    "%s: path \"%s\" has an empty "
			    "member name at byte %zu", key, path,
			    (size_t)(s - path));
		}
		if (!name && path_index(&s, &index) < 0) {
			return err_set(err, errlen, -EINVAL,
			    "%s: path \"%s\": write an array "
			    "index as [N], N a decimal number below 10^9", key,
			    path);
		}
		s += len;
		if ((node = child_of(jp, node, name ? at : NULL, len,
		    index)) < 0) {
			return err_set(err, errlen, -ENOMEM, "out of memory");
		}
		if (*s == '\0')
			break;
		if (*s != '.' && *s != '[') {
			return err_set(err, errlen, -EINVAL,
			    "%s: path \"%s\": expected '.', "
			    "'[' or the end at byte %zu", key, path,
			    (size_t)(s - path));
		}
		name = *s == '.';
		s += name;
	}
	*leaf = node;
	return 0;
}

/* A path is relative to the explode element when it is "@" or starts
 * with "@." or "@[" ("@timestamp" is a member of the root). */
static int
is_relative(const char *path)
{
	return path[0] == '@' &&
	    (path[1] == '\0' || path[1] == '.' || path[1] == '[');
}

/* Whether a string holds name[0..len) as it is, with no escape. */
static int
plain_name(const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (name[i] == '"' || name[i] == '\\' ||
		    (unsigned char)name[i] < 0x20)
			return 0;
	return 1;
}

/* Sets member m's key and key_mask, for guess_key(): the bytes of
 * "NAME": as two words read them, as head is the name's first word. */
static void
key_pattern(struct jsonpath_node *m)
{
	char *key = (char *)m->key;

	memset(m->key, 0, sizeof(m->key));
	memset(m->key_mask, 0, sizeof(m->key_mask));
	if (m->namelen + 3 > sizeof(m->key) ||
	    !plain_name(m->name, m->namelen))
		return;
	key[0] = '"';
	memcpy(key + 1, m->name, m->namelen);
	memcpy(key + 1 + m->namelen, "\":", 2);
	memset(m->key_mask, 0xff, m->namelen + 3);
}

/* Gives each node with members a hash table of them, filled by linear
 * probing and at most half full, so that a key no path wants meets an
 * empty bucket soon. */
static int
index_members(struct jsonpath *jp)
{
	size_t total = 0;

	for (size_t i = 0; i < jp->nnodes; i++) {
		struct jsonpath_node *n = &jp->nodes[i];
		unsigned size = 2;

		while (size < 2 * (unsigned)n->nmembers)
			size *= 2;
		n->table = (int)total;
		n->mask = size - 1;
		total += n->nmembers > 0 ? size : 0;
	}
	if ((jp->buckets = malloc((total + 1) * sizeof(int))) == NULL)
		return -ENOMEM;
	memset(jp->buckets, -1, (total + 1) * sizeof(int));
	for (size_t i = 0; i < jp->nnodes; i++) {
		const struct jsonpath_node *n = &jp->nodes[i];

		jp->nodes[i].keys = 0;
		for (int c = n->members; c >= 0; c = jp->nodes[c].next) {
			struct jsonpath_node *m = &jp->nodes[c];
			size_t head = m->namelen < 8 ? m->namelen : 8;
			unsigned h = key_hash(m->name, m->namelen);

			jp->nodes[i].keys |= key_bit(m->name, m->namelen);

			m->head = 0;
			memcpy(&m->head, m->name, head);
			m->head_mask = 0;
			memset(&m->head_mask, 0xff, head);
			key_pattern(m);

			while (jp->buckets[n->table + (int)(h & n->mask)] >= 0)
				h++;
			jp->buckets[n->table + (int)(h & n->mask)] = c;
		}
	}
	return 0;
}

/* The interface, described in jsonpath.h. */

struct jsonpath *
jsonpath_new(const char *explode, char *err, size_t errlen)
{
	struct jsonpath *jp = calloc(1, sizeof(*jp));
	int leaf;

	if (jp == NULL || (jp->explode = strdup(explode)) == NULL ||
	    new_node(jp) < 0)
		goto oom;
	jp->elem_root = -1;
	if (explode[0] == '\0')
		return jp;
	if (is_relative(explode)) {
		snprintf(err, errlen, "explode: path \"%s\" cannot start with "
		    "@: it is the path of the array, from the root", explode);
		goto fail;
	}
	if (path_add(jp, "explode", jp->explode, jp->explode,
	    explode[0] != '[', 0, &leaf, err, errlen) < 0)
		goto fail;
	jp->nodes[leaf].explode = 1;
	if ((jp->elem_root = new_node(jp)) < 0)
		goto oom;
	return jp;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	jsonpath_free(jp);
	return NULL;
}

void
jsonpath_free(struct jsonpath *jp)
{
	if (jp == NULL)
		return;
	free(jp->nodes);
	free(jp->buckets);
	free(jp->explode);
	free(jp->root);
	free(jp->elems);
	free(jp->keybuf);
	free(jp);
}

int
jsonpath_add(struct jsonpath *jp, const char *key, const char *path,
    int *elem, size_t *slot, char *err, size_t errlen)
{
	int leaf = 0, r = 0;

	*elem = is_relative(path);
	if (*elem && jp->elem_root < 0) {
		return err_set(err, errlen, -EINVAL,
		    "%s: path \"%s\" starts with @, the "
		    "explode element, but explode is not set", key, path);
	}
	if (!*elem)
		r = path_add(jp, key, path, path, path[0] != '[', 0, &leaf,
		    err, errlen);
	else if (path[1] == '\0')
		leaf = jp->elem_root;
	else
		r = path_add(jp, key, path, path + 1 + (path[1] == '.'),
		    path[1] == '.', jp->elem_root, &leaf, err, errlen);
	if (r < 0)
		return r;
	if (jp->nodes[leaf].slot < 0)
		jp->nodes[leaf].slot = (int)(*elem ? jp->nelem_slots++ :
		    jp->nroot_slots++);
	*slot = (size_t)jp->nodes[leaf].slot;
	return 0;
}

int
jsonpath_seal(struct jsonpath *jp)
{
	if ((jp->root = calloc(jp->nroot_slots + 1, sizeof(*jp->root))) ==
	    NULL || (jp->keybuf = malloc(jp->maxname + 4)) == NULL ||
	    index_members(jp) < 0)
		return -ENOMEM;
	if (jp->elem_root < 0)
		return 0;
	jp->elems_cap = 16;
	jp->elems = calloc(jp->elems_cap * jp->nelem_slots + 1,
	    sizeof(*jp->elems));
	return jp->elems != NULL ? 0 : -ENOMEM;
}

int
jsonpath_scan(struct jsonpath *jp, const char *doc, size_t len,
    size_t max_elems, char *err, size_t errlen)
{
	struct jsonpath_pass sc = { jp, doc, doc + len, jp->root, ++jp->gen,
	    jp->gen, err, errlen, 0 };

	memset(jp->root, 0, jp->nroot_slots * sizeof(*jp->root));
	jp->nelems = 0;
	jp->max_elems = max_elems;
	return jsonpath_walk(&sc);
}

const struct jsonpath_value *
jsonpath_root(const struct jsonpath *jp)
{
	return jp->root;
}

size_t
jsonpath_nelems(const struct jsonpath *jp)
{
	return jp->nelems;
}

const struct jsonpath_value *
jsonpath_elem(const struct jsonpath *jp, size_t e)
{
	return jp->elems + e * jp->nelem_slots;
}

size_t
jsonpath_unescape(char *dst, const char *s, size_t len)
{
	return (size_t)decode(dst, len, s, len);
}
