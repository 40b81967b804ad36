/* Options of comm, beff and pairs: one table, which benchmark takes which,
 * defaults, and the checks that refuse bad input with one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "hpcprobe/caches.h"
#include "hpcprobe/util.h"

#define COMM_DEFAULT_TIME_PER_SIZE 0.1
/* HPCC's b_eff: seconds for the ping-pong pairs (latency, bandwidth). */
#define BEFF_LAT_PAIRS_TIME 10.0
#define BEFF_BW_PAIRS_TIME 30.0
/* pairs: samples of 20 ms span several scheduler time slices, so that the two
 * directions of a pair agree on a busy machine; the whole matrix at 256 ranks
 * (255 rounds of about 0.22 s at 5 samples) fits in the budget. */
#define PAIRS_MATRIX_TIME 60.0
#define PAIRS_SAMPLE_TIME 0.02

/* --sizes is the shared sizes grammar (hpcp_parse_sizes), as in contention:
 * only the limits are comm's own (0 to 1G, at most COMM_MAX_SIZES). */
static const struct hpcp_optspec spec[COMM_OPT_COUNT] = {
    [COMM_OPT_SIZES] = {"--sizes", HPCP_OPT_SIZES, 0, COMM_MAX_MESSAGE, 0, 0, 0, NULL,
                        COMM_MAX_SIZES,
                        "message sizes in bytes: SIZE or A..B (A, 2A, 4A ... B) "
                        "items, comma separated, strictly increasing",
                        "0..4M"},
    [COMM_OPT_TIME_PER_SIZE] = {"--time-per-size", HPCP_OPT_DOUBLE, 0, 0, 0.0, 600.0, 1, NULL, 0,
                                "seconds of timed calls per size, after a warm-up that calibrates "
                                "the repetitions (--timing hpcprobe only)",
                                "0.1"},
    [COMM_OPT_OFF_CACHE] = {"--off-cache", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                            "rotate each call's buffers through twice the last-level cache", NULL},
    [COMM_OPT_CHECK] = {"--check", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                        "check the received data of every timed call (one call per size is "
                        "always checked; --timing hpcprobe only)",
                        NULL},
    [COMM_OPT_NP_SWEEP] = {"--np-sweep", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                           "also on the first 2, 4, 8 ... ranks (sub-communicators), a record "
                           "per group",
                           NULL},
    [COMM_OPT_FUNCTIONS] = {"--functions", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                            "comm all: some of the functions, comma separated, in this order "
                            "(default every function; those needing 2 ranks are skipped on 1)",
                            NULL},
    [COMM_OPT_TIMING] = {"--timing", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "hpcprobe|imb|osu", 0,
                         "repeat, warm up and time each size as hpcprobe, IMB-MPI1 or OSU does",
                         "hpcprobe"},
    [COMM_OPT_LAT_TIME] = {"--latency-pairs-time", HPCP_OPT_DOUBLE, 0, 0, 0.0, 3600.0, 1, NULL, 0,
                           "seconds that choose how many latency ping-pong pairs run (HPCC's)",
                           "10"},
    [COMM_OPT_BW_TIME] = {"--bandwidth-pairs-time", HPCP_OPT_DOUBLE, 0, 0, 0.0, 3600.0, 1, NULL, 0,
                          "seconds that choose how many bandwidth ping-pong pairs run (HPCC's)",
                          "30"},
    [COMM_OPT_SIZE] = {"--size", HPCP_OPT_BYTES, 1, COMM_MAX_MESSAGE, 0, 0, 0, NULL, 0,
                       "message size", "4M"},
    [COMM_OPT_MESSAGES] = {"--messages", HPCP_OPT_INT, 1, 1000000, 0, 0, 0, NULL, 0,
                           "fewest timed messages per sample (more until it lasts "
                           "--sample-time)",
                           "1"},
    [COMM_OPT_MATRIX_TIME] = {"--matrix-time", HPCP_OPT_DOUBLE, 0, 0, 0.0, 86400.0, HPCP_OPEN_MIN,
                              NULL, 0,
                              "seconds the matrix may take; past them a seeded sample of "
                              "rounds that covers every rank and node pair",
                              "60"},
    [COMM_OPT_SAMPLE_TIME] = {"--sample-time", HPCP_OPT_DOUBLE, 0, 0, 0.0, 10.0, 0, NULL, 0,
                              "least seconds one sample of a pair lasts: its messages are "
                              "counted to it (0: exactly --messages)",
                              "0.02"},
    [COMM_OPT_PLACEMENT] = {"--placement", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                            "block, round-robin or FILE: rank placement; FILE: lines RANK HOST "
                            "[CPU] covering every rank once (default as launched)",
                            NULL},
    [COMM_OPT_PLACEMENT_BY] = {"--placement-by", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0,
                               "launcher|hpcprobe", 0,
                               "launcher: the launcher placed the ranks, the bench records them; "
                               "hpcprobe: the bench reorders the ranks it was given",
                               "hpcprobe"},
    [COMM_OPT_BUFFERS] = {"--buffers", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "host|device", 0,
                          "message buffers in host or GPU memory (device: CUDA-aware MPI, or "
                          "staged through pinned host memory)",
                          "host"},
};

