/* Contention family without MPI traffic: grid hops against breadth-first
 * search on small tori, meshes and mixed grids; dimension-order steps reach
 * the destination in that many hops; tree hops; the CSV, dims, wrap and
 * Slurm address parsers with their one-line refusals; random matchings are
 * perfect and seeded; equidistant, stress-link and nn-torus pairs are where
 * paper 004 puts them. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "contention.h"

/* Hops from node `from` to every node by breadth-first search over the links. */
static void bfs(const int *dims, const int *wrap, int nd, int from, int *dist, int positions)
{
    int *queue = malloc((size_t)positions * sizeof *queue), head = 0, tail = 0;
    for (int i = 0; i < positions; i++)
        dist[i] = -1;
    dist[from] = 0;
    queue[tail++] = from;
    while (head < tail) {
        int n = queue[head++], c[CONT_MAX_DIMS];
        cont_rowmajor(dims, nd, n, c);
        for (int k = 0; k < nd; k++)
            for (int step = -1; step <= 1; step += 2) {
                int d[CONT_MAX_DIMS], m = 0;
                memcpy(d, c, sizeof d);
                d[k] += step;
                if (wrap[k])
                    d[k] = (d[k] + dims[k]) % dims[k];
                if (d[k] < 0 || d[k] >= dims[k])
                    continue;
                for (int j = 0; j < nd; j++)
                    m = m * dims[j] + d[j];
                if (dist[m] < 0) {
                    dist[m] = dist[n] + 1;
                    queue[tail++] = m;
                }
            }
    }
    free(queue);
}

static void test_hops_against_bfs(const int *dims, const int *wrap, int nd)
{
    int positions = 1;
    for (int k = 0; k < nd; k++)
        positions *= dims[k];
    int *dist = malloc((size_t)positions * sizeof *dist), bad = 0, walks = 0;
    for (int a = 0; a < positions; a++) {
        bfs(dims, wrap, nd, a, dist, positions);
        int ca[CONT_MAX_DIMS], cb[CONT_MAX_DIMS], steps[CONT_MAX_DIMS];
        cont_rowmajor(dims, nd, a, ca);
        for (int b = 0; b < positions; b++) {
            cont_rowmajor(dims, nd, b, cb);
            bad += cont_grid_hops(dims, wrap, nd, ca, cb) != dist[b];
            /* the route: the steps, taken one dimension after another, end at b */
            cont_grid_steps(dims, wrap, nd, ca, cb, steps);
            int at[CONT_MAX_DIMS], length = 0;
            for (int k = 0; k < nd; k++) {
                at[k] = ((ca[k] + steps[k]) % dims[k] + dims[k]) % dims[k];
                length += abs(steps[k]);
            }
            walks += memcmp(at, cb, (size_t)nd * sizeof *at) != 0 || length != dist[b];
        }
    }
    CHECK(bad == 0);
    CHECK(walks == 0);
    free(dist);
}

static void test_parsers(void)
{
    int dims[CONT_MAX_DIMS], wrap[CONT_MAX_DIMS], nd;
    char err[256];
    CHECK(cont_parse_dims("8x8x16", dims, &nd, err, sizeof err) == 0 && nd == 3 && dims[2] == 16);
    CHECK(cont_parse_dims("8x", dims, &nd, err, sizeof err) != 0);
    CHECK(cont_parse_dims("8x0", dims, &nd, err, sizeof err) != 0);
    CHECK(cont_parse_dims("axb", dims, &nd, err, sizeof err) != 0);
    CHECK(cont_parse_dims("4096x4096x4096", dims, &nd, err, sizeof err) != 0 &&
          strstr(err, "positions"));
    CHECK(cont_parse_wrap("1,0,1", 3, wrap, err, sizeof err) == 0 && wrap[0] && !wrap[1]);
    CHECK(cont_parse_wrap("1,0", 3, wrap, err, sizeof err) != 0);
    CHECK(cont_parse_wrap("1,2,0", 3, wrap, err, sizeof err) != 0);
    CHECK(cont_parse_wrap("1,0,1,", 3, wrap, err, sizeof err) != 0);
}

