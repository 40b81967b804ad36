/* RandomAccess options: the table (with help and defaults for describe),
 * which algorithms take which, and their values read into struct ra_params. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/options.h"
#include "hpcprobe/util.h"
#include "ra_params.h"

#define RA_ONLY(algos) "; only --algo " algos

static const struct hpcp_optspec ra_option_spec[RA_OPT_COUNT] = {
    [RA_OPT_LOG2] = {"--table-log2", HPCP_OPT_INT, RA_MIN_LOG2, RA_MAX_LOG2, 0, 0, 0, NULL, 0,
                     "table of 2^K 64-bit words: per process for single/star, global for mpi and "
                     "ceiling (default: sized from memory)",
                     NULL},
    [RA_OPT_FRACTION] = {"--memory-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL, 0,
                         "size like HPCC: the largest 2^K words that fit in F of the memory of "
                         "the ranks",
                         "0.5"},
    [RA_OPT_RNG] = {"--rng", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "poly|lcg", 0,
                    "HPCC's shift-register generator, or HPCC's 64-bit LCG", "poly"},
    [RA_OPT_LOOKAHEAD] = {"--lookahead", HPCP_OPT_INT, 1, RA_MAX_SWEEP_LOOKAHEAD, 0, 0, 0, NULL, 0,
                          "most updates pending per process; over 1024 needs "
                          "--allow-noncompliant and marks the record non-compliant",
                          "1024"},
    [RA_OPT_NONCOMPLIANT] = {"--allow-noncompliant", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                             "accept a look-ahead over 1024 or --updates-per-word not 4 (the "
                             "record is marked non-compliant)",
                             NULL},
    [RA_OPT_TIME_LIMIT] = {"--time-limit", HPCP_OPT_DOUBLE, 0, 0, 0.0, 1e9, 1, NULL, 0,
                           "stop issuing updates after S seconds; the record gives the updates "
                           "executed (default none)",
                           NULL},
    [RA_OPT_HUGEPAGES] = {"--hugepages", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "on|off", 0,
                          "advise the table to use transparent huge pages or not; what the OS "
                          "gave is in the record",
                          "on"},
    [RA_OPT_DUMP] = {"--dump-table", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                     "write the final table of the last repetition (before verification) as raw "
                     "little-endian 64-bit words in global index order (default none)",
                     NULL},
    [RA_OPT_OWNER] = {"--owner", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "division|predict", 0,
                      "how a rank finds the owner of a word when ranks or words per rank are not "
                      "powers of two: HPCC's division, or Garg & Sabharwal's prediction",
                      "division"},
    [RA_OPT_GRID] = {"--grid", HPCP_OPT_GRID, 1, 1 << 24, 0, 0, 0, NULL, RA_MAX_DIMS,
                     "the virtual grid; the sizes multiply to the number of ranks (default from "
                     "--dims)",
                     NULL},
    [RA_OPT_DIMS] = {"--dims", HPCP_OPT_INT, 1, RA_MAX_DIMS, 0, 0, 0, NULL, 0,
                     "dimensions of the grid (staged: its exchange stages), 1 to log2 P, shaped by "
                     "MPI_Dims_create (default min(3, log2 P))",
                     NULL},
    [RA_OPT_MODS] = {"--mods", HPCP_OPT_LIST, 0, 0, 0, 0, 0, "prepost|late-update|late-wait|isend",
                     4,
                     "Plimpton et al.'s optimisations: prepost (Mod1), late-update (Mod2), "
                     "late-wait (Mod3), isend (Mod6/7)",
                     "all"},
    [RA_OPT_THREADS] = {"--threads", HPCP_OPT_INT, 1, RA_MAX_THREADS, 0, 0, 0, NULL, 0,
                        "threads per rank, pinned, sharing the rank's table", "1"},
    [RA_OPT_MODE] = {"--mapping-mode", HPCP_OPT_INT, 1, 8, 0, 0, 0, NULL, 0,
                     "Garg et al.'s Table 1: 1 (a rank per core), 5, 6 (shared), 7, 8 (pipeline); "
                     "2-4 refused (default 1, or 5 / 8 for shared / pipeline)",
                     NULL},
    [RA_OPT_SYNC] = {"--sync", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                     "none, atomic or locks:K: how threads keep the shared table right", "atomic"},
    [RA_OPT_ROLES] = {"--roles", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                      "auto or K: routing threads (the rest update disjoint slices)", "auto"},
    [RA_OPT_OVERSUBSCRIBE] = {"--oversubscribe", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                              "allow more threads than cores", NULL},
    [RA_OPT_UPDATES_PER_WORD] = {"--updates-per-word", HPCP_OPT_INT, 1, RA_MAX_UPDATES_PER_WORD, 0,
                                 0, 0, NULL, 0,
                                 "F x table words updates instead of HPCC's 4 (needs "
                                 "--allow-noncompliant)",
                                 "4"},
    [RA_OPT_OVERLAP] = {"--overlap", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "on|off", 0,
                        "exchanges overlapped with the work, or lock-step (default on for "
                        "hypercube and pipeline, off for torus)",
                        NULL},
    [RA_OPT_LOOP] = {"--update-loop", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "prefetch|plain", 0,
                     "the serial loop: prefetch each word when its update is generated and XOR "
                     "it 128 updates later, or HPCC's plain loop",
                     "prefetch"},
    [RA_OPT_SIZE_RULE] = {"--size-rule", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "memory|caches", 0,
                          "the table without --table-log2: as HPCC, from --memory-fraction of "
                          "the memory; or a power of two >= 4x the caches each rank's share "
                          "(docs/sizing.md)",
                          "memory"},
};

const struct hpcp_cli ra_cli = {ra_option_spec,
                                RA_OPT_COUNT,
                                HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_WARMUP) |
                                    HPCP_TAKES(HPCP_COMMON_NO_VERIFY) |
                                    HPCP_TAKES(HPCP_COMMON_OUT) | HPCP_TAKES(HPCP_COMMON_QUIET) |
                                    HPCP_TAKES(HPCP_COMMON_MEMORY_CAP),
                                0,
                                1,
                                0,
                                0,
                                NULL};

/* The RA_TAKES_* bit an algorithm needs for an option (0: every algorithm
 * takes it): the bits ra_params_check_algorithm refuses by. */
