/* `hpcprobe-bench comm FUNCTION|all`: which functions and sizes, the
 * groups of ranks (--np-sweep), and one record per function and group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_measure.h"
#include "comm_run.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

static int unknown_function(const char *name)
{
    char allowed[512] = "";
    const char *names[COMM_MAX_FUNCTIONS];
    for (int i = 0; i < comm_nfunctions; i++) {
        names[i] = comm_functions[i]->name;
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "",
                 names[i]);
    }
    const char *s = hpcp_suggest(name, names, comm_nfunctions);
    hpcp_error(MPI_COMM_WORLD, "--functions: unknown function '%s' (allowed: %s)%s%s%s", name,
               allowed, s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
    return HPCP_EXIT_USAGE;
}

static int too_few_ranks(const struct comm_function *fn, int ranks)
{
    hpcp_error(MPI_COMM_WORLD,
               "comm %s needs at least %d ranks, %d launched (launch %d or "
               "more)",
               fn->name, fn->min_ranks, ranks, fn->min_ranks);
    return HPCP_EXIT_USAGE;
}

/* The functions to run: the variant, or with `all` --functions (default
 * every one; those needing more ranks than launched are skipped, said once). */
static int select_functions(const char *variant, const char *names, int ranks,
                            const struct comm_function **list, int *n)
{
    *n = 0;
    if (strcmp(variant, "all") != 0) {
        if (names) {
            hpcp_error(MPI_COMM_WORLD, "--functions applies to 'comm all' only, not to 'comm %s'",
                       variant);
            return HPCP_EXIT_USAGE;
        }
        list[(*n)++] = comm_function_named(variant);
        return list[0]->min_ranks > ranks ? too_few_ranks(list[0], ranks) : 0;
    }
    char buf[512], skipped[256] = "";
    hpcp_copy_truncated(buf, sizeof buf, names ? names : "");
    for (int i = 0; !names && i < comm_nfunctions; i++) {
        if (comm_functions[i]->min_ranks <= ranks)
            list[(*n)++] = comm_functions[i];
        else
            snprintf(skipped + strlen(skipped), sizeof skipped - strlen(skipped), "%s%s",
                     skipped[0] ? ", " : "", comm_functions[i]->name);
    }
    for (char *save = NULL, *w = names ? strtok_r(buf, ",", &save) : NULL; w;
         w = strtok_r(NULL, ",", &save)) {
        const struct comm_function *fn = comm_function_named(w);
        if (!fn)
            return unknown_function(w);
        if (fn->min_ranks > ranks)
            return too_few_ranks(fn, ranks);
        if (*n < COMM_MAX_FUNCTIONS)
            list[(*n)++] = fn;
    }
    if (names && *n == 0)
        return unknown_function(names);
    if (skipped[0])
        hpcp_error(MPI_COMM_WORLD, "comm all: skipping %s (2 ranks needed, %d launched)", skipped,
                   ranks);
    return 0;
}

/* --buffers device: only the functions that take it, before anything is
 * allocated or a device opened. */
static int device_functions(const struct comm_params *p, const char *variant,
                            const struct comm_function *const *list, int n)
{
    for (int i = 0; p->dev.on && i < n; i++)
        if (!list[i]->device) {
            hpcp_error(MPI_COMM_WORLD,
                       "--buffers device applies to pingpong, allreduce and alltoall, not to "
                       "'comm %s'%s",
                       list[i]->name,
                       strcmp(variant, "all") == 0
                           ? " (with comm all: --functions pingpong,allreduce,alltoall)"
                           : "");
            return HPCP_EXIT_USAGE;
        }
    return 0;
}

int comm_kernel_takes(const struct hpcp_kernel *k, int functions)
{
    int all = strcmp(k->variant, "all") == 0;
    if (functions)
        return all;
    for (int i = 0; i < comm_nfunctions; i++)
        if ((all || !strcmp(comm_functions[i]->name, k->variant)) && comm_functions[i]->device)
            return 1;
    return 0;
}

/* What comm records: one record per function and group (records.md). */
static const struct hpcp_metric_desc comm_metrics[] = {
    {"call_time", "s", "time of one call per size, the slowest rank's"},
    {"bandwidth", "B/s", "bytes moved per second per size (functions that move data)"},
    {NULL, NULL, NULL},
};
const struct hpcp_records_desc comm_records = {comm_metrics, "call_time"};

