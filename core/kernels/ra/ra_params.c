/* RandomAccess parameters: options, HPCC-like sizing, and the memory check,
 * all before anything large is allocated. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/options.h"
#include "hpcprobe/util.h"
#include "ra_params.h"

static const struct hpcp_optspec ra_option_spec[RA_OPT_COUNT] = {
    [RA_OPT_LOG2] = {"--table-log2", HPCP_OPT_INT, RA_MIN_LOG2, RA_MAX_LOG2, 0, 0, 0, NULL},
    [RA_OPT_FRACTION] = {"--memory-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL},
    [RA_OPT_RNG] = {"--rng", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "poly|lcg"},
    [RA_OPT_LOOKAHEAD] = {"--lookahead", HPCP_OPT_INT, 1, RA_MAX_SWEEP_LOOKAHEAD, 0, 0, 0, NULL},
    [RA_OPT_NONCOMPLIANT] = {"--allow-noncompliant", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL},
    [RA_OPT_TIME_LIMIT] = {"--time-limit", HPCP_OPT_DOUBLE, 0, 0, 0.0, 1e9, 1, NULL},
    [RA_OPT_HUGEPAGES] = {"--hugepages", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "on|off"},
    [RA_OPT_DUMP] = {"--dump-table", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [RA_OPT_OWNER] = {"--owner", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "division|predict"},
    [RA_OPT_GRID] = {"--grid", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [RA_OPT_DIMS] = {"--dims", HPCP_OPT_INT, 1, RA_MAX_DIMS, 0, 0, 0, NULL},
    [RA_OPT_MODS] = {"--mods", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [RA_OPT_THREADS] = {"--threads", HPCP_OPT_INT, 1, RA_MAX_THREADS, 0, 0, 0, NULL},
    [RA_OPT_MODE] = {"--mapping-mode", HPCP_OPT_INT, 1, 8, 0, 0, 0, NULL},
    [RA_OPT_SYNC] = {"--sync", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [RA_OPT_ROLES] = {"--roles", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [RA_OPT_OVERSUBSCRIBE] = {"--oversubscribe", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL},
    [RA_OPT_UPDATES_PER_WORD] = {"--updates-per-word", HPCP_OPT_INT, 1, RA_MAX_UPDATES_PER_WORD, 0,
                                 0, 0, NULL},
    [RA_OPT_OVERLAP] = {"--overlap", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "on|off"},
    [RA_OPT_LOOP] = {"--update-loop", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "prefetch|plain"},
};

const struct hpcp_cli ra_cli = {ra_option_spec,
                                RA_OPT_COUNT,
                                HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_WARMUP) |
                                    HPCP_TAKES(HPCP_COMMON_NO_VERIFY) |
                                    HPCP_TAKES(HPCP_COMMON_OUT) | HPCP_TAKES(HPCP_COMMON_QUIET),
                                0,
                                1,
                                0,
                                0};

static const char *const mod_names[] = {"prepost", "late-update", "late-wait", "isend"};
#define MOD_COUNT ((int)(sizeof mod_names / sizeof mod_names[0]))

const char *ra_mods_string(int mods, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < MOD_COUNT; i++)
        if (mods & (1 << i))
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                                     used ? "," : "", mod_names[i]);
    if (!used)
        snprintf(buf, len, "none");
    return buf;
}

/* "none", "all", or a comma list of mod_names. */
static int parse_mods(const char *text, int *mods, char *err, size_t errlen)
{
    *mods = 0;
    if (strcmp(text, "none") == 0)
        return 0;
    if (strcmp(text, "all") == 0) {
        *mods = RA_MODS_ALL;
        return 0;
    }
    char word[64];
    for (const char *at = text; *at;) {
        size_t n = strcspn(at, ",");
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), at);
        int i = 0;
        while (i < MOD_COUNT && strcmp(word, mod_names[i]) != 0)
            i++;
        if (i == MOD_COUNT) {
            snprintf(err, errlen,
                     "--mods: unknown optimisation '%s' (allowed: none, all, or a "
                     "comma list of prepost, late-update, late-wait, isend)",
                     word);
            return -1;
        }
        *mods |= 1 << i;
        at += n + (at[n] == ',');
    }
    return 0;
}

/* "none", "atomic" or "locks:K". */
static int parse_sync(const char *text, struct ra_params *p, char *err, size_t errlen)
{
    char *end = NULL;
    long k = 0;
    p->locks = 0;
    if (strcmp(text, "none") == 0 || strcmp(text, "atomic") == 0) {
        p->sync = text[0] == 'n' ? RA_SYNC_NONE : RA_SYNC_ATOMIC;
        return 0;
    }
    if (strncmp(text, "locks:", 6) == 0)
        k = strtol(text + 6, &end, 10);
    if (!end || *end || end == text + 6 || k < 1 || k > RA_MAX_LOCKS) {
        snprintf(err, errlen,
                 "--sync '%s' is not a sync: allowed none, atomic, or locks:K "
                 "with K striped locks from 1 to %d",
                 text, RA_MAX_LOCKS);
        return -1;
    }
    p->sync = RA_SYNC_LOCKS;
    p->locks = (int)k;
    return 0;
}

