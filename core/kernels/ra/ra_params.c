/* RandomAccess parameters: HPCC-like sizing, the memory check and the checks
 * of an algorithm's options, all before anything large is allocated. The
 * options themselves are read in ra_options.c. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/options.h"
#include "hpcprobe/util.h"
#include "ra_params.h"

static int floor_log2(double x)
{
    return x >= 1.0 ? (int)floor(log2(x)) : -1;
}

/* The sizing layer's rule: HPCC's (the largest power of two of words within
 * a fraction of the memory) or the caches' (sizing.h). */
static int size_by_rule(struct ra_params *p, int distributed, int copies, char *err, size_t errlen)
{
    struct hpcp_sized s;
    double cap = p->run.memory_cap;
    if (p->size_by_caches)
        hpcp_size_ra_caches(&p->node, copies, distributed, cap, &s);
    else
        hpcp_size_ra_memory(&p->node, p->memory_fraction, copies, distributed, RA_MIN_LOG2,
                            RA_MAX_LOG2, cap, &s);
    if (s.value == (uint64_t)-1) {
        snprintf(err, errlen,
                 "--memory-fraction %g leaves too little memory for a table "
                 "(at least 2^%d words); give a larger fraction or --table-log2",
                 p->memory_fraction, RA_MIN_LOG2);
        return -1;
    }
    p->table_log2 = s.value < RA_MIN_LOG2   ? RA_MIN_LOG2
                    : s.value > RA_MAX_LOG2 ? RA_MAX_LOG2
                                            : (int)s.value;
    /* the same table on every rank, should the nodes differ */
    MPI_Allreduce(MPI_IN_PLACE, &p->table_log2, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    hpcp_copy_truncated(p->size_rule, sizeof p->size_rule, s.rule);
    return 0;
}

int ra_params_size(struct ra_params *p, int distributed, int copies, const struct hpcp_sysinfo *si,
                   char *err, size_t errlen)
{
    hpcp_node_of(&p->node, si);
    snprintf(p->size_rule, sizeof p->size_rule, "option");
    if (p->table_log2 == 0 && size_by_rule(p, distributed, copies, err, errlen))
        return -1;
    p->table_words = 1ULL << p->table_log2;
    if (distributed && p->table_words < (uint64_t)si->ranks) {
        snprintf(err, errlen,
                 "--table-log2 %d gives %llu words, fewer than the %d ranks; "
                 "allowed: --table-log2 from %d to %d",
                 p->table_log2, (unsigned long long)p->table_words, si->ranks,
                 (int)ceil(log2((double)si->ranks)), RA_MAX_LOG2);
        return -1;
    }
    return 0;
}

/* Collective: 0 when every node can hold its ranks' tables, else -1 and a
 * message (valid on every rank) with the largest table that fits. */
int ra_params_check_memory(const struct ra_params *p, int distributed, int active,
                           const struct hpcp_sysinfo *si, char *err, size_t errlen)
{
    double words = !active       ? 0.0
                   : distributed ? ceil((double)p->table_words / si->ranks)
                                 : (double)p->table_words;
    double need = words * sizeof(uint64_t) + (active ? 4.0 * (1 << 20) : 0.0);
    /* the memory cap of the node (sizing.h), on this node's own MemAvailable */
    double node_need = 0, avail = p->run.memory_cap * (double)hpcp_meminfo_bytes("MemAvailable:");
    int node_active = 0;
    MPI_Allreduce(&need, &node_need, 1, MPI_DOUBLE, MPI_SUM, si->node_comm);
    MPI_Allreduce(&active, &node_active, 1, MPI_INT, MPI_SUM, si->node_comm);
    double fit = node_active ? avail / node_active / sizeof(uint64_t) : 1e300, fit_min;
    MPI_Allreduce(&fit, &fit_min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (!hpcp_any(MPI_COMM_WORLD, node_need > avail))
        return 0;
    char a[32], b[32];
    int kmax = floor_log2(distributed ? fit_min * si->ranks : fit_min);
    snprintf(err, errlen,
             "a table of 2^%d words (%s per %s) does not fit the memory cap "
             "(--memory-cap %g of the memory available: %s per rank on the fullest node); "
             "allowed: --table-log2 <= %d",
             p->table_log2, hpcp_format_bytes(words * sizeof(uint64_t), a, sizeof a),
             distributed ? "rank" : "process", p->run.memory_cap,
             hpcp_format_bytes(fit_min * sizeof(uint64_t), b, sizeof b), kmax);
    return -1;
}

static int floor_log2_int(int x)
{
    int k = 0;
    while (x >>= 1)
        k++;
    return k;
}

/* The grid of torus, staged and pipeline: --grid as given, else --dims
 * (1 to log2 P, default min(3, log2 P)) factorised by MPI_Dims_create. */
static int check_grid(struct ra_params *p, int ranks, char *err, size_t errlen)
{
    int most = floor_log2_int(ranks) > 1 ? floor_log2_int(ranks) : 1;
    if (p->grid_given) {
        long long product = 1;
        char shape[96] = "";
        for (int i = 0; i < p->ndims; i++) {
            product *= p->grid[i];
            size_t u = strlen(shape);
            snprintf(shape + u, sizeof shape - u, "%s%d", i ? "x" : "", p->grid[i]);
        }
        if (product != ranks) {
            snprintf(err, errlen,
                     "--grid %s holds %lld ranks, but %d are running; the sizes "
                     "must multiply to the number of ranks",
                     shape, product, ranks);
            return -1;
        }
        return 0;
    }
    if (p->ndims > most) {
        snprintf(err, errlen,
                 "--dims %d is more than log2 of the %d ranks; allowed: --dims "
                 "from 1 to %d",
                 p->ndims, ranks, most);
        return -1;
    }
    if (p->ndims == 0)
        p->ndims = most < 3 ? most : 3;
    memset(p->grid, 0, sizeof p->grid);
    MPI_Dims_create(ranks, p->ndims, p->grid);
    return 0;
}

static int refuse(const char *option, const char *algorithm, const char *takes, char *err,
                  size_t errlen)
{
    snprintf(err, errlen, "%s applies to --algo %s only, not to '%s'", option, takes, algorithm);
    return -1;
}

/* Table 1 of Garg et al.: table, generation and 1024 look-ahead each per
 * core (C) or per node (N). 2-4 put a per-core table under per-node
 * generation or look-ahead, which the paper rules out. */
static int check_mode(struct ra_params *p, const struct hpcp_kernel *k, char *err, size_t errlen)
{
    const struct ra_algorithm *a = ra_algo(k);
    int m = p->mapping_mode;
    if (m >= 2 && m <= 4) {
        snprintf(err, errlen,
                 "--mapping-mode %d is refused: a per-core table needs per-core "
                 "generation and a per-core look-ahead (Garg et al., Table 1); allowed: 1 (a rank "
                 "per core), 5, 6 (--algo shared), 7, 8 (--algo pipeline)",
                 m);
        return -1;
    }
    if (m == 0)
        m = p->mapping_mode = a->default_mode;
    const char *wants = m == 1   ? "reference|alltoall|hypercube|torus|staged (one rank per core)"
                        : m <= 6 ? "shared"
                                 : "pipeline";
    if (!(a->modes & (1 << m))) {
        snprintf(err, errlen, "--mapping-mode %d runs with --algo %s, not '%s'", m, wants,
                 k->algorithm);
        return -1;
    }
    if (m == 1 && p->threads > 1) {
        snprintf(err, errlen,
                 "--threads %d: mapping mode 1 is one rank per core with its own "
                 "table; launch more ranks, or use --algo shared|pipeline for threads sharing "
                 "a table",
                 p->threads);
        return -1;
    }
    if (m == 5 || m == 7) /* HPCC allows 1, 6 and 8 (Garg et al., section 3.2) */
        p->compliant = 0;
    return 0;
}

static int check_multicore(struct ra_params *p, const struct hpcp_kernel *k, char *err,
                           size_t errlen)
{
    const struct ra_algorithm *a = ra_algo(k);
    if (!(a->takes & RA_TAKES_MULTICORE)) {
        if (p->threads_given || p->mode_given || p->sync_given || p->roles_given)
            return refuse(p->threads_given ? "--threads"
                          : p->mode_given  ? "--mapping-mode"
                          : p->sync_given  ? "--sync"
                                           : "--roles",
                          k->algorithm, "shared|pipeline of ra mpi", err, errlen);
        return 0;
    }
    if (check_mode(p, k, err, errlen))
        return -1;
    if (p->sync_given && !(a->takes & RA_TAKES_SYNC)) {
        snprintf(err, errlen, "--sync applies to --algo shared only%s", a->sync_refusal);
        return -1;
    }
    if (p->roles_given && !(a->takes & RA_TAKES_ROLES))
        return refuse("--roles", k->algorithm, "pipeline", err, errlen);
    if ((a->takes & RA_TAKES_ROLES) && p->roles >= p->threads) {
        snprintf(err, errlen,
                 "--roles %d leaves no thread to update the table with --threads "
                 "%d; allowed: auto or 0 to %d routing threads",
                 p->roles, p->threads, p->threads - 1);
        return -1;
    }
    return 0;
}

/* The pipeline's routing threads: auto gives one per axis that crosses
 * ranks, keeping one thread to update; on one rank the generator also
 * updates (--roles 0). More routing threads than axes would idle. */
static int resolve_roles(struct ra_params *p, char *err, size_t errlen)
{
    int axes = 0, provided = MPI_THREAD_SINGLE;
    for (int k = 0; k < p->ndims; k++)
        axes += p->grid[k] > 1;
    int most = axes > 1 ? axes : 1;
    if (p->roles < 0)
        p->roles = axes == 0 ? 0 : axes < p->threads - 1 ? axes : p->threads - 1;
    if (p->roles > most) {
        snprintf(err, errlen,
                 "--roles %d: the grid has %d axis(es) across ranks to share among "
                 "routing threads (the generator takes the first); allowed: auto or 0 to %d",
                 p->roles, axes, most < p->threads - 1 ? most : p->threads - 1);
        return -1;
    }
    MPI_Query_thread(&provided);
    if (p->roles > 1 && provided < MPI_THREAD_MULTIPLE) {
        snprintf(err, errlen,
                 "--roles %d needs MPI_THREAD_MULTIPLE (several threads call MPI), "
                 "which this MPI library does not provide; allowed here: --roles 0 or 1",
                 p->roles);
        return -1;
    }
    return 0;
}

int ra_params_check_threads(const struct ra_params *p, const struct hpcp_sysinfo *si, char *err,
                            size_t errlen)
{
    cpu_set_t set;
    int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : si->cores_per_node;
    /* One thread per rank is the launcher's business: it placed the ranks. */
    int over = p->threads > 1 &&
               (p->threads > mine || p->threads * si->ranks_on_my_node > si->cores_per_node);
    int any = hpcp_any(MPI_COMM_WORLD, over && !p->oversubscribe);
    if (any)
        snprintf(err, errlen,
                 "--threads %d with %d rank(s) on a node is more threads than "
                 "cores (%d on the node, %d this rank may use); lower --threads or add "
                 "--oversubscribe",
                 p->threads, si->ranks_per_node_max, si->cores_per_node, mine);
    return any ? -1 : 0;
}

int ra_params_check_algorithm(struct ra_params *p, const struct hpcp_kernel *k, int ranks,
                              char *err, size_t errlen)
{
    const struct ra_algorithm *a = ra_algo(k);
    if (check_multicore(p, k, err, errlen))
        return -1;
    if (!(a->takes & RA_TAKES_OWNER) && p->owner_given)
        return refuse("--owner", k->algorithm, "reference|alltoall|hypercube|torus|staged", err,
                      errlen);
    if (!(a->takes & RA_TAKES_GRID) && (p->grid_given || p->ndims))
        return refuse(p->grid_given ? "--grid" : "--dims", k->algorithm, "torus|staged|pipeline",
                      err, errlen);
    if (!(a->takes & RA_TAKES_MODS) && p->mods_given)
        return refuse("--mods", k->algorithm, "hypercube", err, errlen);
    if (!(a->takes & RA_TAKES_MODS))
        p->mods = 0;
    if (!(a->takes & RA_TAKES_OVERLAP) && p->overlap_given)
        return refuse("--overlap", k->algorithm, "hypercube|torus|pipeline", err, errlen);
    if (!p->overlap_given)
        p->overlap = (a->takes & RA_TAKES_OVERLAP) && a->overlap_default;
    if (!(a->takes & RA_TAKES_LOOP) && p->loop_given)
        return refuse("--update-loop", k->algorithm, "serial|owned (ra single, star, ceiling)", err,
                      errlen);
    if ((a->takes & RA_TAKES_GRID) && check_grid(p, ranks, err, errlen))
        return -1;
    if ((a->takes & RA_TAKES_ROLES) && resolve_roles(p, err, errlen))
        return -1;
    struct ra_dist d;
    ra_dist_init(&d, p->table_words, ranks);
    return ra_dist_set_rule(&d, p->owner, err, errlen);
}