#define TAKES_OUT (HPCP_TAKES(HPCP_COMMON_OUT) | HPCP_TAKES(HPCP_COMMON_QUIET))
/* Only beff and pairs take --seed, only pairs --repeat. */
static const char *const comm_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_REPEAT] = "samples of each pair; the matrix holds their median, "
                           "bandwidth_min and bandwidth_max their spread",
    [HPCP_COMMON_SEED] = "seed of the random ring orderings (beff) or of the order of the "
                         "rounds (pairs)",
};
static const struct hpcp_cli comm_cli = {spec,
                                         COMM_OPT_COUNT,
                                         HPCP_TAKES(HPCP_COMMON_SEED) |
                                             HPCP_TAKES(HPCP_COMMON_REPEAT) | TAKES_OUT,
                                         0,
                                         5,
                                         0,
                                         1,
                                         comm_help};

/* Which options each benchmark reads; the others are refused by name. */
static const int comm_opts[] = {COMM_OPT_SIZES,  COMM_OPT_TIME_PER_SIZE, COMM_OPT_OFF_CACHE,
                                COMM_OPT_CHECK,  COMM_OPT_NP_SWEEP,      COMM_OPT_FUNCTIONS,
                                COMM_OPT_TIMING, COMM_OPT_BUFFERS,       -1};
static const int beff_opts[] = {COMM_OPT_LAT_TIME, COMM_OPT_BW_TIME, -1};
static const int pairs_opts[] = {COMM_OPT_SIZE,        COMM_OPT_MESSAGES,    COMM_OPT_BUFFERS,
                                 COMM_OPT_MATRIX_TIME, COMM_OPT_SAMPLE_TIME, -1};
static const int common_opts[] = {COMM_OPT_PLACEMENT, COMM_OPT_PLACEMENT_BY, -1};

static int listed(const int *list, int opt)
{
    for (; *list >= 0; list++)
        if (*list == opt)
            return 1;
    return 0;
}

static const int *bench_opts(const char *bench)
{
    return !strcmp(bench, "beff") ? beff_opts : !strcmp(bench, "pairs") ? pairs_opts : comm_opts;
}

static unsigned bench_common(const char *bench)
{
    return TAKES_OUT | (!strcmp(bench, "comm") ? 0 : HPCP_TAKES(HPCP_COMMON_SEED)) |
           (!strcmp(bench, "pairs") ? HPCP_TAKES(HPCP_COMMON_REPEAT) : 0);
}

/* describe: a comm function's descriptor says whether it takes device
 * buffers and whether it is the whole list (--functions). */
static int comm_takes(const struct hpcp_kernel *k, int option)
{
    if (option >= COMM_OPT_COUNT)
        return (bench_common(k->family) & HPCP_TAKES(option - COMM_OPT_COUNT)) != 0;
    if (option == COMM_OPT_FUNCTIONS || (option == COMM_OPT_BUFFERS && !strcmp(k->family, "comm")))
        return comm_kernel_takes(k, option == COMM_OPT_FUNCTIONS);
    return listed(bench_opts(k->family), option) || listed(common_opts, option);
}

const struct hpcp_options_desc comm_options_desc = {&comm_cli, comm_takes};

static int check_applies(const struct hpcp_optval *v, const struct hpcp_common *c,
                         const char *bench, const char *context, char *err, size_t len)
{
    const int *own = bench_opts(bench);
    unsigned takes = bench_common(bench);
    const char *name = NULL;
    for (int o = 0; o < COMM_OPT_COUNT && !name; o++)
        if (v[o].set && !listed(own, o) && !listed(common_opts, o))
            name = spec[o].name;
    int refused = hpcp_common_refused(c, takes);
    if (!name && refused >= 0)
        name = hpcp_common_name(refused);
    if (name)
        snprintf(err, len, "%s does not apply to %s", name, context);
    return name ? -1 : 0;
}

