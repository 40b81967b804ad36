/* peak bandwidth's options, and the working set of each level from the
 * sizing layer (hpcp_size_peak_level), refused in one line when bad. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/sysinfo.h"
#include "hpcprobe/util.h"
#include "peak_bw.h"

enum {
    OPT_ISA,
    OPT_LEVELS,
    OPT_KERNELS,
    OPT_MIN_TIME,
    OPT_WORKING_SET,
    OPT_STORES,
    OPT_HUGEPAGES,
    OPT_COUNT
};

static const struct hpcp_optspec spec[OPT_COUNT] = {
    [OPT_ISA] = {"--isa", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "auto|avx512|avx2|sse2|neon|scalar", 0,
                 "instruction set of the loops: auto, the widest this CPU has, or one it has "
                 "(refused when it lacks it)",
                 "auto"},
    [OPT_LEVELS] = {"--levels", HPCP_OPT_LIST, 1, 0, 0, 0, 0, "l1|l2|l3|memory", 4,
                    "levels to measure, each at the working set its rule gives (docs/sizing.md); "
                    "a level the node lacks, or too small beside the one below, is skipped with a "
                    "note",
                    "all"},
    [OPT_KERNELS] = {"--kernels", HPCP_OPT_LIST, 1, 0, 0, 0, 0, "load|copy|triad", 3,
                     "kernels run at each level, in this order", "all"},
    [OPT_MIN_TIME] = {"--min-time", HPCP_OPT_DOUBLE, 0, 0, 0.0, 60.0, HPCP_OPEN_MIN, NULL, 0,
                      "each timed repetition repeats its sweep for at least S seconds (the sweeps "
                      "calibrated once per level and kernel)",
                      "0.1"},
    [OPT_WORKING_SET] = {"--working-set", HPCP_OPT_BYTES, PEAK_BW_MIN_BYTES, 1LL << 50, 0, 0, 0,
                         NULL, 0,
                         "one working set per rank (all of a kernel's arrays) instead of the "
                         "levels, recorded as level custom (default: none, the levels' rules)",
                         NULL},
    [OPT_STORES] = {"--stores", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "auto|plain|nontemporal", 0,
                    "copy's and triad's stores: auto, non-temporal at the memory level only (as "
                    "STREAM's; a plain store first reads its line), plain everywhere, or "
                    "non-temporal everywhere (where the ISA has them)",
                    "auto"},
    [OPT_HUGEPAGES] = {"--hugepages", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "on|off", 0,
                       "transparent huge pages for the arrays (madvise): on, so that the TLB "
                       "does not bound the larger levels, or off (base pages, as a plain "
                       "malloc gets where THP is madvise only)",
                       "on"},
};

#define PEAK_BW_TAKES                                                  \
    (HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_WARMUP) | \
     HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) | \
     HPCP_TAKES(HPCP_COMMON_QUIET) | HPCP_TAKES(HPCP_COMMON_MEMORY_CAP))
static const char *const common_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_REPEAT] = "timed repetitions of each kernel at each level, each at least "
                           "--min-time long",
    [HPCP_COMMON_MEMORY_CAP] = "the memory level's arrays of a node's ranks stay under F of its "
                               "available memory",
};
static const struct hpcp_cli peak_bw_cli = {spec, OPT_COUNT, PEAK_BW_TAKES, 1, 5,
                                            0,    0,         common_help};
const struct hpcp_options_desc peak_bw_options_desc = {&peak_bw_cli, NULL};

static const struct hpcp_metric_desc metrics[] = {
    {"<kernel>_bandwidth_<level>", "B/s",
     "bytes the kernel moves (load 8, copy 16, triad 24 per element) per second at a level, "
     "per repetition; star: every rank's bytes over the slowest rank's time"},
    {NULL, NULL, NULL}};
const struct hpcp_records_desc peak_bw_records = {metrics, "<kernel>_bandwidth_<level>"};

/* The choices of a LIST option in the order its spec names them (sorted). */
static int parse_list(int opt, const struct hpcp_optval *v, int *items, int *n, char *err,
                      size_t errlen)
{
    int listed[PEAK_BW_LEVELS], count = 0;
    const char *text = v[opt].set ? v[opt].s : "all";
    if (hpcp_parse_list(&spec[opt], text, listed, &count, err, errlen))
        return -1;
    if (opt == OPT_KERNELS) { /* kernels run in the order given */
        memcpy(items, listed, (size_t)count * sizeof *items);
        *n = count;
        return 0;
    }
    *n = 0;
    for (int level = 0; level < PEAK_BW_MEMORY + 1; level++)
        for (int i = 0; i < count; i++)
            if (listed[i] == level)
                items[(*n)++] = level;
    return 0;
}

