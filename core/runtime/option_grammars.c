/* The value grammars of options.h, one parser each: a size, a list of sizes
 * and ranges, a list of choices, a grid. Every family that takes such a
 * value goes through these, so one option name never has two grammars. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/options.h"

/* Digits then an optional K/M/G/T with B or iB, any case; 0 allowed here. */
static int parse_size_value(const char *text, uint64_t *bytes)
{
    char *end;
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno) /* past 2^64 - 1: strtoull would give ULLONG_MAX */
        return -1;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    case 0: break;
    default: return -1;
    }
    if (shift) {
        end++;
        if (toupper((unsigned char)end[0]) == 'I' && toupper((unsigned char)end[1]) == 'B')
            end += 2;
        else if (toupper((unsigned char)*end) == 'B')
            end++;
    }
    if (*end || v > (~0ULL >> shift))
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

int hpcp_parse_bytes(const char *text, uint64_t *bytes)
{
    uint64_t b;
    if (parse_size_value(text, &b) || b == 0)
        return -1;
    *bytes = b;
    return 0;
}

/* The limits of a value of o; int_max 0 means no upper limit. */
static int within(const struct hpcp_optspec *o, uint64_t v)
{
    return v >= (uint64_t)o->int_min && (o->int_max <= 0 || v <= (uint64_t)o->int_max);
}

int hpcp_parse_size(const struct hpcp_optspec *o, const char *text, uint64_t *bytes, char *err,
                    size_t errlen)
{
    uint64_t b;
    if (parse_size_value(text, &b) == 0 && within(o, b)) {
        *bytes = b;
        return 0;
    }
    snprintf(err, errlen,
             "%s must be a %ssize in bytes from %lld to %lld (such as 4096, 64K, 512M, 2G), "
             "not '%s'",
             o->name, o->int_min > 0 ? "positive " : "", o->int_min,
             o->int_max > 0 ? o->int_max : (long long)0x7fffffffffffffffLL, text);
    return -1;
}

static int sizes_bad(const struct hpcp_optspec *o, const char *item, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "%s: '%s' is not a size or a range A..B (sizes in bytes from %lld to %lld with an "
             "optional K, M or G, such as 0,8,1K or 8..4M)",
             o->name, item, o->int_min, o->int_max);
    return -1;
}

/* Append s to sizes (which may be NULL), keeping them increasing. */
static int sizes_add(const struct hpcp_optspec *o, uint64_t s, uint64_t *sizes, int *n,
                     uint64_t *last, char *err, size_t errlen)
{
    if (*n >= o->count_max) {
        snprintf(err, errlen, "%s: more than %d sizes", o->name, o->count_max);
        return -1;
    }
    if (*n > 0 && s <= *last) {
        snprintf(err, errlen, "%s must increase: %llu after %llu", o->name, (unsigned long long)s,
                 (unsigned long long)*last);
        return -1;
    }
    if (sizes)
        sizes[*n] = s;
    *last = s;
    (*n)++;
    return 0;
}

/* One item: SIZE, or A..B for A, 2A, 4A, ... up to B (0..B: 0, then 1, 2, ...). */
static int sizes_item(const struct hpcp_optspec *o, const char *item, uint64_t *sizes, int *n,
                      uint64_t *last, char *err, size_t errlen)
{
    char lo_text[64];
    const char *dots = strstr(item, "..");
    uint64_t lo, hi;
    if (!dots) {
        if (parse_size_value(item, &lo) || !within(o, lo))
            return sizes_bad(o, item, err, errlen);
        return sizes_add(o, lo, sizes, n, last, err, errlen);
    }
    snprintf(lo_text, sizeof lo_text, "%.*s", (int)(dots - item), item);
    if (parse_size_value(lo_text, &lo) || parse_size_value(dots + 2, &hi) || hi < lo ||
        !within(o, lo) || !within(o, hi))
        return sizes_bad(o, item, err, errlen);
    if (lo == 0) {
        if (sizes_add(o, 0, sizes, n, last, err, errlen))
            return -1;
        lo = 1;
    }
    for (uint64_t s = lo; hi > 0; s *= 2) { /* lo <= hi; stop before 2s passes hi */
        if (sizes_add(o, s, sizes, n, last, err, errlen))
            return -1;
        if (s > hi / 2)
            break;
    }
    return 0;
}

int hpcp_parse_sizes(const struct hpcp_optspec *o, const char *text, uint64_t *sizes, int *n,
                     char *err, size_t errlen)
{
    char item[64];
    uint64_t last = 0;
    *n = 0;
    for (const char *at = text;;) {
        size_t len = strcspn(at, ",");
        if (len == 0) {
            snprintf(err, errlen, "%s: '%s' has an empty item (give sizes such as 0,8,1K or 8..4M)",
                     o->name, text);
            return -1;
        }
        if (len >= sizeof item)
            return sizes_bad(o, "(an item of 64 characters or more)", err, errlen);
        memcpy(item, at, len);
        item[len] = '\0';
        if (sizes_item(o, item, sizes, n, &last, err, errlen))
            return -1;
        if (!at[len])
            return 0;
        at += len + 1;
    }
}