static void test_csv(void)
{
    int coords[4 * CONT_MAX_DIMS], nd = 0;
    char err[256];
    CHECK(cont_csv_parse("rank,x,y\n# a comment\n0,0,0\n1,0,1\n\n3,1,1\n2,1,0\n", 4, &nd, coords,
                         err, sizeof err) == 0 &&
          nd == 2 && coords[6] == 1 && coords[7] == 1);
    nd = 0;
    CHECK(cont_csv_parse("0,0\n1,1\n3,3\n", 4, &nd, coords, err, sizeof err) != 0 &&
          strstr(err, "rank 2 is missing"));
    nd = 0;
    CHECK(cont_csv_parse("0,0\n1,1\n1,2\n2,0\n", 3, &nd, coords, err, sizeof err) != 0 &&
          strstr(err, "appears twice"));
    nd = 0;
    CHECK(cont_csv_parse("0,0\n7,1\n", 2, &nd, coords, err, sizeof err) != 0 &&
          strstr(err, "not in this run"));
    nd = 3;
    CHECK(cont_csv_parse("0,0,0\n1,1,1\n", 2, &nd, coords, err, sizeof err) != 0 &&
          strstr(err, "line 1"));
    nd = 0;
    CHECK(cont_csv_parse("0,0\n1,x\n", 2, &nd, coords, err, sizeof err) != 0);
    int dims[2] = {2, 2}, at[4];
    int twice[6] = {0, 0, 1, 1, 0, 0}, outside[4] = {0, 0, 2, 0};
    CHECK(cont_place_nodes(dims, 2, 3, twice, at, err, sizeof err) != 0 &&
          strstr(err, "nodes 0 and 2 collide"));
    CHECK(cont_place_nodes(dims, 2, 2, outside, at, err, sizeof err) != 0 &&
          strstr(err, "outside"));
}

static void test_tree(void)
{
    char a[] = "top.leaf1.n1", b[] = "top.leaf1.n2", c[] = "top.leaf2.n3", d[] = "top.n4";
    char *addrs[] = {a, b, c}, *bad[] = {a, d};
    int levels, ids[3 * CONT_MAX_LEVELS];
    char err[256];
    CHECK(cont_tree_ids(addrs, 3, &levels, ids, err, sizeof err) == 0 && levels == 2);
    CHECK(cont_tree_hops(levels, ids, ids + 2) == 2);     /* one leaf switch */
    CHECK(cont_tree_hops(levels, ids, ids + 4) == 4);     /* via the top switch */
    CHECK(cont_tree_ids(bad, 2, &levels, ids, err, sizeof err) != 0);
    CHECK(cont_tree_hops(0, ids, ids) == 2);              /* no levels: one switch */
}

static void test_matching(int ranks, uint64_t seed)
{
    int a[64], b[64], again_a[64], again_b[64], other_a[64], other_b[64], seen[129] = {0};
    cont_random_matching(ranks, seed, a, b);
    cont_random_matching(ranks, seed, again_a, again_b);
    cont_random_matching(ranks, seed + 1, other_a, other_b);
    int pairs = ranks / 2, twice = 0;
    for (int k = 0; k < pairs; k++) {
        twice += seen[a[k]]++ + seen[b[k]]++;
        CHECK(a[k] < b[k]); /* the smaller rank sends first */
    }
    CHECK(twice == 0);
    CHECK(memcmp(a, again_a, (size_t)pairs * sizeof *a) == 0 &&
          memcmp(b, again_b, (size_t)pairs * sizeof *b) == 0);
    if (ranks >= 8)
        CHECK(memcmp(a, other_a, (size_t)pairs * sizeof *a) != 0 ||
              memcmp(b, other_b, (size_t)pairs * sizeof *b) != 0);
}

/* A grid topology with every position a node of `rpn` ranks, as
 * cont_topo_resolve makes it for --torus/--mesh DIMS --ranks-per-node rpn. */
