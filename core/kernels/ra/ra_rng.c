/* RandomAccess generators: jump-ahead and the table distribution. */
#include <stdio.h>

#include "hpcprobe/gups_rng.h"
#include "ra.h"

/* The LCG's n-fold map r -> a r + c is itself affine: compose by squaring. */
static uint64_t jump_lcg(uint64_t n)
{
    uint64_t mul = RA_LCG_MUL, add = RA_LCG_ADD; /* the map f^(2^k) */
    uint64_t r_mul = 1, r_add = 0;               /* the map applied so far */
    for (; n; n >>= 1) {
        if (n & 1) {
            r_mul = mul * r_mul;
            r_add = mul * r_add + add;
        }
        add = mul * add + add;
        mul = mul * mul;
    }
    return r_mul * 1 + r_add;
}

uint64_t ra_rng_jump(enum ra_rng rng, uint64_t n)
{
    return rng == RA_RNG_POLY ? hpcp_gups_starts(n) : jump_lcg(n);
}

void ra_dist_init(struct ra_dist *d, uint64_t words, int ranks)
{
    d->words = words;
    d->ranks = ranks;
    d->log2_words = __builtin_ctzll(words);
    d->min_local = words / (uint64_t)ranks;
    d->rem = words % (uint64_t)ranks;
    d->top = d->rem * (d->min_local + 1);
    d->shift = -1;
    d->rule = RA_OWNER_DIVISION;
    if (d->rem == 0 && (d->min_local & (d->min_local - 1)) == 0 && (ranks & (ranks - 1)) == 0)
        d->shift = __builtin_ctzll(d->min_local);
}

int ra_dist_set_rule(struct ra_dist *d, enum ra_owner_rule rule, char *err, size_t errlen)
{
    if (rule == RA_OWNER_PREDICT && (uint64_t)d->ranks >= d->min_local) {
        snprintf(err, errlen,
                 "--owner predict needs fewer ranks than words per rank (Theorem 4.1): "
                 "%d ranks, %llu words per rank; give a larger --table-log2 or --owner division",
                 d->ranks, (unsigned long long)d->min_local);
        return -1;
    }
    d->rule = rule;
    return 0;
}