/* "auto" (-1) or a count of routing threads. */
static int parse_roles(const char *text, int *roles, char *err, size_t errlen)
{
    char *end;
    long k = strtol(text, &end, 10);
    if (strcmp(text, "auto") == 0) {
        *roles = -1;
        return 0;
    }
    if (end == text || *end || k < 0 || k >= RA_MAX_THREADS) {
        snprintf(err, errlen,
                 "--roles '%s' is not a role split: allowed auto, or the number "
                 "of routing threads k' from 0 to threads - 1",
                 text);
        return -1;
    }
    *roles = (int)k;
    return 0;
}

static int multicore_from_options(struct ra_params *p, const struct hpcp_optval *v, char *err,
                                  size_t errlen)
{
    p->threads = v[RA_OPT_THREADS].set ? (int)v[RA_OPT_THREADS].i : 1;
    p->mapping_mode = v[RA_OPT_MODE].set ? (int)v[RA_OPT_MODE].i : 0;
    p->sync = RA_SYNC_ATOMIC;
    p->roles = -1;
    if (v[RA_OPT_SYNC].set && parse_sync(v[RA_OPT_SYNC].s, p, err, errlen))
        return -1;
    if (v[RA_OPT_ROLES].set && parse_roles(v[RA_OPT_ROLES].s, &p->roles, err, errlen))
        return -1;
    p->oversubscribe = v[RA_OPT_OVERSUBSCRIBE].set;
    p->threads_given = v[RA_OPT_THREADS].set;
    p->mode_given = v[RA_OPT_MODE].set;
    p->sync_given = v[RA_OPT_SYNC].set;
    p->roles_given = v[RA_OPT_ROLES].set;
    p->updates_per_word =
        v[RA_OPT_UPDATES_PER_WORD].set ? (int)v[RA_OPT_UPDATES_PER_WORD].i : RA_UPDATES_PER_WORD;
    if (p->updates_per_word != RA_UPDATES_PER_WORD) {
        if (!v[RA_OPT_NONCOMPLIANT].set) {
            snprintf(err, errlen,
                     "--updates-per-word %d is not HPCC's %d updates per table "
                     "word; add --allow-noncompliant to run it anyway (the record is marked "
                     "non-compliant)",
                     p->updates_per_word, RA_UPDATES_PER_WORD);
            return -1;
        }
        p->compliant = 0;
    }
    return 0;
}

/* "4x4x4" into grid[] and *ndims. */
static int parse_grid(const char *text, int *grid, int *ndims, char *err, size_t errlen)
{
    int n = 0;
    const char *at = text;
    while (*at) {
        char *end;
        long v = strtol(at, &end, 10);
        if (end == at || v < 1 || v > (1 << 24) || n == RA_MAX_DIMS || (*end && *end != 'x') ||
            (*end == 'x' && !end[1]))
            break;
        grid[n++] = (int)v;
        at = *end ? end + 1 : end;
    }
    if (*at || n == 0) {
        snprintf(err, errlen,
                 "--grid '%s' is not a grid: give 1 to %d sizes >= 1 joined by "
                 "'x', such as 4x4x4",
                 text, RA_MAX_DIMS);
        return -1;
    }
    *ndims = n;
    return 0;
}

