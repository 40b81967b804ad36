/* The schedule of `pairs` (pairs_schedule.c): for odd and even rank counts
 * and several host layouts, the order holds every round once, its covering
 * rounds cover every rank and every node pair (checked here by brute force,
 * not by the function under test), each round's pairs are disjoint, the seed
 * decides the order, and the count of messages per sample grows to the
 * sample time. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pairs.h"

#define MAX_RANKS 256

/* Host layouts: one host; blocks of `per` ranks; round-robin over `hosts`;
 * one rank per host; uneven blocks (host i holds i + 1 ranks). */
enum layout { ONE_HOST, BLOCK, ROUND_ROBIN, EACH_ALONE, UNEVEN, LAYOUTS };

static void make_layout(int layout, int ranks, int *node)
{
    int host = 0, left = 1;
    for (int i = 0; i < ranks; i++) {
        switch (layout) {
        case ONE_HOST: node[i] = 7; break;
        case BLOCK: node[i] = 100 + i / 4; break;
        case ROUND_ROBIN: node[i] = i % 3; break;
        case EACH_ALONE: node[i] = ranks - i; break;
        default:
            node[i] = host;
            if (--left == 0)
                left = ++host + 1;
        }
    }
}

/* Brute force over the first `rounds` rounds of order: every rank in a pair,
 * every node pair that exists met, each rank at most once a round. */
static int covers_everything(int ranks, const int *node, const int *order, int rounds)
{
    static char met[MAX_RANKS][MAX_RANKS]; /* by node ids < MAX_RANKS + 100: mapped below */
    static char exists[MAX_RANKS][MAX_RANKS];
    char seen[MAX_RANKS] = {0};
    int id[MAX_RANKS], ok = 1;
    for (int i = 0; i < ranks; i++) { /* node ids to 0..ranks-1: the lowest rank there */
        id[i] = i;
        for (int j = 0; j < i; j++)
            if (node[j] == node[i]) {
                id[i] = id[j];
                break;
            }
    }
    memset(met, 0, sizeof met), memset(exists, 0, sizeof exists);
    for (int i = 0; i < ranks; i++)
        for (int j = 0; j < ranks; j++)
            if (i != j)
                exists[id[i]][id[j]] = 1;
    for (int k = 0; k < rounds; k++) {
        char busy[MAX_RANKS] = {0};
        for (int i = 0; i < ranks; i++) {
            int j = pairs_partner(ranks, order[k], i);
            if (j < 0)
                continue;
            ok &= j != i && pairs_partner(ranks, order[k], j) == i && !busy[i];
            busy[i] = 1, seen[i] = 1;
            met[id[i]][id[j]] = 1;
        }
    }
    for (int i = 0; i < ranks; i++) {
        ok &= seen[i];
        for (int j = 0; j < ranks; j++)
            ok &= !exists[i][j] || met[i][j];
    }
    return ok;
}

static int is_permutation(const int *order, int n)
{
    char seen[MAX_RANKS] = {0};
    for (int k = 0; k < n; k++) {
        if (order[k] < 0 || order[k] >= n || seen[order[k]])
            return 0;
        seen[order[k]] = 1;
    }
    return 1;
}

static void one_case(int ranks, int layout)
{
    int node[MAX_RANKS], order[MAX_RANKS];
    make_layout(layout, ranks, node);
    int rounds = pairs_rounds(ranks), covering = pairs_order(ranks, node, 42, order);
    CHECK(covering >= 1 && covering <= rounds);
    CHECK(is_permutation(order, rounds));
    CHECK(covers_everything(ranks, node, order, covering));
    /* Every covering round was needed when it was taken: one fewer does not cover. */
    CHECK(!covers_everything(ranks, node, order, covering - 1));
    struct pairs_cover c;
    CHECK(pairs_coverage(ranks, node, order, covering, &c) == 0);
    CHECK(c.ranks_covered == ranks && c.node_pairs == c.node_pairs_total);
    CHECK(c.rounds == covering && c.rounds_total == rounds);
    CHECK(c.pairs_total == (long long)ranks * (ranks - 1) && c.pairs <= c.pairs_total);
    CHECK(pairs_coverage(ranks, node, order, rounds, &c) == 0 && c.pairs == c.pairs_total);
    int again[MAX_RANKS];
    CHECK(pairs_order(ranks, node, 42, again) == covering);
    CHECK(memcmp(order, again, (size_t)rounds * sizeof *order) == 0); /* the seed decides */
}

static void schedules(void)
{
    const int counts[] = {2, 3, 4, 5, 7, 16, 17, 33, 64, 255, 256};
    for (size_t n = 0; n < sizeof counts / sizeof *counts; n++)
        for (int layout = 0; layout < LAYOUTS; layout++)
            one_case(counts[n], layout);
}

/* Node pairs counted as the record states them: 4 hosts of 4 ranks: 6
 * between hosts and 4 within; one rank per host: no host with itself. */
static void node_pair_counts(void)
{
    int node[MAX_RANKS], order[MAX_RANKS];
    struct pairs_cover c;
    make_layout(BLOCK, 16, node);
    pairs_order(16, node, 1, order);
    pairs_coverage(16, node, order, 0, &c);
    CHECK(c.node_pairs_total == 10 && c.node_pairs == 0 && c.ranks_covered == 0);
    make_layout(EACH_ALONE, 5, node);
    pairs_order(5, node, 1, order);
    pairs_coverage(5, node, order, 0, &c);
    CHECK(c.node_pairs_total == 10);
    make_layout(ONE_HOST, 16, node);
    CHECK(pairs_order(16, node, 1, order) == 1); /* one round: every rank, the one node pair */
    make_layout(ONE_HOST, 3, node);
    CHECK(pairs_order(3, node, 1, order) == 2); /* a bye each round: two */
    int differ = 0, other[MAX_RANKS];
    make_layout(ONE_HOST, 256, node);
    pairs_order(256, node, 1, order);
    pairs_order(256, node, 2, other);
    for (int k = 0; k < pairs_rounds(256); k++)
        differ += order[k] != other[k];
    CHECK(differ > 0);
    CHECK(pairs_order(1, node, 1, order) == 0);
}

static void message_counts(void)
{
    int done;
    CHECK(pairs_next_count(4, 1e-6, 0, 4, &done) == 4 && done); /* no sample time */
    CHECK(pairs_next_count(1, 1e-6, 0.005, 1, &done) == 8 && !done); /* far too short */
    CHECK(pairs_next_count(8, 0.0002, 0.005, 1, &done) == 16 && !done);
    CHECK(pairs_next_count(16, 0.001, 0.005, 1, &done) == 80 && done);
    CHECK(pairs_next_count(16, 0.1, 0.005, 4, &done) == 4 && done); /* at least the least */
    CHECK(pairs_next_count(PAIRS_MAX_MESSAGES, 1e-9, 0.005, 1, &done) == PAIRS_MAX_MESSAGES &&
          done);
}

int main(void)
{
    schedules();
    node_pair_counts();
    message_counts();
    return check_summary("test_pairs");
}