/* Index of the choice spelt word[0..len) in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *word, size_t len)
{
    int i = 0;
    for (const char *c = choices; *c; i++) {
        size_t clen = strcspn(c, "|");
        if (clen == len && strncmp(c, word, len) == 0)
            return i;
        c += clen + (c[clen] == '|');
    }
    return -1;
}

static int choice_count(const char *choices)
{
    int n = *choices != '\0';
    for (const char *c = choices; *c; c++)
        n += *c == '|';
    return n;
}

static int list_bad(const struct hpcp_optspec *o, const char *what, const char *text, int len,
                    char *err, size_t errlen)
{
    char allowed[256];
    snprintf(allowed, sizeof allowed, "%s", o->choices);
    for (char *b = strchr(allowed, '|'); b; b = strchr(b, '|'))
        *b = ',';
    snprintf(err, errlen, "%s: %s '%.*s' (allowed: all%s, or a comma list of %s, each once)",
             o->name, what, len, text, o->int_min == 0 ? ", none" : "", allowed);
    return -1;
}

int hpcp_parse_list(const struct hpcp_optspec *o, const char *text, int *items, int *n, char *err,
                    size_t errlen)
{
    unsigned long long seen = 0;
    *n = 0;
    if (o->int_min == 0 && strcmp(text, "none") == 0)
        return 0;
    if (strcmp(text, "all") == 0) {
        int m = choice_count(o->choices);
        for (*n = 0; *n < m && *n < o->count_max; (*n)++)
            if (items)
                items[*n] = *n;
        return 0;
    }
    for (const char *at = text;;) {
        size_t len = strcspn(at, ",");
        int i = len ? choice_index(o->choices, at, len) : -1;
        if (len == 0)
            return list_bad(o, "an empty item in", text, (int)strlen(text), err, errlen);
        if (i < 0 || i >= 64)
            return list_bad(o, "unknown item", at, (int)len, err, errlen);
        if (seen & (1ULL << i))
            return list_bad(o, "a repeated item", at, (int)len, err, errlen);
        if (*n >= o->count_max)
            return list_bad(o, "too many items in", text, (int)strlen(text), err, errlen);
        seen |= 1ULL << i;
        if (items)
            items[*n] = i;
        (*n)++;
        if (!at[len])
            return 0;
        at += len + 1;
    }
}

int hpcp_parse_grid(const struct hpcp_optspec *o, const char *text, int *dims, int *n, char *err,
                    size_t errlen)
{
    const char *at = text;
    *n = 0;
    while (*at) {
        char *end;
        errno = 0;
        long long v = isdigit((unsigned char)*at) ? strtoll(at, &end, 10) : -1;
        if (v < o->int_min || v > o->int_max || errno || *n == o->count_max ||
            (*end && *end != 'x') || (*end == 'x' && !end[1]))
            break;
        if (dims)
            dims[*n] = (int)v;
        (*n)++;
        at = *end ? end + 1 : end;
    }
    if (!*at && *n > 0)
        return 0;
    snprintf(err, errlen,
             "%s '%s' is not a grid (allowed: 1 to %d whole numbers from %lld to %lld joined by "
             "'x', such as 2x2x2)",
             o->name, text, o->count_max, o->int_min, o->int_max);
    return -1;
}

const char *hpcp_opt_kind_name(enum hpcp_opt_kind kind)
{
    static const char *const names[HPCP_OPT_KIND_COUNT] = {
        "flag", "int", "number", "string", "choice", "bytes", "sizes", "list", "grid"};
    return (unsigned)kind < HPCP_OPT_KIND_COUNT ? names[kind] : "string";
}

const char *hpcp_opt_grammar(enum hpcp_opt_kind kind)
{
    static const char *const grammar[HPCP_OPT_KIND_COUNT] = {
        "no value",
        "a whole number in decimal",
        "a decimal number",
        "free text, read by the family",
        "one of the choices",
        "bytes: digits with an optional K, M, G or T (any case, then optionally B or iB; "
        "binary: K = KB = KiB = 1024)",
        "a comma list of sizes (bytes) and ranges A..B (A, 2A, 4A, ... up to B; 0..B: 0, 1, 2, "
        "4, ...), strictly increasing",
        "a comma list of the choices, each once; all for every one (none for none where the "
        "minimum is 0)",
        "whole numbers joined by x, such as 2x2x2",
    };
    return (unsigned)kind < HPCP_OPT_KIND_COUNT ? grammar[kind] : grammar[HPCP_OPT_STRING];
}
