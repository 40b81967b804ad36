/* Resolving the topology of a run, collectively (cont_topo.h). Every rank
 * ends with the same tables, or every rank with the same error line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cont_topo.h"
#include "hpcprobe/util.h"

/* A coordinates file larger than this is not a list of ranks. */
#define CONT_CSV_MAX_BYTES ((long)64 << 20)

/* Rank 0's verdict (rc, err) on every rank. */
static int share_verdict(int rc, char *err, size_t errlen)
{
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc)
        MPI_Bcast(err, (int)errlen, MPI_CHAR, 0, MPI_COMM_WORLD);
    return rc;
}

/* Nodes: blocks of --ranks-per-node ranks, or the shared-memory nodes of
 * MPI_Comm_split_type numbered in the order of their lowest rank. */
static void find_nodes(struct cont_topo *t, const struct cont_topo_request *req,
                       const struct hpcp_sysinfo *si)
{
    int P = t->ranks, leader = si->rank, *leaders = malloc((size_t)P * sizeof *leaders);
    if (req->ranks_per_node > 0) {
        for (int r = 0; r < P; r++)
            leaders[r] = r - r % req->ranks_per_node;
        t->nodes_emulated = 1;
    } else {
        MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, si->node_comm);
        MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    }
    int *node_of_leader = malloc((size_t)P * sizeof *node_of_leader);
    t->nodes = 0;
    for (int r = 0; r < P; r++)
        node_of_leader[r] = leaders[r] == r ? t->nodes++ : -1;
    t->node_start = calloc((size_t)t->nodes + 1, sizeof *t->node_start);
    for (int r = 0; r < P; r++) {
        t->rank_node[r] = node_of_leader[leaders[r]];
        t->node_start[t->rank_node[r] + 1]++;
    }
    t->ranks_per_node = 0;
    for (int n = 0; n < t->nodes; n++) {
        if (t->node_start[n + 1] > t->ranks_per_node)
            t->ranks_per_node = t->node_start[n + 1];
        t->node_start[n + 1] += t->node_start[n];
    }
    int *fill = calloc((size_t)t->nodes, sizeof *fill);
    for (int r = 0; r < P; r++) /* ascending r: each node's list is sorted */
        t->node_rank[t->node_start[t->rank_node[r]] + fill[t->rank_node[r]]++] = r;
    free(fill);
    free(node_of_leader);
    free(leaders);
}

static char *read_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    FILE *f = fopen(path, "r");
    char *text = NULL;
    if (!f || fstat(fileno(f), &st) != 0 || st.st_size > CONT_CSV_MAX_BYTES) {
        snprintf(err, errlen, "--coords %s: %s", path,
                 !f ? "cannot be read (allowed: a CSV file of rank,x,y,... lines, or slurm)"
                    : "is larger than 64 MiB (allowed: one line per rank)");
    } else if ((text = calloc((size_t)st.st_size + 1, 1)) != NULL) {
        size_t got = fread(text, 1, (size_t)st.st_size, f);
        text[got] = '\0';
    }
    if (f)
        fclose(f);
    return text;
}

/* The coordinates of a node's ranks must agree; the node gets them. */
static int node_coords_from_ranks(struct cont_topo *t, const int *rank_coords, char *err,
                                  size_t errlen)
{
    int nd = t->ndims;
    for (int n = 0; n < t->nodes; n++) {
        int first = t->node_rank[t->node_start[n]];
        memcpy(t->node_coord + (size_t)n * nd, rank_coords + (size_t)first * nd,
               (size_t)nd * sizeof *rank_coords);
        for (int i = t->node_start[n] + 1; i < t->node_start[n + 1]; i++) {
            int r = t->node_rank[i];
            if (memcmp(rank_coords + (size_t)r * nd, rank_coords + (size_t)first * nd,
                       (size_t)nd * sizeof *rank_coords) != 0) {
                snprintf(err, errlen,
                         "--coords puts ranks %d and %d at different coordinates, "
                         "but they share node %d (allowed: one position per node)",
                         first, r, n);
                return -1;
            }
        }
    }
    return 0;
}