static int comm_sizes(struct comm_params *p, const struct hpcp_optval *v, char *err, size_t len)
{
    p->sizes_default = !v[COMM_OPT_SIZES].set;
    const char *text = p->sizes_default ? spec[COMM_OPT_SIZES].default_text : v[COMM_OPT_SIZES].s;
    uint64_t sizes[COMM_MAX_SIZES];
    if (hpcp_parse_sizes(&spec[COMM_OPT_SIZES], text, sizes, &p->nsizes, err, len) != 0)
        return -1;
    for (int i = 0; i < p->nsizes; i++)
        p->sizes[i] = (size_t)sizes[i];
    p->time_per_size =
        v[COMM_OPT_TIME_PER_SIZE].set ? v[COMM_OPT_TIME_PER_SIZE].d : COMM_DEFAULT_TIME_PER_SIZE;
    p->off_cache = v[COMM_OPT_OFF_CACHE].set;
    p->check = v[COMM_OPT_CHECK].set;
    p->np_sweep = v[COMM_OPT_NP_SWEEP].set;
    p->functions = v[COMM_OPT_FUNCTIONS].set ? v[COMM_OPT_FUNCTIONS].s : NULL;
    p->timing =
        v[COMM_OPT_TIMING].set ? comm_timing_named(v[COMM_OPT_TIMING].s) : COMM_TIMING_HPCPROBE;
    /* IMB and OSU fix their repetitions per size; a time budget would be another policy. */
    int peer = p->timing != COMM_TIMING_HPCPROBE;
    const char *theirs = peer && v[COMM_OPT_TIME_PER_SIZE].set ? "--time-per-size"
                         : peer && p->check                    ? "--check"
                                                               : NULL;
    if (theirs) {
        snprintf(err, len,
                 "%s does not apply to --timing %s (it repeats and checks as %s does; "
                 "allowed with --timing hpcprobe)",
                 theirs, comm_timing_name(p->timing), comm_timing_name(p->timing));
        return -1;
    }
    return 0;
}

static int pairs_size(struct comm_params *p, const struct hpcp_optval *v, char *err, size_t len)
{
    (void)err, (void)len;
    /* paper 002 used large buffers: 4M */
    p->size = v[COMM_OPT_SIZE].set ? (size_t)v[COMM_OPT_SIZE].i : (size_t)4 << 20;
    p->messages = v[COMM_OPT_MESSAGES].set ? (int)v[COMM_OPT_MESSAGES].i : 1;
    p->matrix_time = v[COMM_OPT_MATRIX_TIME].set ? v[COMM_OPT_MATRIX_TIME].d : PAIRS_MATRIX_TIME;
    p->sample_time = v[COMM_OPT_SAMPLE_TIME].set ? v[COMM_OPT_SAMPLE_TIME].d : PAIRS_SAMPLE_TIME;
    return 0;
}

static int parse(struct comm_params *p, const char *bench, const char *context, int argc,
                 char **argv, char *err, size_t len)
{
    struct hpcp_optval v[COMM_OPT_COUNT];
    memset(p, 0, sizeof *p);
    if (hpcp_cli_parse(&comm_cli, argc, argv, context, v, &p->run, err, len) ||
        check_applies(v, &p->run, bench, context, err, len))
        return -1;
    p->place.spec = v[COMM_OPT_PLACEMENT].set ? v[COMM_OPT_PLACEMENT].s : NULL;
    p->place.by_launcher =
        v[COMM_OPT_PLACEMENT_BY].set && strcmp(v[COMM_OPT_PLACEMENT_BY].s, "launcher") == 0;
    if (v[COMM_OPT_PLACEMENT_BY].set && !p->place.spec) {
        snprintf(err, len, "--placement-by needs --placement block|round-robin|FILE");
        return -1;
    }
    if (p->place.spec && !p->place.spec[0]) {
        snprintf(err, len, "--placement is empty (allowed: block, round-robin, or a file)");
        return -1;
    }
    p->dev.on = v[COMM_OPT_BUFFERS].set && strcmp(v[COMM_OPT_BUFFERS].s, "device") == 0;
    struct hpcp_caches caches;
    hpcp_caches_read(&caches);
    p->llc_bytes = caches.llc_per_node;
    p->lat_pairs_time = v[COMM_OPT_LAT_TIME].set ? v[COMM_OPT_LAT_TIME].d : BEFF_LAT_PAIRS_TIME;
    p->bw_pairs_time = v[COMM_OPT_BW_TIME].set ? v[COMM_OPT_BW_TIME].d : BEFF_BW_PAIRS_TIME;
    if (strcmp(bench, "comm") == 0)
        return comm_sizes(p, v, err, len);
    if (strcmp(bench, "pairs") == 0)
        return pairs_size(p, v, err, len);
    return 0;
}

int comm_params_prepare(struct comm_params *p, const char *bench, const char *variant, int argc,
                        char **argv, MPI_Comm world)
{
    char err[512], context[64];
    snprintf(context, sizeof context, "%s %s", bench, variant);
    int bad = parse(p, bench, context, argc, argv, err, sizeof err) ||
              hpcp_check_writable(world, p->run.out, "--out", err, sizeof err);
    if (bad)
        hpcp_error(world, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
