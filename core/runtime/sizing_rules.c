/* The sizing rules (sizing.h): McCalpin's rule for STREAM applied to what
 * the ranks of a node share, the same for the other sweeps that must leave
 * the caches, HPCC's memory rules, and each one held under the memory cap.
 * Each writes its rule in words for the record. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hpcprobe/sizing.h"
#include "hpcprobe/util.h"

#define MIB ((uint64_t)1 << 20)
/* What the arrays must exceed: 4x the caches (McCalpin's rule for STREAM). */
#define OVER_CACHES 4
/* STREAM's own size when no cache size is known. */
#define UNKNOWN_CACHES_ARRAY (32 * MIB)

static uint64_t pow2_at_least(double x)
{
    uint64_t p = 1;
    while ((double)p < x && p < ((uint64_t)1 << 62))
        p <<= 1;
    return p;
}

static uint64_t pow2_at_most(double x)
{
    uint64_t p = 1;
    while ((double)(p << 1) <= x && p < ((uint64_t)1 << 62))
        p <<= 1;
    return p;
}

static int log2_of(uint64_t pow2)
{
    int k = 0;
    while (((uint64_t)1 << k) < pow2)
        k++;
    return k;
}

/* What `copies` ranks of the node each must overflow, and the words for it:
 * one copy, the caches one core reaches; several, their share of the
 * caches they reach together. 0 when no cache size is known. */
static double share_of(const struct hpcp_node *n, int copies, char *words, size_t len)
{
    char a[32];
    if (n->ncaches == 0) {
        snprintf(words, len, "no cache size known");
        return 0.0;
    }
    if (copies <= 1) {
        double c = (double)hpcp_node_core_caches(n);
        snprintf(words, len, "the caches one core reaches (%s)", hpcp_format_bytes(c, a, sizeof a));
        return c;
    }
    double all = (double)hpcp_node_caches_used(n, copies);
    snprintf(words, len, "a 1/%d share of the caches %d ranks of a node reach together (%s)",
             copies, copies, hpcp_format_bytes(all, a, sizeof a));
    return all / copies;
}

/* Halve `value` (bytes per rank = value * per_unit) until `copies` ranks fit
 * the cap, not below `floor`; say so in the rule. */
static void hold_under_cap(const struct hpcp_node *n, double cap, int copies, double per_unit,
                           uint64_t floor, struct hpcp_sized *s, int halve)
{
    double limit = hpcp_node_cap_bytes(n, cap);
    uint64_t before = s->value;
    while (limit > 0 && s->value > floor && (double)s->value * per_unit * copies > limit)
        s->value = halve ? s->value / 2 : (uint64_t)(limit / per_unit / copies);
    if (s->value < floor)
        s->value = floor;
    if (s->value != before) {
        char a[32];
        s->capped = 1;
        size_t used = strlen(s->rule);
        snprintf(s->rule + used, sizeof s->rule - used,
                 "; made smaller to fit the memory cap (--memory-cap %g: %s on a node)", cap,
                 hpcp_format_bytes(limit, a, sizeof a));
    }
}

void hpcp_size_stream(const struct hpcp_node *n, int copies, double cap, struct hpcp_sized *s)
{
    char words[160];
    double share = share_of(n, copies, words, sizeof words);
    memset(s, 0, sizeof *s);
    if (share > 0) {
        s->value = ((uint64_t)(OVER_CACHES * share) + MIB - 1) / MIB * MIB;
        snprintf(s->rule, sizeof s->rule, "each array 4x %s", words);
    } else {
        s->value = UNKNOWN_CACHES_ARRAY;
        snprintf(s->rule, sizeof s->rule, "each array 32 MiB (%s)", words);
    }
    hold_under_cap(n, cap, copies, 3.0, MIB, s, 0);
    s->value -= s->value % MIB;
}

void hpcp_size_stride(const struct hpcp_node *n, int copies, double cap, struct hpcp_sized *s)
{
    char words[160];
    double share = share_of(n, copies, words, sizeof words);
    memset(s, 0, sizeof *s);
    s->value = pow2_at_least(share > 0 ? OVER_CACHES * share : (double)UNKNOWN_CACHES_ARRAY);
    snprintf(s->rule, sizeof s->rule, "the buffer a power of two >= 4x %s", words);
    hold_under_cap(n, cap, copies, 1.0, MIB, s, 1);
}