/* Rank 0 reads and parses the CSV; every rank gets the coordinates. */
static int csv_coordinates(struct cont_topo *t, const struct cont_topo_request *req, char *err,
                           size_t errlen)
{
    int nd = t->kind == CONT_GRID ? t->ndims : 0, rank, rc = 0;
    int *coords = malloc((size_t)t->ranks * CONT_MAX_DIMS * sizeof *coords);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        char *text = read_file(req->coords, err, errlen);
        rc = !text || !coords || cont_csv_parse(text, t->ranks, &nd, coords, err, errlen);
        free(text);
    }
    if ((rc = share_verdict(rc ? -1 : 0, err, errlen)) == 0) {
        MPI_Bcast(&nd, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(coords, t->ranks * nd, MPI_INT, 0, MPI_COMM_WORLD);
        if (t->kind != CONT_GRID) { /* no dims given: the smallest mesh that holds them */
            t->kind = CONT_GRID, t->ndims = nd, t->dims_inferred = 1;
            for (int k = 0; k < nd; k++)
                t->dims[k] = 1, t->wrap[k] = 0;
            for (long long i = 0; i < (long long)t->ranks * nd; i++)
                if (coords[i] + 1 > t->dims[i % nd])
                    t->dims[i % nd] = coords[i] + 1;
        }
        rc = node_coords_from_ranks(t, coords, err, errlen);
    }
    free(coords);
    return rc ? -1 : 0;
}

/* Rank 0 gathers every rank's SLURM_TOPOLOGY_ADDR, checks that a node's
 * ranks agree, and numbers the switches; every rank gets the ids. */
