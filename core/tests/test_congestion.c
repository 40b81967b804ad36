/* Congestion family without MPI traffic: roles per unit (nodes or ranks)
 * from the fraction, canaries spread over the machine, the moves that give
 * each role two ranks and the one-line refusals; the ring is a seeded
 * permutation; the CIF's direction for times and rates, with sub-microsecond
 * samples; message stamps catch a wrong sender, round or byte; GPCNeT's
 * split (--mode gpcnet) for 10 to 64 units under the three placements. */
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "congestion.h"
#include "hpcprobe/rng.h"

static int count(const int *v, int n, int value)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += v[i] == value;
    return c;
}

static void splits_nodes_by_the_fraction(void)
{
    int ranks[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, cong[10], n = 0;
    char err[256] = "";
    /* 8 hosts of a 2 x 4 tree: 6 congestors, canaries at hosts 2 and 6, one per leaf */
    CHECK(cong_split_units(8, ranks, 0.8, 2, cong, &n, err, sizeof err) == 0);
    CHECK(n == 6 && count(cong, 8, 0) == 2 && cong[2] == 0 && cong[6] == 0);
    /* 10 nodes (GPCNeT's least): 8 congestors, 2 canaries */
    CHECK(cong_split_units(10, ranks, 0.8, 2, cong, &n, err, sizeof err) == 0 && n == 8);
    /* 4 hosts of 2 ranks: 0.8 gives 3 congestor hosts; the one canary host has 2 ranks */
    int two[4] = {2, 2, 2, 2};
    CHECK(cong_split_units(4, two, 0.8, 2, cong, &n, err, sizeof err) == 0 && n == 3);
    /* 2 hosts of 2 ranks: one of each */
    CHECK(cong_split_units(2, two, 0.8, 2, cong, &n, err, sizeof err) == 0 && n == 1);
    CHECK(cong[0] == 1 && cong[1] == 0); /* the canary in the middle: unit 1 of 2 */
}

static void moves_the_split_so_each_role_has_two_ranks(void)
{
    int ranks[4] = {1, 1, 1, 1}, cong[4], n = 0;
    char err[256] = "";
    /* 4 ranks on one node: 0.8 would leave one canary; it moves to 2 and 2 */
    CHECK(cong_split_units(4, ranks, 0.8, 2, cong, &n, err, sizeof err) == 0 && n == 2);
    CHECK(count(cong, 4, 1) == 2);
    int hosts[2] = {1, 1};
    CHECK(cong_split_units(2, hosts, 0.8, 2, cong, &n, err, sizeof err) == -1);
    CHECK(strstr(err, "at least 4 ranks") != NULL);
}

static void refuses_a_fraction_that_leaves_a_role_empty(void)
{
    int ranks[8] = {1, 1, 1, 1, 1, 1, 1, 1}, cong[8], n = 0;
    char err[256] = "";
    CHECK(cong_split_units(8, ranks, 0.1, 2, cong, &n, err, sizeof err) == -1);
    CHECK(strstr(err, "leaves no congestor") && strstr(err, "0.125"));
    /* 0.99 of 8 leaves one canary rank: moved back until the ring has two */
    CHECK(cong_split_units(8, ranks, 0.99, 2, cong, &n, err, sizeof err) == 0 && n == 6);
}

static void rings_are_seeded_permutations(void)
{
    int a[7], b[7], c[7], seen[7] = {0};
    hpcp_shuffle(a, 7, 1);
    hpcp_shuffle(b, 7, 1);
    hpcp_shuffle(c, 7, 2);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(a, c, sizeof a) != 0);
    for (int i = 0; i < 7; i++)
        seen[a[i]]++;
    CHECK(count(seen, 7, 1) == 7);
}

static void cif_runs_the_right_way(void)
{
    /* sub-microsecond latencies: 0.40 us alone, 0.90 us congested -> 2.25, unrounded */
    double alone[4] = {0.4e-6, 0.4e-6, 0.4e-6, 0.4e-6},
           loaded[4] = {0.9e-6, 0.8e-6, 1.0e-6, 0.9e-6};
    CHECK(fabs(cong_cif(alone, 4, loaded, 4, 0) - 2.25) < 1e-12);
    /* bandwidth: 100 alone, 40 congested -> isolated/congested = 2.5 */
    double bw_alone[2] = {100, 100}, bw_loaded[2] = {40, 40};
    CHECK(fabs(cong_cif(bw_alone, 2, bw_loaded, 2, 1) - 2.5) < 1e-12);
    double nan_only[1] = {NAN};
    CHECK(isnan(cong_cif(alone, 4, nan_only, 1, 0)));
    CHECK(isnan(cong_cif(alone, 0, loaded, 4, 0)));
}

