/* Where each rank sits on the network (docs/kernels/contention.md): nodes
 * (from MPI_Comm_split_type shared, or blocks of --ranks-per-node ranks),
 * their coordinates on a torus/mesh (row-major or from a CSV) or their
 * switch path in a tree (Slurm's SLURM_TOPOLOGY_ADDR), and hop distances.
 * The pure functions here are unit-tested (core/tests/test_contention.c);
 * cont_topo_resolve is the collective that fills a topology. */
#ifndef HPCPROBE_CONT_TOPO_H
#define HPCPROBE_CONT_TOPO_H
#include <stddef.h>

#include "hpcprobe/sysinfo.h"

#define CONT_MAX_DIMS 8
#define CONT_MAX_LEVELS 8
#define CONT_ADDR_MAX 256       /* a SLURM_TOPOLOGY_ADDR, with its NUL */
/* Positions of a grid (product of the dims): 2^24, far past any machine's. */
#define CONT_MAX_POSITIONS (1 << 24)

/* flat: no topology known, every node behind one switch (2 links apart);
 * grid: torus, mesh or mixed; tree: switch levels from Slurm. */
enum cont_kind { CONT_FLAT, CONT_GRID, CONT_TREE };

struct cont_topo {
    enum cont_kind kind;
    int ndims;                  /* grid: dimensions; tree: switch levels */
    int dims[CONT_MAX_DIMS];
    int wrap[CONT_MAX_DIMS];    /* wraparound asked for (a size <= 2 has none of its own) */
    int dims_inferred;          /* from the CSV's largest coordinates */
    int ranks, nodes, ranks_per_node; /* ranks_per_node: the most on a node */
    int nodes_emulated;         /* --ranks-per-node: nodes are blocks of ranks */
    char coord_source[16];      /* "flat", "row-major", "csv", "slurm" */
    char coord_file[160];
    int *rank_node;             /* [ranks] node of each rank, nodes numbered by lowest rank */
    int *node_coord;            /* [nodes * ndims] grid coordinates or switch ids per level */
    int *node_start; /* [nodes + 1] node n's ranks: node_rank[start[n] .. start[n+1]) */
    int *node_rank; /* [ranks] ascending within each node */
    int *position_node; /* grid: [positions] node at each position, -1 for none */
    char *switch_names; /* tree, rank 0: each node's address, CONT_ADDR_MAX apart */
};

/* What the options asked for (cont_params.c fills it). */
struct cont_topo_request {
    const char *dims_text; /* "8x8x16", NULL: none */
    int torus; /* --torus (1) or --mesh (0) */
    const char *wrap_text; /* "1,1,0", NULL: as --torus/--mesh says */
    int ranks_per_node; /* 0: MPI_Comm_split_type shared */
    const char *coords; /* NULL, "slurm", or a CSV path */
};

/* "8x8x16" -> dims; "1,0,1" -> wrap. 0, or -1 with one line in err. */
int cont_parse_dims(const char *text, int *dims, int *nd, char *err, size_t errlen);
int cont_parse_wrap(const char *text, int nd, int *wrap, char *err, size_t errlen);

/* Signed steps from a to b along each grid dimension, the short way round a
 * ring (a tie, d = D/2, goes the + way): dimension-order routing's moves. */
void cont_grid_steps(const int *dims, const int *wrap, int nd, const int *a, const int *b,
                     int *steps);
int cont_grid_hops(const int *dims, const int *wrap, int nd, const int *a, const int *b);
/* Links between two distinct nodes of a tree: up to the lowest switch both
 * hang under and down again, 2 * (levels - common prefix + 1): 2 under one
 * leaf switch (and with no levels: one switch, flat). */
int cont_tree_hops(int levels, const int *a, const int *b);
/* Hop distance between the nodes of two ranks (0 on the same node). */
int cont_hops(const struct cont_topo *t, int rank_a, int rank_b);
/* Node n's coordinates in row-major order of dims. */
void cont_rowmajor(const int *dims, int nd, long long n, int *coords);

/* Parse a CSV of "rank,x,y,..." lines (a first line that is not numbers is
 * a header; blank lines and '#' comments are skipped) for `ranks` ranks.
 * nd: the coordinates per line expected, or 0 to take the first line's.
 * coords[ranks * nd]. 0, or -1 with one line: a rank missing or twice, out
 * of range, a malformed line. */
int cont_csv_parse(const char *text, int ranks, int *nd, int *coords, char *err, size_t errlen);

/* Check node coordinates against the dims: inside, and no two nodes at one
 * position. position_node[positions] is filled. 0, or -1 with one line. */
int cont_place_nodes(const int *dims, int nd, int nodes, const int *node_coord, int *position_node,
                     char *err, size_t errlen);

/* Tree: switch ids per level from addresses "s0.s3.node7" (switches top
 * down, the node last), one per node. levels out; ids[nodes * levels].
 * 0, or -1 with one line (differing depths, an empty name). */
int cont_tree_ids(char *const *addrs, int nodes, int *levels, int *ids, char *err, size_t errlen);

/* Collective over MPI_COMM_WORLD: nodes, coordinates and checks. 0, or -1
 * with one line in err (the same on every rank). */
int cont_topo_resolve(struct cont_topo *t, const struct cont_topo_request *req,
                      const struct hpcp_sysinfo *si, char *err, size_t errlen);
void cont_topo_free(struct cont_topo *t);

/* "torus", "mesh", "mixed", "tree" or "flat"; dims as "8x8x16", wrap as "1,1,0". */
const char *cont_topo_kind_name(const struct cont_topo *t);
void cont_topo_dims_text(const struct cont_topo *t, char *buf, size_t len);
void cont_topo_wrap_text(const struct cont_topo *t, char *buf, size_t len);

#endif