static const unsigned needs[RA_OPT_COUNT] = {
    [RA_OPT_OWNER] = RA_TAKES_OWNER,       [RA_OPT_GRID] = RA_TAKES_GRID,
    [RA_OPT_DIMS] = RA_TAKES_GRID,         [RA_OPT_MODS] = RA_TAKES_MODS,
    [RA_OPT_THREADS] = RA_TAKES_MULTICORE, [RA_OPT_MODE] = RA_TAKES_MULTICORE,
    [RA_OPT_SYNC] = RA_TAKES_SYNC,         [RA_OPT_ROLES] = RA_TAKES_ROLES,
    [RA_OPT_OVERLAP] = RA_TAKES_OVERLAP,   [RA_OPT_LOOP] = RA_TAKES_LOOP,
};

static int ra_takes(const struct hpcp_kernel *k, int option)
{
    return option >= RA_OPT_COUNT || !needs[option] || (ra_algo(k)->takes & needs[option]);
}

const struct hpcp_options_desc ra_options_desc = {&ra_cli, ra_takes};

static const struct hpcp_metric_desc ra_metrics[] = {
    {"update_rate", "updates/s", "table updates per second, per repetition (GUPS x 1e9)"},
    {"time", "s", "seconds per repetition"},
    {"updates", "updates", "updates executed per repetition"},
    {"verify_time", "s", "seconds of each verification"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc ra_star_metrics[] = {
    {"update_rate_per_rank_mean", "updates/s", "mean over the ranks, per repetition (StarRA)"},
    {"update_rate_per_rank_min", "updates/s", "slowest rank, per repetition"},
    {"update_rate_per_rank_max", "updates/s", "fastest rank, per repetition"},
    {"update_rate_sum", "updates/s", "sum over the ranks, per repetition"},
    {"best_update_rate", "updates/s", "each rank's best repetition (series, x: rank)"},
    {"time", "s", "seconds per repetition"},
    {"updates", "updates", "updates executed per repetition"},
    {"verify_time", "s", "seconds of each verification"},
    {NULL, NULL, NULL}};
const struct hpcp_records_desc ra_records = {ra_metrics, "update_rate"};
const struct hpcp_records_desc ra_star_records = {ra_star_metrics, "update_rate_per_rank_mean"};

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

/* --mods, as the list grammar read it: a bit per optimisation. */
static int mods_from_list(const char *text)
{
    int items[MOD_COUNT], n = 0, mods = 0;
    char err[8];
    hpcp_parse_list(&ra_option_spec[RA_OPT_MODS], text, items, &n, err, sizeof err);
    for (int i = 0; i < n; i++)
        mods |= 1 << items[i];
    return mods;
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

int ra_params_from_options(struct ra_params *p, const struct hpcp_optval *v,
                           const struct hpcp_common *c, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->run = *c;
    p->size_by_caches = v[RA_OPT_SIZE_RULE].set && strcmp(v[RA_OPT_SIZE_RULE].s, "caches") == 0;
    if (v[RA_OPT_LOG2].set + v[RA_OPT_FRACTION].set + v[RA_OPT_SIZE_RULE].set > 1) {
        snprintf(err, errlen, "give one of --table-log2, --memory-fraction and --size-rule");
        return -1;
    }
    p->table_log2 = v[RA_OPT_LOG2].set ? (int)v[RA_OPT_LOG2].i : 0;
    p->memory_fraction = v[RA_OPT_LOG2].set || p->size_by_caches ? -1.0
                         : v[RA_OPT_FRACTION].set                ? v[RA_OPT_FRACTION].d
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
    p->mods = v[RA_OPT_MODS].set ? mods_from_list(v[RA_OPT_MODS].s) : RA_MODS_ALL;
    if (v[RA_OPT_GRID].set && v[RA_OPT_DIMS].set) {
        snprintf(err, errlen, "give --grid or --dims, not both");
        return -1;
    }
    if (v[RA_OPT_GRID].set && hpcp_parse_grid(&ra_option_spec[RA_OPT_GRID], v[RA_OPT_GRID].s,
                                              p->grid, &p->ndims, err, errlen))
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