static int slurm_coordinates(struct cont_topo *t, const struct hpcp_sysinfo *si, char *err,
                             size_t errlen)
{
    char mine[CONT_ADDR_MAX] = {0};
    const char *env = getenv("SLURM_TOPOLOGY_ADDR");
    int missing = env && *env && strlen(env) < CONT_ADDR_MAX ? t->ranks : si->rank, rc = 0;
    MPI_Allreduce(MPI_IN_PLACE, &missing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (missing < t->ranks) {
        snprintf(err, errlen,
                 "--coords slurm: SLURM_TOPOLOGY_ADDR is not set (or longer than "
                 "%d characters) on rank %d (allowed: a run under srun with Slurm's "
                 "topology/tree plugin)",
                 CONT_ADDR_MAX - 1, missing);
        return -1;
    }
    hpcp_copy_truncated(mine, sizeof mine, env);
    char *all = si->rank == 0 ? malloc((size_t)t->ranks * CONT_ADDR_MAX) : NULL;
    MPI_Gather(mine, CONT_ADDR_MAX, MPI_CHAR, all, CONT_ADDR_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
    int *ids = malloc((size_t)t->nodes * CONT_MAX_LEVELS * sizeof *ids);
    if (si->rank == 0) {
        char **addr = malloc((size_t)t->nodes * sizeof *addr);
        for (int n = 0; n < t->nodes; n++)
            addr[n] = all + (size_t)t->node_rank[t->node_start[n]] * CONT_ADDR_MAX;
        for (int r = 0; r < t->ranks && !rc; r++)
            if (strcmp(all + (size_t)r * CONT_ADDR_MAX, addr[t->rank_node[r]]) != 0) {
                snprintf(err, errlen,
                         "SLURM_TOPOLOGY_ADDR differs between ranks of node %d "
                         "(rank %d: '%.60s')",
                         t->rank_node[r], r, all + (size_t)r * CONT_ADDR_MAX);
                rc = -1;
            }
        rc = rc ? rc : cont_tree_ids(addr, t->nodes, &t->ndims, ids, err, errlen);
        t->switch_names = malloc((size_t)t->nodes * CONT_ADDR_MAX);
        for (int n = 0; t->switch_names && n < t->nodes; n++)
            memcpy(t->switch_names + (size_t)n * CONT_ADDR_MAX, addr[n], CONT_ADDR_MAX);
        free(addr);
    }
    free(all);
    if ((rc = share_verdict(rc, err, errlen)) == 0) {
        MPI_Bcast(&t->ndims, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(ids, t->nodes * t->ndims, MPI_INT, 0, MPI_COMM_WORLD);
        memcpy(t->node_coord, ids, (size_t)t->nodes * t->ndims * sizeof *ids);
    }
    free(ids);
    return rc;
}

static int grid_from_request(struct cont_topo *t, const struct cont_topo_request *req, char *err,
                             size_t errlen)
{
    t->kind = CONT_GRID;
    if (cont_parse_dims(req->dims_text, t->dims, &t->ndims, err, errlen))
        return -1;
    for (int k = 0; k < t->ndims; k++)
        t->wrap[k] = req->torus;
    return req->wrap_text ? cont_parse_wrap(req->wrap_text, t->ndims, t->wrap, err, errlen) : 0;
}

static int place_grid(struct cont_topo *t, char *err, size_t errlen)
{
    long long positions = 1;
    for (int k = 0; k < t->ndims; k++)
        positions *= t->dims[k];
    if (!strcmp(t->coord_source, "row-major")) {
        if (t->nodes > positions) {
            char dims[96];
            cont_topo_dims_text(t, dims, sizeof dims);
            snprintf(err, errlen,
                     "%d nodes do not fit in dims %s (%lld positions); allowed: "
                     "dims with at least as many positions as nodes",
                     t->nodes, dims, positions);
            return -1;
        }
        for (int n = 0; n < t->nodes; n++)
            cont_rowmajor(t->dims, t->ndims, n, t->node_coord + (size_t)n * t->ndims);
    }
    t->position_node = malloc((size_t)positions * sizeof *t->position_node);
    if (!t->position_node) {
        snprintf(err, errlen, "out of memory for %lld grid positions", positions);
        return -1;
    }
    return cont_place_nodes(t->dims, t->ndims, t->nodes, t->node_coord, t->position_node, err,
                            errlen);
}

int cont_topo_resolve(struct cont_topo *t, const struct cont_topo_request *req,
                      const struct hpcp_sysinfo *si, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->ranks = si->ranks;
    t->rank_node = malloc((size_t)t->ranks * sizeof *t->rank_node);
    t->node_rank = malloc((size_t)t->ranks * sizeof *t->node_rank);
    t->node_coord = malloc((size_t)t->ranks * CONT_MAX_DIMS * sizeof *t->node_coord);
    if (!t->rank_node || !t->node_rank || !t->node_coord) {
        snprintf(err, errlen, "out of memory for the topology of %d ranks", t->ranks);
        return -1;
    }
    find_nodes(t, req, si);
    hpcp_copy_truncated(t->coord_source, sizeof t->coord_source,
                        req->coords      ? (strcmp(req->coords, "slurm") ? "csv" : "slurm")
                        : req->dims_text ? "row-major"
                                         : "flat");
    if (req->coords && strcmp(req->coords, "slurm"))
        hpcp_copy_truncated(t->coord_file, sizeof t->coord_file, req->coords);
    if (req->dims_text && grid_from_request(t, req, err, errlen))
        return -1;
    if (!strcmp(t->coord_source, "slurm")) {
        t->kind = CONT_TREE;
        return slurm_coordinates(t, si, err, errlen);
    }
    if (!strcmp(t->coord_source, "csv") && csv_coordinates(t, req, err, errlen))
        return -1;
    return t->kind == CONT_GRID ? place_grid(t, err, errlen) : 0;
}

void cont_topo_free(struct cont_topo *t)
{
    free(t->rank_node);
    free(t->node_coord);
    free(t->node_start);
    free(t->node_rank);
    free(t->position_node);
    free(t->switch_names);
    memset(t, 0, sizeof *t);
}