int ra_params_from_options(struct ra_params *p, const struct hpcp_optval *v,
                           const struct hpcp_common *c, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->run = *c;
    if (v[RA_OPT_LOG2].set && v[RA_OPT_FRACTION].set) {
        snprintf(err, errlen, "give --table-log2 or --memory-fraction, not both");
        return -1;
    }
    p->table_log2 = v[RA_OPT_LOG2].set ? (int)v[RA_OPT_LOG2].i : 0;
    p->memory_fraction = v[RA_OPT_LOG2].set       ? -1.0
                         : v[RA_OPT_FRACTION].set ? v[RA_OPT_FRACTION].d
                                                  : RA_DEFAULT_MEMORY_FRACTION;
    p->rng = v[RA_OPT_RNG].set && strcmp(v[RA_OPT_RNG].s, "lcg") == 0 ? RA_RNG_LCG : RA_RNG_POLY;
    p->lookahead = v[RA_OPT_LOOKAHEAD].set ? (int)v[RA_OPT_LOOKAHEAD].i : RA_MAX_LOOKAHEAD;
    p->compliant = p->lookahead <= RA_MAX_LOOKAHEAD;
    if (!p->compliant && !v[RA_OPT_NONCOMPLIANT].set) {
        snprintf(err, errlen,
                 "--lookahead %d is over HPCC's limit of %d pending updates per process; "
                 "add --allow-noncompliant to run it anyway (the record is marked non-compliant)",
                 p->lookahead, RA_MAX_LOOKAHEAD);
        return -1;
    }
    p->owner = v[RA_OPT_OWNER].set && strcmp(v[RA_OPT_OWNER].s, "predict") == 0 ? RA_OWNER_PREDICT
                                                                                : RA_OWNER_DIVISION;
    p->mods = RA_MODS_ALL;
    if (v[RA_OPT_MODS].set && parse_mods(v[RA_OPT_MODS].s, &p->mods, err, errlen))
        return -1;
    if (v[RA_OPT_GRID].set && v[RA_OPT_DIMS].set) {
        snprintf(err, errlen, "give --grid or --dims, not both");
        return -1;
    }
    if (v[RA_OPT_GRID].set && parse_grid(v[RA_OPT_GRID].s, p->grid, &p->ndims, err, errlen))
        return -1;
    if (v[RA_OPT_DIMS].set)
        p->ndims = (int)v[RA_OPT_DIMS].i;
    p->grid_given = v[RA_OPT_GRID].set;
    p->mods_given = v[RA_OPT_MODS].set;
    p->overlap = !(v[RA_OPT_OVERLAP].set && strcmp(v[RA_OPT_OVERLAP].s, "off") == 0);
    p->overlap_given = v[RA_OPT_OVERLAP].set;
    p->loop = v[RA_OPT_LOOP].set && strcmp(v[RA_OPT_LOOP].s, "plain") == 0 ? RA_LOOP_PLAIN
                                                                           : RA_LOOP_PREFETCH;
    p->loop_given = v[RA_OPT_LOOP].set;
    p->owner_given = v[RA_OPT_OWNER].set;
    p->time_limit_s = v[RA_OPT_TIME_LIMIT].set ? v[RA_OPT_TIME_LIMIT].d : 0.0;
    p->hugepages = !(v[RA_OPT_HUGEPAGES].set && strcmp(v[RA_OPT_HUGEPAGES].s, "off") == 0);
    p->dump = v[RA_OPT_DUMP].set ? v[RA_OPT_DUMP].s : NULL;
    return multicore_from_options(p, v, err, errlen);
}

static int floor_log2(double x)
{
    return x >= 1.0 ? (int)floor(log2(x)) : -1;
}

/* HPCC sizes the table as the largest power of two of words within a
 * fraction of the memory: per process for single/star, in total for mpi. */
static int size_from_memory(struct ra_params *p, int distributed, const struct hpcp_sysinfo *si,
                            char *err, size_t errlen)
{
    double per_rank = (double)si->memory_total_min_node * p->memory_fraction /
                      (double)si->ranks_per_node_max / sizeof(uint64_t);
    int k = floor_log2(distributed ? per_rank * si->ranks : per_rank);
    if (k > RA_MAX_LOG2)
        k = RA_MAX_LOG2;
    if (k < RA_MIN_LOG2) {
        snprintf(err, errlen,
                 "--memory-fraction %g leaves too little memory for a table "
                 "(at least 2^%d words); give a larger fraction or --table-log2",
                 p->memory_fraction, RA_MIN_LOG2);
        return -1;
    }
    p->table_log2 = k;
    return 0;
}

int ra_params_size(struct ra_params *p, int distributed, const struct hpcp_sysinfo *si, char *err,
                   size_t errlen)
{
    if (p->memory_fraction > 0 && size_from_memory(p, distributed, si, err, errlen))
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
    double node_need = 0, avail = (double)hpcp_meminfo_bytes("MemAvailable:");
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
             "a table of 2^%d words (%s per %s) does not fit in the memory "
             "available (%s on the fullest node for its ranks); allowed: --table-log2 <= %d",
             p->table_log2, hpcp_format_bytes(words * sizeof(uint64_t), a, sizeof a),
             distributed ? "rank" : "process",
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

/* The torus grid: --grid as given, else --dims (default min(3, log2 P))
 * factorised by MPI_Dims_create. */
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
    const char *wants = m == 1   ? "reference|alltoall|hypercube|torus (one rank per core)"
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
        return refuse("--owner", k->algorithm, "reference|alltoall|hypercube|torus", err, errlen);
    if (!(a->takes & RA_TAKES_GRID) && (p->grid_given || p->ndims))
        return refuse(p->grid_given ? "--grid" : "--dims", k->algorithm, "torus|pipeline", err,
                      errlen);
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
