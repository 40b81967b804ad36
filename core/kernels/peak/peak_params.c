/* The peak family's command lines (docs/cli.md, docs/kernels/peak.md). */
#include <stdio.h>

#include "hpcprobe/util.h"
#include "peak.h"

#define WHY_LEN 512

static const struct hpcp_optspec flops_spec[PEAK_FLOPS_OPTIONS] = {
    [PEAK_OPT_ISA] = {"--isa", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "auto|avx512|avx2|sse2|neon|scalar",
                      0,
                      "the instruction set of the timed loop (auto: the widest the CPU has; "
                      "one it lacks is refused)",
                      "auto"},
    [PEAK_OPT_PRECISION] = {"--precision", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "double|single", 0,
                            "floating-point precision of the chains", "double"},
    [PEAK_OPT_CHAINS] = {"--chains", HPCP_OPT_INT, 1, PEAK_MAX_CHAINS, 0, 0, 0, NULL, 0,
                         "independent register chains (default enough to hide the FMA latency: "
                         "16 for avx512 and neon, 12 for avx2, sse2 and scalar)",
                         NULL},
    [PEAK_OPT_MIN_TIME] = {"--min-time", HPCP_OPT_DOUBLE, 0, 0, 0.001, 60.0, 0, NULL, 0,
                           "seconds each timed repetition runs at least", "0.2"},
};

/* --repeat, --warmup, --no-verify, --out, --quiet: no data to seed, no memory to cap. */
#define PEAK_TAKES                                                     \
    (HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_WARMUP) | \
     HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) | \
     HPCP_TAKES(HPCP_COMMON_QUIET))

/* One help per common option for the family's kernels (describe shows the family's). */
static const char *const peak_common_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_REPEAT] = "timed repetitions: flops, each with the clock measured just before "
                           "it (headline: the best); clock, measurements on every rank at once "
                           "(headline: the median)",
    [HPCP_COMMON_WARMUP] = "flops: untimed repetitions first (the clock's turbo settles), kept "
                           "in the record as warm-up",
};

const struct hpcp_cli peak_flops_cli = {flops_spec, PEAK_FLOPS_OPTIONS, PEAK_TAKES, 0, 3, 0,
                                        0,          peak_common_help};

/* peak clock: no options of its own (a table of none: the parser copies from it). */
static const struct hpcp_optspec no_spec[1] = {
    {"--none", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0, "(no options)", NULL}};
const struct hpcp_cli peak_clock_cli = {
    no_spec,
    0,
    HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_NO_VERIFY) |
        HPCP_TAKES(HPCP_COMMON_OUT) | HPCP_TAKES(HPCP_COMMON_QUIET),
    0,
    5,
    0,
    0,
    peak_common_help};

int peak_parse(const struct hpcp_cli *cli, const char *context, int argc, char **argv,
               struct hpcp_optval *own, struct hpcp_common *c)
{
    char err[WHY_LEN];
    /* The same argv on every rank: a parse error is the same everywhere. */
    int bad = hpcp_cli_parse(cli, argc, argv, context, own, c, err, sizeof err) ||
              hpcp_check_writable(MPI_COMM_WORLD, c->out, "--out", err, sizeof err);
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
