/* The communication family's pieces that need no second rank (the --sizes
 * grammar is the runtime's, tested in test_options.c):
 * parsing, check patterns and exact float sums, percentiles, random rings
 * (permutations), the pairs tournament (every ordered pair once, each rank
 * in at most one pair a round), placement files, rank orders and host
 * indices. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "beff.h"
#include "check.h"
#include "comm.h"
#include "hpcprobe/util.h"

static void patterns(void)
{
    unsigned char a[1031], b[1031];
    comm_fill(a, sizeof a, 3, 5, 7);
    CHECK(comm_check(a, sizeof a, 3, 5, 7) == -1);
    CHECK(comm_check(a, sizeof a, 4, 5, 7) >= 0);  /* wrong source */
    CHECK(comm_check(a, sizeof a, 3, 6, 7) >= 0);  /* wrong destination */
    CHECK(comm_check(a, sizeof a, 3, 5, 8) >= 0);  /* wrong call */
    memcpy(b, a, sizeof a);
    b[1030] ^= 1;
    CHECK(comm_check(b, sizeof b, 3, 5, 7) == 1030);
    memmove(b, a + 8, sizeof a - 8); /* shifted by a word: mismatches at once */
    CHECK(comm_check(b, sizeof b, 3, 5, 7) == 0);
    CHECK(comm_check(a, 0, 9, 9, 9) == -1);
    for (int ranks = 1; ranks < 40; ranks++)
        for (size_t j = 0; j < 7; j++) {
            float sum = 0;
            for (int r = 0; r < ranks; r++)
                sum += comm_reduce_value(r, j, 11);
            CHECK(sum == comm_reduce_sum(ranks, j, 11));
        }
}

static void percentiles(void)
{
    double v[] = {5, 1, 4, 2, 3};
    CHECK(hpcp_percentile(v, 5, 0.5) == 3);
    CHECK(hpcp_percentile(v, 5, 0.0) == 1 && hpcp_percentile(v, 5, 1.0) == 5);
    CHECK(fabs(hpcp_percentile(v, 5, 0.99) - 4.96) < 1e-12);
    CHECK(isnan(hpcp_percentile(v, 0, 0.5)));
}

static void rings(void)
{
    int order[97], seen[97], differ = 0;
    for (int ranks = 1; ranks <= 97; ranks += 6)
        for (int pattern = 1; pattern <= 30; pattern++) {
            beff_random_ring(ranks, 12345, pattern, order);
            memset(seen, 0, sizeof seen);
            int ok = 1;
            for (int i = 0; i < ranks; i++)
                ok &= order[i] >= 0 && order[i] < ranks && !seen[order[i]]++;
            CHECK(ok);
            for (int i = 0; i < ranks; i++)
                differ += order[i] != i;
        }
    CHECK(differ > 0);
    int again[97];
    beff_random_ring(97, 12345, 3, order);
    beff_random_ring(97, 12345, 3, again);
    CHECK(memcmp(order, again, sizeof order) == 0); /* the seed decides */
}

static void tournament(void)
{
    for (int ranks = 2; ranks <= 33; ranks++) {
        int met[33][33] = {{0}}, ok = 1;
        for (int round = 0; round < pairs_rounds(ranks); round++)
            for (int r = 0; r < ranks; r++) {
                int p = pairs_partner(ranks, round, r);
                if (p < 0)
                    continue;
                ok &= p != r && pairs_partner(ranks, round, p) == r; /* one pair per rank */
                met[r][p]++;
            }
        for (int i = 0; i < ranks; i++)
            for (int j = 0; j < ranks; j++)
                ok &= met[i][j] == (i != j); /* every pair once */
        CHECK(ok);
    }
}

static void placement_files(void)
{
    char hosts[4 * COMM_HOST_LEN], err[256];
    int cpus[4];
    CHECK(comm_place_parse("# ranks\n0 a 3\n2 b\n\n1 a 0 # c\n3 b\n", 4, hosts, cpus, err,
                           sizeof err) == 0);
    CHECK(strcmp(hosts + 2 * COMM_HOST_LEN, "b") == 0 && cpus[0] == 3 && cpus[2] == -1);
    CHECK(comm_place_parse("0 a\n1 a\n3 a\n", 4, hosts, cpus, err, sizeof err) != 0);
    CHECK(strstr(err, "rank 2 is missing") != NULL);
    CHECK(comm_place_parse("0 a\n1 a\n1 b\n2 a\n3 a\n", 4, hosts, cpus, err, sizeof err) != 0);
    CHECK(strstr(err, "rank 1 is listed twice") != NULL);
    CHECK(comm_place_parse("0 a\n1 a\n2 a\n4 a\n", 4, hosts, cpus, err, sizeof err) != 0);
    CHECK(strstr(err, "rank 4 is not one of the 4 launched") != NULL);
    CHECK(comm_place_parse("0 a -1\n", 1, hosts, cpus, err, sizeof err) != 0);
    CHECK(comm_place_parse("zero a\n", 1, hosts, cpus, err, sizeof err) != 0);
}

static void orders(void)
{
    /* Six ranks launched block-wise on three nodes (ids 0, 2, 4). */
    int node[6] = {0, 0, 2, 2, 4, 4}, rank[6];
    comm_place_order("round-robin", node, 6, rank);
    int rr[6] = {0, 3, 1, 4, 2, 5};
    CHECK(memcmp(rank, rr, sizeof rr) == 0);
    comm_place_order("block", node, 6, rank);
    int same[6] = {0, 1, 2, 3, 4, 5};
    CHECK(memcmp(rank, same, sizeof same) == 0);
    /* Launched round-robin, uneven: block gathers each node's ranks. */
    int node2[5] = {0, 1, 0, 1, 0}, blk[5] = {0, 3, 1, 4, 2};
    comm_place_order("block", node2, 5, rank);
    CHECK(memcmp(rank, blk, sizeof blk) == 0);
}

/* Each rank's host as an index into the sorted distinct names: the record's
 * rank_node (placement) and metadata.rank_hosts. */
static void host_indices(void)
{
    const char names[4][8] = {"b", "a", "b", "c"};
    int index[4];
    CHECK(hpcp_host_indices(&names[0][0], sizeof names[0], 4, index) == 0);
    CHECK(index[0] == 1 && index[1] == 0 && index[2] == 1 && index[3] == 2);
    CHECK(hpcp_host_indices(&names[0][0], sizeof names[0], 1, index) == 0 && index[0] == 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    patterns();
    percentiles();
    rings();
    tournament();
    placement_files();
    orders();
    host_indices();
    MPI_Finalize();
    return check_summary("test_comm");
}