static void stamps_catch_wrong_messages(void)
{
    unsigned char m[64], e[64];
    cong_fill(m, sizeof m, 3);
    cong_stamp(m, sizeof m, 3, 12345, 7);
    CHECK(cong_stamp_ok(m, sizeof m, 3, 12345, 7));
    CHECK(!cong_stamp_ok(m, sizeof m, 4, 12345, 7));
    CHECK(!cong_stamp_ok(m, sizeof m, 3, 12346, 7));
    CHECK(!cong_stamp_ok(m, sizeof m, 3, 12345, 6));
    cong_fill(e, sizeof e, 3);
    CHECK(memcmp(m + 8, e + 8, sizeof m - 8) == 0);
    cong_fill(e, sizeof e, 5);
    CHECK(memcmp(m + 8, e + 8, sizeof m - 8) != 0);
    unsigned char two[128];
    cong_fill_messages(two, 2, 64, 3);
    CHECK(memcmp(two + 64 + 8, m + 8, 56) == 0);
}

/* One gpcnet split of n units: floor(0.8 n) congestors (integer arithmetic,
 * as the spec says it), four groups of at least 2 differing by at most 1,
 * and group_units that count them. */
static void check_gpcnet_split(int n, int placement, uint64_t seed, int *group)
{
    int sizes[CONG_GPCNET_GROUPS] = {0}, per[CONG_GPCNET_GROUPS];
    char err[256] = "";
    CHECK(cong_gpcnet_split(n, 0, placement, seed, group, per, err, sizeof err) == 0);
    CHECK(count(group, n, -1) == n - (8 * n) / 10);
    int lo = n, hi = 0;
    for (int u = 0; u < n; u++)
        sizes[group[u] >= 0 ? group[u] : 0] += group[u] >= 0;
    for (int g = 0; g < CONG_GPCNET_GROUPS; g++) {
        CHECK(sizes[g] == per[g] && sizes[g] >= 2);
        lo = sizes[g] < lo ? sizes[g] : lo, hi = sizes[g] > hi ? sizes[g] : hi;
    }
    CHECK(hi - lo <= 1);
}

static void gpcnet_splits_10_to_64_units(void)
{
    int group[64], other[64];
    for (int n = 10; n <= 64; n++) {
        int k = n - (8 * n) / 10, packed_ok = 1, spread_ok = 1;
        check_gpcnet_split(n, CONG_PLACE_PACKED, 1, group);
        for (int u = 0; u < n; u++) /* the canaries are the first k units */
            packed_ok &= (group[u] == -1) == (u < k);
        CHECK(packed_ok);
        check_gpcnet_split(n, CONG_PLACE_SPREAD, 1, group);
        for (int c = 0; c < k; c++) /* the middle of each k-th */
            spread_ok &= group[(2 * c + 1) * n / (2 * k)] == -1;
        CHECK(spread_ok);
        check_gpcnet_split(n, CONG_PLACE_RANDOM, 7, group);
        check_gpcnet_split(n, CONG_PLACE_RANDOM, 7, other);
        CHECK(memcmp(group, other, (size_t)n * sizeof *group) == 0); /* seeded */
    }
    /* another seed, other canaries: at 20 units, seeds 1..4 do not all agree */
    int differ = 0;
    check_gpcnet_split(20, CONG_PLACE_RANDOM, 1, group);
    for (uint64_t seed = 2; seed <= 4; seed++) {
        check_gpcnet_split(20, CONG_PLACE_RANDOM, seed, other);
        for (int u = 0; u < 20; u++)
            differ |= (group[u] == -1) != (other[u] == -1);
    }
    CHECK(differ);
}

static void gpcnet_refuses_fewer_than_10_units(void)
{
    int group[9], per[CONG_GPCNET_GROUPS];
    char err[256] = "";
    CHECK(cong_gpcnet_split(9, 0, CONG_PLACE_RANDOM, 1, group, per, err, sizeof err) == -1);
    CHECK(strstr(err, "at least 10 nodes") && strstr(err, "not 9 nodes") && !strchr(err, '\n'));
    CHECK(cong_gpcnet_split(9, 1, CONG_PLACE_RANDOM, 1, group, per, err, sizeof err) == -1);
    CHECK(strstr(err, "not 9 ranks on one node") != NULL);
}

static void hpcprobe_mode_takes_a_placement(void)
{
    int ranks[8] = {1, 1, 1, 1, 1, 1, 1, 1}, cong[8], n = 0;
    char err[256] = "";
    CHECK(cong_split_units_placed(8, ranks, 0.8, 2, CONG_PLACE_PACKED, 1, cong, &n, err,
                                  sizeof err) == 0);
    CHECK(n == 6 && cong[0] == 0 && cong[1] == 0 && count(cong, 8, 0) == 2);
    CHECK(cong_split_units_placed(8, ranks, 0.8, 2, CONG_PLACE_RANDOM, 3, cong, &n, err,
                                  sizeof err) == 0);
    CHECK(n == 6 && count(cong, 8, 0) == 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    splits_nodes_by_the_fraction();
    moves_the_split_so_each_role_has_two_ranks();
    refuses_a_fraction_that_leaves_a_role_empty();
    rings_are_seeded_permutations();
    cif_runs_the_right_way();
    stamps_catch_wrong_messages();
    gpcnet_splits_10_to_64_units();
    gpcnet_refuses_fewer_than_10_units();
    hpcprobe_mode_takes_a_placement();
    MPI_Finalize();
    return check_summary("test_congestion");
}