int peak_bw_params_parse(struct peak_bw_params *p, const char *variant, int argc, char **argv,
                         char *err, size_t errlen)
{
    struct hpcp_optval v[OPT_COUNT];
    memset(p, 0, sizeof *p);
    p->star = strcmp(variant, "bandwidth-star") == 0;
    const char *context = p->star ? "peak bandwidth star" : "peak bandwidth single";
    if (hpcp_cli_parse(&peak_bw_cli, argc, argv, context, v, &p->run, err, errlen))
        return -1;
    p->isa = peak_bw_isa_pick(v[OPT_ISA].set ? v[OPT_ISA].s : "auto", err, errlen);
    if (!p->isa)
        return -1;
    p->min_time = v[OPT_MIN_TIME].set ? v[OPT_MIN_TIME].d : 0.1;
    p->hugepages = !v[OPT_HUGEPAGES].set || strcmp(v[OPT_HUGEPAGES].s, "on") == 0;
    p->stores = !v[OPT_STORES].set                        ? PEAK_BW_STORES_AUTO
                : !strcmp(v[OPT_STORES].s, "plain")       ? PEAK_BW_STORES_PLAIN
                : !strcmp(v[OPT_STORES].s, "nontemporal") ? PEAK_BW_STORES_NT
                                                          : PEAK_BW_STORES_AUTO;
    if (v[OPT_WORKING_SET].set && v[OPT_LEVELS].set) {
        snprintf(err, errlen,
                 "--working-set and --levels exclude each other (allowed: --levels for the "
                 "levels' own sizes, or --working-set for one size)");
        return -1;
    }
    if (parse_list(OPT_KERNELS, v, p->kernels, &p->nkernels, err, errlen))
        return -1;
    if (v[OPT_WORKING_SET].set) {
        p->levels[0] = PEAK_BW_CUSTOM, p->nlevels = 1;
        p->ws[PEAK_BW_CUSTOM] = (uint64_t)v[OPT_WORKING_SET].i;
        snprintf(p->rule[PEAK_BW_CUSTOM], sizeof p->rule[0], "option");
        return 0;
    }
    return parse_list(OPT_LEVELS, v, p->levels, &p->nlevels, err, errlen);
}

int peak_bw_levels(struct peak_bw_params *p, const struct hpcp_node *n, int copies, char *err,
                   size_t errlen)
{
    int asked[PEAK_BW_LEVELS], nasked = p->nlevels;
    memcpy(asked, p->levels, sizeof asked);
    p->nlevels = 0;
    for (int i = 0; i < nasked; i++) {
        int level = asked[i];
        if (level == PEAK_BW_CUSTOM) {
            p->levels[p->nlevels++] = level;
            continue;
        }
        struct hpcp_sized sized;
        hpcp_size_peak_level(n, copies,
                             level == PEAK_BW_MEMORY ? HPCP_PEAK_LEVEL_MEMORY : level + 1,
                             p->run.memory_cap, &sized);
        hpcp_copy_truncated(sized.value ? p->rule[level] : p->skipped[level], sizeof p->rule[0],
                            sized.rule);
        p->ws[level] = sized.value;
        if (sized.value)
            p->levels[p->nlevels++] = level;
    }
    if (p->nlevels > 0)
        return 0;
    int first = asked[0];
    snprintf(err, errlen,
             "no level asked for can be measured here: %s %s (allowed: --levels with "
             "a level this node has, or --working-set)",
             peak_bw_level_names[first], p->skipped[first]);
    return -1;
}

/* The same working sets on every rank (the smallest, should nodes differ),
 * and the memory they take under the cap. Collective. */
static int agree_and_fit(struct peak_bw_params *p, const struct hpcp_sysinfo *si, char *err,
                         size_t errlen)
{
    MPI_Allreduce(MPI_IN_PLACE, p->ws, PEAK_BW_LEVELS, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    uint64_t most = 0;
    for (int i = 0; i < p->nlevels; i++)
        most = p->ws[p->levels[i]] > most ? p->ws[p->levels[i]] : most;
    const char *what = p->levels[0] == PEAK_BW_CUSTOM
                           ? (p->star ? "peak bandwidth star with the --working-set given"
                                      : "peak bandwidth single with the --working-set given")
                           : "peak bandwidth at its default sizes";
    int bad = hpcp_cap_check(&p->node, p->run.memory_cap, (double)most, p->copies_on_node, what,
                             err, errlen);
    if (hpcp_any(MPI_COMM_WORLD, bad) && !bad)
        snprintf(err, errlen, "%s does not fit --memory-cap %g on every node", what,
                 p->run.memory_cap);
    return hpcp_any(MPI_COMM_WORLD, bad) ? -1 : 0;
}

int peak_bw_params_prepare(struct peak_bw_params *p, const char *variant, int argc, char **argv,
                           const struct hpcp_sysinfo *si)
{
    char err[512] = "";
    int bad = peak_bw_params_parse(p, variant, argc, argv, err, sizeof err);
    if (!bad) {
        hpcp_node_of(&p->node, si);
        p->copies_on_node = p->star ? si->ranks_per_node_max : 1;
        bad = peak_bw_levels(p, &p->node, p->copies_on_node, err, sizeof err);
    }
    if (hpcp_any(MPI_COMM_WORLD, bad) && !bad) /* another node's line: rank 0 prints one */
        snprintf(err, sizeof err, "peak bandwidth cannot run its levels on every node");
    bad = hpcp_any(MPI_COMM_WORLD, bad) || agree_and_fit(p, si, err, sizeof err) ||
          hpcp_check_writable(MPI_COMM_WORLD, p->run.out, "--out", err, sizeof err);
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
