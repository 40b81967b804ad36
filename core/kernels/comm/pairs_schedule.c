/* The schedule of `pairs`: the round-robin tournament (each rank in at most
 * one pair a round, every pair in exactly one round), the order in which the
 * rounds are measured so that a run cut short by its time budget has still
 * covered every rank and every pair of nodes, and what a prefix covers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pairs.h"
#include "hpcprobe/rng.h"

int pairs_partner(int ranks, int round, int rank)
{
    int n = ranks + ranks % 2; /* odd: a bye, as a rank that does not exist */
    int partner;
    if (rank == n - 1)
        partner = round;
    else if (rank == round)
        partner = n - 1;
    else
        partner = ((2 * round - rank) % (n - 1) + (n - 1)) % (n - 1);
    return partner >= ranks ? -1 : partner;
}

int pairs_rounds(int ranks)
{
    return ranks < 2 ? 0 : ranks + ranks % 2 - 1;
}

/* What has been covered so far: ranks, and node pairs as an h x h table
 * (lower index first) over the nodes renumbered 0..h-1. */
struct covered {
    int ranks, h;
    int *node;          /* each rank's node, renumbered */
    char *rank_seen, *pair_seen;
    long long ranks_left, pairs_left, pairs_total;
};

static void covered_free(struct covered *c)
{
    free(c->node), free(c->rank_seen), free(c->pair_seen);
}

/* Nodes renumbered by first appearance; the node pairs that exist: every
 * two distinct nodes, and a node with itself where it holds two ranks. */
static int covered_init(struct covered *c, int ranks, const int *node)
{
    memset(c, 0, sizeof *c);
    c->ranks = ranks;
    c->node = malloc((size_t)ranks * sizeof *c->node);
    c->rank_seen = calloc((size_t)ranks, 1);
    int *count = calloc((size_t)ranks, sizeof *count);
    if (!c->node || !c->rank_seen || !count) {
        free(count);
        return -1;
    }
    for (int i = 0; i < ranks; i++) {
        int j = 0;
        while (j < i && node[j] != node[i])
            j++;
        c->node[i] = j < i ? c->node[j] : c->h++;
        count[c->node[i]]++;
    }
    c->pair_seen = calloc((size_t)c->h * (size_t)c->h, 1);
    long long selves = 0;
    for (int n = 0; n < c->h; n++)
        selves += count[n] > 1;
    free(count);
    c->pairs_total = (long long)c->h * (c->h - 1) / 2 + selves;
    c->ranks_left = ranks, c->pairs_left = c->pairs_total;
    return c->pair_seen ? 0 : -1;
}

/* How much of the not yet covered round `round` covers; with `take`, mark it. */
static long long cover_round(struct covered *c, int round, int take)
{
    long long fresh = 0;
    for (int i = 0; i < c->ranks; i++) {
        int j = pairs_partner(c->ranks, round, i);
        if (j < i) /* the bye, or the pair seen from its lower rank already */
            continue;
        int a = c->node[i] < c->node[j] ? c->node[i] : c->node[j];
        int b = c->node[i] < c->node[j] ? c->node[j] : c->node[i];
        char *pair = &c->pair_seen[(size_t)a * c->h + b];
        fresh += !c->rank_seen[i] + !c->rank_seen[j] + !*pair;
        if (take) {
            c->ranks_left -= !c->rank_seen[i] + !c->rank_seen[j];
            c->pairs_left -= !*pair;
            c->rank_seen[i] = c->rank_seen[j] = 1, *pair = 1;
        }
    }
    return fresh;
}

int pairs_order(int ranks, const int *node, uint64_t seed, int *order)
{
    int rounds = pairs_rounds(ranks), covering = 0;
    if (rounds == 0)
        return 0;
    struct covered c;
    int *shuffled = malloc((size_t)rounds * sizeof *shuffled);
    char *taken = calloc((size_t)rounds, 1);
    if (!shuffled || !taken || covered_init(&c, ranks, node) != 0) {
        free(shuffled), free(taken), covered_free(&c);
        return -1;
    }
    hpcp_shuffle(shuffled, rounds, seed);
    /* First fit in the seeded order: a round that covers something new. */
    for (int k = 0; k < rounds && (c.ranks_left || c.pairs_left); k++)
        if (cover_round(&c, shuffled[k], 0) > 0) {
            cover_round(&c, shuffled[k], 1);
            taken[k] = 1;
            order[covering++] = shuffled[k];
        }
    int next = covering;
    for (int k = 0; k < rounds; k++)
        if (!taken[k])
            order[next++] = shuffled[k];
    free(shuffled), free(taken), covered_free(&c);
    return covering;
}

int pairs_coverage(int ranks, const int *node, const int *order, int rounds,
                   struct pairs_cover *out)
{
    struct covered c;
    memset(out, 0, sizeof *out);
    if (covered_init(&c, ranks, node) != 0) {
        covered_free(&c);
        return -1;
    }
    for (int k = 0; k < rounds; k++) {
        cover_round(&c, order[k], 1);
        for (int i = 0; i < ranks; i++)
            out->pairs += pairs_partner(ranks, order[k], i) >= 0; /* each direction */
    }
    out->rounds = rounds, out->rounds_total = pairs_rounds(ranks);
    out->pairs_total = (long long)ranks * (ranks - 1);
    out->ranks = ranks, out->ranks_covered = ranks - (int)c.ranks_left;
    out->node_pairs_total = c.pairs_total;
    out->node_pairs = c.pairs_total - c.pairs_left;
    covered_free(&c);
    return 0;
}

int pairs_next_count(int k, double s, double want, int least, int *done)
{
    *done = 1;
    if (want <= 0)
        return least;
    if (s >= want / 8 || k >= PAIRS_MAX_MESSAGES) {
        double n = s > 0 ? ceil(k * want / s) : PAIRS_MAX_MESSAGES;
        n = n < least ? least : n > PAIRS_MAX_MESSAGES ? PAIRS_MAX_MESSAGES : n;
        return (int)n;
    }
    *done = 0;
    /* Far too short: grow faster, so that calibrating costs little. */
    long long next = (long long)k * (s < want / 64 ? 8 : 2);
    return next > PAIRS_MAX_MESSAGES ? PAIRS_MAX_MESSAGES : (int)next;
}