static const struct hpcp_metric_desc beff_metrics[] = {
    {"pingpong_latency", "s", "ping-pong latency of each measured pair"},
    {"pingpong_bandwidth", "B/s", "ping-pong bandwidth of each measured pair"},
    {"natural_ring_latency", "s", "natural ring latency per measurement"},
    {"natural_ring_bandwidth", "B/s", "natural ring bandwidth per measurement"},
    {"random_ring_latency", "s", "random rings' geometric mean latency"},
    {"random_ring_bandwidth", "B/s", "random rings' bandwidth (HPCC's headline)"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc pairs_metrics[] = {
    {"pair_bandwidth", "B/s", "every ordered rank pair measured (the median of its samples)"},
    {"intra_node_bandwidth", "B/s", "the pairs within a node"},
    {"inter_node_bandwidth", "B/s", "the pairs across nodes"},
    {NULL, NULL, NULL}};
const struct hpcp_records_desc beff_records = {beff_metrics, "random_ring_bandwidth"};
const struct hpcp_records_desc pairs_records = {pairs_metrics, "pair_bandwidth"};

/* The sizes `fn` runs: whole floats for the reductions (duplicates
 * dropped), one point for Barrier. */
static int function_sizes(const struct comm_function *fn, const struct comm_params *p,
                          size_t *sizes)
{
    int n = 0;
    if (fn->sizeless) {
        sizes[0] = 0;
        return 1;
    }
    for (int i = 0; i < p->nsizes; i++) {
        size_t s = p->sizes[i] - p->sizes[i] % (size_t)fn->elem_bytes;
        if (n == 0 || s != sizes[n - 1])
            sizes[n++] = s;
    }
    return n;
}

/* Ranks of the groups: --np-sweep 2, 4, 8, ... and all; the pair functions
 * run on ranks 0 and 1 only. */
static int groups_of(const struct comm_function *fn, const struct comm_params *p, int ranks,
                     int *groups)
{
    int n = 0;
    if (fn->pair) {
        groups[0] = 2;
        return 1;
    }
    for (int g = 2; p->np_sweep && g < ranks && n < 30; g *= 2)
        groups[n++] = g;
    groups[n++] = ranks;
    return n;
}

/* Sizes that fit: 90% of the node's available memory shared by the ranks
 * of the node that take part. Explicit sizes that do not fit are refused;
 * the default list is cut short (and the record says so). */
static int fit_memory(const struct comm_function *fn, const struct comm_params *p,
                      const struct hpcp_sysinfo *si, size_t *sizes, int *n, int *trimmed)
{
    int on_node =
        fn->pair ? (si->ranks_on_my_node < 2 ? si->ranks_on_my_node : 2) : si->ranks_on_my_node;
    double avail = 0.9 * (double)hpcp_meminfo_bytes("MemAvailable:");
    int keep = *n;
    while (keep > 0 && avail > 0 &&
           (double)comm_buffer_bytes(fn, sizes[keep - 1], si->ranks, p->off_cache, p->llc_bytes) *
                   on_node >
               avail)
        keep--;
    MPI_Allreduce(MPI_IN_PLACE, &keep, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    *trimmed = keep < *n;
    if (keep == *n || (p->sizes_default && keep > 0)) {
        *n = keep;
        return 0;
    }
    char a[32], b[32];
    size_t need = comm_buffer_bytes(fn, sizes[keep], si->ranks, p->off_cache, p->llc_bytes);
    hpcp_error(MPI_COMM_WORLD,
               "--sizes: comm %s at %zu B on %d ranks needs %s of buffers per "
               "rank, more than the node's available memory allows (%s shared by %d ranks); "
               "allowed: sizes up to %zu B%s",
               fn->name, sizes[keep], si->ranks, hpcp_format_bytes((double)need, a, sizeof a),
               hpcp_format_bytes(avail, b, sizeof b), on_node, keep ? sizes[keep - 1] : 0,
               p->off_cache ? ", or no --off-cache" : "");
    return HPCP_EXIT_USAGE;
}

int hpcp_comm_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv)
{
    struct comm_params p;
    const struct comm_function *list[COMM_MAX_FUNCTIONS];
    static struct comm_plan plans[COMM_MAX_FUNCTIONS];
    int n = 0, rc = comm_params_prepare(&p, "comm", k->variant, argc, argv, MPI_COMM_WORLD);
    if (!rc)
        rc = select_functions(k->variant, p.functions, si->ranks, list, &n);
    if (!rc)
        rc = device_functions(&p, k->variant, list, n);
    for (int i = 0; !rc && i < n; i++) {
        plans[i].fn = list[i];
        plans[i].nsizes = function_sizes(list[i], &p, plans[i].sizes);
        plans[i].ngroups = groups_of(list[i], &p, si->ranks, plans[i].groups);
        rc = fit_memory(list[i], &p, si, plans[i].sizes, &plans[i].nsizes, &plans[i].trimmed);
    }
    MPI_Comm work;
    char note[256];
    if (!rc)
        rc = comm_device_open(&p.dev, "comm", si);
    if (rc || (rc = comm_place_apply(&p.place, MPI_COMM_WORLD, &work, note, sizeof note)))
        return rc;
    for (int i = 0; i < n && rc != HPCP_EXIT_RUNTIME; i++) {
        int one = comm_run_plan(k, &plans[i], &p, work, si, note);
        rc = one > rc ? one : rc;
    }
    MPI_Comm_free(&work);
    return rc;
}