void hpcp_size_latency(const struct hpcp_node *n, int copies, double cap, struct hpcp_sized *s)
{
    char words[160];
    /* One copy alone is timed first: its sweep must leave every cache a core reaches. */
    double share = share_of(n, 1, words, sizeof words);
    memset(s, 0, sizeof *s);
    s->value = pow2_at_least(share > 0 ? OVER_CACHES * share : 8.0 * UNKNOWN_CACHES_ARRAY);
    snprintf(s->rule, sizeof s->rule, "working sets up to a power of two >= 4x %s", words);
    hold_under_cap(n, cap, copies, 17.0 / 16.0, MIB, s, 1); /* the cycle's order: 1/16 more */
}

void hpcp_size_ra_caches(const struct hpcp_node *n, int copies, int distributed, double cap,
                         struct hpcp_sized *s)
{
    char words[160];
    double share = share_of(n, distributed ? n->ranks : copies, words, sizeof words);
    memset(s, 0, sizeof *s);
    /* the largest power of two within 4x: at least 2x, and every update but a few
     * goes to memory; its time (4 updates a word, and the verification's as many)
     * is half what the next power of two would take */
    uint64_t per_rank = pow2_at_most((share > 0 ? OVER_CACHES * share : 32.0 * MIB) / 8.0);
    int ranks = distributed ? n->all_ranks : 1;
    uint64_t words_all = per_rank * pow2_at_least((double)ranks);
    snprintf(s->rule, sizeof s->rule, "%s the largest power of two of words within 4x %s%s",
             distributed ? "the table" : "each rank's table", words,
             distributed ? ", times the ranks" : "");
    s->value = words_all;
    hold_under_cap(n, cap, distributed ? n->ranks : copies, 8.0 / ranks, 1024, s, 1);
    s->value = (uint64_t)log2_of(s->value);
}

void hpcp_size_ra_memory(const struct hpcp_node *n, double fraction, int copies, int distributed,
                         int min_log2, int max_log2, double cap, struct hpcp_sized *s)
{
    memset(s, 0, sizeof *s);
    int ranks = n->ranks > 0 ? n->ranks : 1;
    double per_rank = (double)n->memory * fraction / ranks / sizeof(uint64_t);
    double words = distributed ? per_rank * n->all_ranks : per_rank;
    int k = words >= 1.0 ? (int)floor(log2(words)) : -1;
    if (k > max_log2)
        k = max_log2;
    snprintf(s->rule, sizeof s->rule,
             "as HPCC: the largest 2^K words in --memory-fraction %g of the memory of a node's "
             "%d rank%s%s",
             fraction, ranks, ranks == 1 ? "" : "s", distributed ? ", over every rank" : "");
    if (k < min_log2) {
        s->value = (uint64_t)-1;
        return;
    }
    s->value = (uint64_t)1 << k;
    hold_under_cap(n, cap, copies, 8.0 / (distributed ? n->all_ranks : 1), (uint64_t)1 << min_log2,
                   s, 1);
    s->value = (uint64_t)log2_of(s->value);
}

void hpcp_size_fft_caches(const struct hpcp_node *n, int copies, int distributed, double cap,
                          struct hpcp_sized *s)
{
    char words[160];
    double share = share_of(n, distributed ? n->ranks : copies, words, sizeof words);
    memset(s, 0, sizeof *s);
    /* 16-byte complex points; at least 2^16 per rank, so that a transform is timed */
    uint64_t per_rank =
        pow2_at_least(fmax(share > 0 ? OVER_CACHES * share / 16.0 : 1 << 21, 65536.0));
    int ranks = distributed ? n->all_ranks : 1;
    snprintf(s->rule, sizeof s->rule, "%s a power of two of 16-byte points >= 4x %s%s",
             distributed ? "the transform" : "each rank's vector", words,
             distributed ? ", times the ranks" : "");
    s->value = per_rank * pow2_at_least((double)ranks);
    /* bytes per point and rank: three vectors alone, four spread over the ranks */
    hold_under_cap(n, cap, distributed ? n->ranks : copies, distributed ? 64.0 / ranks : 48.0,
                   65536, s, 1);
    s->value = (uint64_t)log2_of(s->value);
}

void hpcp_size_hpl_cap(const struct hpcp_node *n, int nb, double cap, struct hpcp_sized *s)
{
    memset(s, 0, sizeof *s);
    /* 8 N^2 bytes spread over the nodes, and 5% for the panels and the
     * block-cyclic rounding of each rank's share */
    double limit = hpcp_node_cap_bytes(n, cap) * (n->nodes > 0 ? n->nodes : 1);
    long long order = (long long)sqrt(limit / 8.0 / 1.05);
    order -= order % (nb > 0 ? nb : 1);
    s->value = (uint64_t)(order > nb ? order : nb);
    snprintf(s->rule, sizeof s->rule,
             "the largest order in whole blocks of %d whose matrix fits --memory-cap %g", nb, cap);
}