static void make_grid(struct cont_topo *t, const int *dims, const int *wrap, int nd, int rpn)
{
    char err[256];
    memset(t, 0, sizeof *t);
    t->kind = CONT_GRID, t->ndims = nd, t->nodes = 1, t->ranks_per_node = rpn;
    for (int k = 0; k < nd; k++)
        t->dims[k] = dims[k], t->wrap[k] = wrap[k], t->nodes *= dims[k];
    t->ranks = t->nodes * rpn;
    t->rank_node = malloc((size_t)t->ranks * sizeof *t->rank_node);
    t->node_rank = malloc((size_t)t->ranks * sizeof *t->node_rank);
    t->node_start = malloc(((size_t)t->nodes + 1) * sizeof *t->node_start);
    t->node_coord = malloc((size_t)t->nodes * nd * sizeof *t->node_coord);
    t->position_node = malloc((size_t)t->nodes * sizeof *t->position_node);
    for (int r = 0; r < t->ranks; r++)
        t->rank_node[r] = r / rpn, t->node_rank[r] = r;
    for (int n = 0; n <= t->nodes; n++)
        t->node_start[n] = n * rpn;
    for (int n = 0; n < t->nodes; n++)
        cont_rowmajor(dims, nd, n, t->node_coord + (size_t)n * nd);
    CHECK(cont_place_nodes(dims, nd, t->nodes, t->node_coord, t->position_node, err, sizeof err) ==
          0);
}

static void test_plans(void)
{
    int dims[3] = {2, 2, 8}, wrap[3] = {1, 1, 1};
    struct cont_topo t;
    struct cont_params p;
    struct cont_plan pl;
    char err[256];
    make_grid(&t, dims, wrap, 3, 2);
    memset(&p, 0, sizeof p);
    p.axis = -1;
    /* Along the longest axis (8 long), every pair n hops apart; blocks of 2n
     * positions, so 3 leaves positions 6 and 7 of each line idle. */
    const int distance[4] = {1, 2, 3, 4}, pairs[4] = {32, 32, 24, 32};
    for (int i = 0; i < 4; i++) {
        memset(&pl, 0, sizeof pl);
        p.distances[0] = distance[i], p.ndistances = 1;
        CHECK(cont_plan_equidistant(&pl, &t, &p, err, sizeof err) == 0 && pl.axis == 2);
        CHECK(pl.npairs == pairs[i]);
        for (int j = 0; j < pl.npairs; j++)
            CHECK(cont_hops(&t, pl.a[j], pl.b[j]) == distance[i]);
        cont_plan_free(&pl);
    }
    memset(&pl, 0, sizeof pl);
    p.distances[0] = 5;
    CHECK(cont_plan_equidistant(&pl, &t, &p, err, sizeof err) != 0 && strstr(err, "beyond"));
    cont_plan_free(&pl);
    memset(&pl, 0, sizeof pl);
    CHECK(cont_plan_stress(&pl, &t, &p, err, sizeof err) == 0 && pl.npairs == 4);
    for (int k = 0; k < pl.npairs; k++) { /* nested around the middle link, first ranks */
        CHECK(t.node_coord[t.rank_node[pl.a[k]] * 3 + 2] == 3 - k);
        CHECK(t.node_coord[t.rank_node[pl.b[k]] * 3 + 2] == 4 + k);
        CHECK(pl.a[k] % 2 == 0 && pl.group[k] == k + 1);
    }
    cont_plan_free(&pl);
    memset(&pl, 0, sizeof pl);
    p.pairing = CONT_PAIRS_NN_TORUS;
    CHECK(cont_plan_wicon(&pl, &t, &p, err, sizeof err) == 0 && pl.npairs == t.ranks / 2);
    for (int i = 0; i < pl.npairs; i++)
        CHECK(cont_hops(&t, pl.a[i], pl.b[i]) == 1);
    cont_plan_free(&pl);
    cont_topo_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int torus5[] = {5}, ring[] = {1};
    int sq[] = {3, 4}, both[] = {1, 1}, none[] = {0, 0};
    int mixed[] = {2, 3, 4}, mixed_wrap[] = {1, 0, 1}, line[] = {1, 5}, evens[] = {4, 6};
    test_hops_against_bfs(torus5, ring, 1);
    test_hops_against_bfs(sq, both, 2);
    test_hops_against_bfs(sq, none, 2);
    test_hops_against_bfs(evens, both, 2); /* ties at D/2 */
    test_hops_against_bfs(mixed, mixed_wrap, 3);
    test_hops_against_bfs(line, none, 2);
    test_parsers();
    test_csv();
    test_tree();
    for (int ranks = 2; ranks <= 65; ranks += 7)
        for (uint64_t seed = 1; seed < 4; seed++)
            test_matching(ranks, seed);
    test_plans();
    int rc = check_summary("test_contention");
    MPI_Finalize();
    return rc;
}