static int floor_log2(double x)
{
    int k = 0;
    while (k < 62 && ldexp(1.0, k + 1) <= x)
        k++;
    return k;
}

void hpcp_size_dense_memory(const struct hpcp_node *n, const char *family, const char *variant,
                            double fraction, int nb, struct hpcp_sized *s)
{
    memset(s, 0, sizeof *s);
    double avail = (double)(n->available ? n->available : n->memory);
    double total = fraction * avail * (n->nodes > 0 ? n->nodes : 1);
    double proc = fraction * avail / (n->ranks > 0 ? n->ranks : 1); /* HPCC's HPLMaxProcMem */
    const char *what;
    if (!strcmp(family, "hpl") || !strcmp(family, "ptrans")) {
        long long order = (long long)sqrt(total / 8.0);
        order -= order % nb;
        order = order < nb ? nb : order;
        int ptrans = !strcmp(family, "ptrans");
        s->value = (uint64_t)(ptrans && order / 2 > 0 ? order / 2 : order);
        what = ptrans ? "half HPL's order, whose matrix fills" : "the order whose matrix fills";
    } else if (!strcmp(family, "dgemm")) {
        s->value = (uint64_t)sqrt(proc / 8.0 / 3.0);
        what = "three matrices per rank in";
    } else if (!strcmp(variant, "mpi")) {
        s->value = (uint64_t)(floor_log2(proc / 16.0 / 4.0) + floor_log2(n->all_ranks));
        what = "four vectors of 16-byte points per rank in";
    } else {
        s->value = (uint64_t)floor_log2(proc / 16.0 / 2.0);
        what = "two vectors of 16-byte points per rank in";
    }
    snprintf(s->rule, sizeof s->rule, "as HPCC: %s --memory-fraction %g of the available memory",
             what, fraction);
}

/* What one of `copies` ranks reaches of one instance of cache level c: the
 * ranks fill the cores in order (a launcher's default binding), so up to
 * shared_by of them share it. */
static double peak_reach(const struct hpcp_cache_level *c, int copies)
{
    int sharers = copies < c->shared_by ? copies : c->shared_by;
    return (double)c->bytes / (sharers > 1 ? sharers : 1);
}

/* A cache level's working set: half its reach, in whole KiB. */
static void peak_cache_rule(const struct hpcp_cache_level *c, int copies, struct hpcp_sized *s)
{
    char a[32];
    int sharers = copies < c->shared_by ? copies : c->shared_by;
    double reach = peak_reach(c, copies);
    s->value = (uint64_t)(reach / 2) / 1024 * 1024;
    if (sharers > 1)
        snprintf(s->rule, sizeof s->rule, "half of a 1/%d share of the l%d shared by %d ranks (%s)",
                 sharers, c->level, sharers, hpcp_format_bytes(reach, a, sizeof a));
    else
        snprintf(s->rule, sizeof s->rule, "half of the l%d one rank reaches (%s)", c->level,
                 hpcp_format_bytes(reach, a, sizeof a));
}

void hpcp_size_peak_level(const struct hpcp_node *n, int copies, int level, double cap,
                          struct hpcp_sized *s)
{
    int at = level == HPCP_PEAK_LEVEL_MEMORY ? n->ncaches : -1;
    for (int i = 0; i < n->ncaches && at < 0; i++)
        if (n->cache[i].level == level)
            at = i;
    memset(s, 0, sizeof *s);
    if (at < 0) {
        snprintf(s->rule, sizeof s->rule, "skipped: the node has no l%d cache of a known size",
                 level);
        return;
    }
    if (level == HPCP_PEAK_LEVEL_MEMORY) {
        struct hpcp_sized stream;
        hpcp_size_stream(n, copies, cap, &stream);
        s->value = 3 * stream.value;
        s->capped = stream.capped;
        snprintf(s->rule, sizeof s->rule, "STREAM's three arrays: %.200s", stream.rule);
    } else {
        peak_cache_rule(&n->cache[at], copies, s);
    }
    if (at == 0)
        return;
    const struct hpcp_cache_level *below = &n->cache[at - 1];
    double floor = 2 * peak_reach(below, copies);
    char a[32], b[32], was[256];
    hpcp_copy_truncated(was, sizeof was, s->rule);
    if ((double)s->value >= floor)
        return;
    snprintf(s->rule, sizeof s->rule,
             "skipped: %.120s (%s) is under 2x the l%d below, which one rank reaches (%s): "
             "not measured apart from it",
             was, hpcp_format_bytes((double)s->value, a, sizeof a), below->level,
             hpcp_format_bytes(floor / 2, b, sizeof b));
    s->value = 0;
}
