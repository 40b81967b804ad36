/* Contention options: parsing, defaults, and the checks that refuse bad
 * input with one line before any buffer is allocated. docs/cli.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "hpcprobe/options.h"
#include "hpcprobe/util.h"

/* Contention's own options; --repeat, --warmup, --seed, --no-verify, --out
 * and --quiet are the harness's common ones. */
enum {
    OPT_SIZES,
    OPT_MESSAGES,
    OPT_PAIRS,
    OPT_AXIS,
    OPT_MAX_PAIRS,
    OPT_DISTANCE,
    OPT_TORUS,
    OPT_MESH,
    OPT_WRAP,
    OPT_RPN,
    OPT_COORDS,
    OPT_COUNT
};

/* --sizes is the shared sizes grammar (hpcp_parse_sizes), as in comm: ranges
 * A..B are taken here too; only the limits are contention's (1 B to 1G, at
 * most CONT_MAX_SIZES). --torus and --mesh are grids (hpcp_parse_grid). */
static const struct hpcp_optspec spec[OPT_COUNT] = {
    [OPT_SIZES] = {"--sizes", HPCP_OPT_SIZES, 1, CONT_MAX_MESSAGE_BYTES, 0, 0, 0, NULL,
                   CONT_MAX_SIZES,
                   "message sizes in bytes: SIZE or A..B (A, 2A, 4A ... B) items, "
                   "comma separated, strictly increasing",
                   "16,64,256,1K,4K,16K,64K,256K,1M"},
    [OPT_MESSAGES] = {"--messages", HPCP_OPT_INT, 1, 100000, 0, 0, 0, NULL, 0,
                      "messages per burst (wicon, stress-link, equidistant) or ping-pongs per "
                      "destination (wocon)",
                      "50"},
    [OPT_PAIRS] = {"--pairs", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "nn|nn-torus|rnd", 0,
                   "partners differ by one; are grid neighbours along --axis; a seeded random "
                   "perfect matching",
                   "rnd"},
    [OPT_AXIS] = {"--axis", HPCP_OPT_INT, 0, CONT_MAX_DIMS - 1, 0, 0, 0, NULL, 0,
                  "the grid dimension, 0 = x (default the longest, the last of equals)", NULL},
    [OPT_MAX_PAIRS] = {"--max-pairs", HPCP_OPT_INT, 1, CONT_MAX_GROUPS, 0, 0, 0, NULL, 0,
                       "stop after K pairs (default all, up to D/2)", NULL},
    [OPT_DISTANCE] = {"--distance", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                      "hop distances: N, A..B or a comma list, increasing (default 1 to the "
                      "largest: D/2 on a ring, D - 1 on a line)",
                      NULL},
    [OPT_TORUS] = {"--torus", HPCP_OPT_GRID, 1, 1 << 20, 0, 0, 0, NULL, CONT_MAX_DIMS,
                   "the network, a torus: sizes joined by x (default none: flat)", NULL},
    [OPT_MESH] = {"--mesh", HPCP_OPT_GRID, 1, 1 << 20, 0, 0, 0, NULL, CONT_MAX_DIMS,
                  "the network, a mesh: sizes joined by x (default none: flat)", NULL},
    [OPT_WRAP] = {"--wrap", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                  "with --torus/--mesh: wraparound per dimension, 0 or 1 each (default all 1 for "
                  "a torus, all 0 for a mesh)",
                  NULL},
    [OPT_RPN] = {"--ranks-per-node", HPCP_OPT_INT, 1, 1 << 20, 0, 0, 0, NULL, 0,
                 "nodes are blocks of N consecutive ranks, emulated (default: "
                 "MPI_Comm_split_type shared)",
                 NULL},
    [OPT_COORDS] = {"--coords", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                    "FILE or slurm: coordinates from a CSV of rank,x,y,... lines, or each rank's "
                    "SLURM_TOPOLOGY_ADDR (default row-major)",
                    NULL},
};

static const char *const cont_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_REPEAT] = "timed repetitions per phase and size",
    [HPCP_COMMON_WARMUP] = "untimed repetitions before them, per phase and size",
    [HPCP_COMMON_SEED] = "seed of --pairs rnd's random matching",
};
static const struct hpcp_cli cont_cli = {spec, OPT_COUNT, HPCP_TAKES_ALL, 0, 5, 1, 1, cont_help};

#define MEASURING "wocon wicon stress-link equidistant"

/* The options only some variants read (common: one of the harness's); the
 * topology options and --quiet apply to every one, `topology show` included. */
static const struct {
    int common, opt;
    const char *variants;
} only[] = {
    {0, OPT_SIZES, MEASURING},
    {1, HPCP_COMMON_REPEAT, MEASURING},
    {1, HPCP_COMMON_WARMUP, MEASURING},
    {0, OPT_MESSAGES, MEASURING},
    {1, HPCP_COMMON_NO_VERIFY, MEASURING},
    {1, HPCP_COMMON_OUT, MEASURING},
    {0, OPT_PAIRS, "wicon"},
    {1, HPCP_COMMON_SEED, "wicon"},
    {0, OPT_AXIS, "wicon stress-link equidistant"},
    {0, OPT_MAX_PAIRS, "stress-link"},
    {0, OPT_DISTANCE, "equidistant"},
};

/* describe: kernel k takes an option unless `only` leaves its variant out. */
static int cont_takes(const struct hpcp_kernel *k, int option)
{
    int common = option >= OPT_COUNT, o = common ? option - OPT_COUNT : option;
    for (size_t i = 0; i < sizeof only / sizeof only[0]; i++)
        if (only[i].common == common && only[i].opt == o)
            return strstr(only[i].variants, k->variant) != NULL;
    return 1;
}

const struct hpcp_options_desc cont_options_desc = {&cont_cli, cont_takes};

static const struct hpcp_metric_desc wocon_metrics[] = {
    {"message_time_mean", "s", "mean one-way message time over the destinations"},
    {"hop_spread", "1", "slowest over fastest hop count's time (several hop counts)"},
    {"time_by_hops_b<size>", "s", "time per hop count, per message size"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc stress_metrics[] = {
    {"middle_pair_time_pairs_<k>", "s", "the middle pair's message time with k pairs around it"},
    {"middle_pair_slowdown", "1", "the middle pair's time with all pairs over alone"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc equidistant_metrics[] = {
    {"message_time_distance_<n>", "s", "mean message time of the pairs n hops apart"},
    {"message_time_max_distance_<n>", "s", "slowest pair's message time n hops apart"},
    {"far_over_near_time", "1", "farthest over nearest distance's time (several distances)"},
    {"message_time_mean_farthest", "s", "message time at the farthest distance"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc no_metrics[] = {{NULL, NULL, NULL}};
const struct hpcp_records_desc cont_wocon_records = {wocon_metrics, "hop_spread"};
const struct hpcp_records_desc cont_stress_records = {stress_metrics, "middle_pair_slowdown"};
const struct hpcp_records_desc cont_equidistant_records = {equidistant_metrics,
                                                           "far_over_near_time"};
const struct hpcp_records_desc cont_show_records = {no_metrics, NULL};

static int check_applies(const struct hpcp_optval *v, const struct hpcp_common *c,
                         const char *variant, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof only / sizeof only[0]; i++) {
        int o = only[i].opt;
        int set = only[i].common ? (c->given & HPCP_TAKES(o)) != 0 : v[o].set;
        if (set && !strstr(only[i].variants, variant)) {
            snprintf(err, errlen, "%s does not apply to %s %s (only to contention %s)",
                     only[i].common ? hpcp_common_name(o) : spec[o].name,
                     strcmp(variant, "show") ? "contention" : "topology", variant,
                     only[i].variants);
            return -1;
        }
    }
    return 0;
}

/* "3", "1..8", "1,2,4": increasing distances of at least 1. */
static int parse_distances(struct cont_params *p, const char *text, char *err, size_t errlen)
{
    const char *s = text;
    p->ndistances = 0;
    while (*s) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end != s && strncmp(end, "..", 2) == 0)
            hi = strtol(end + 2, &end, 10);
        int last = p->ndistances ? p->distances[p->ndistances - 1] : 0;
        if (end == s || lo < 1 || hi < lo || lo <= last || hi > 100000 ||
            p->ndistances + (hi - lo + 1) > CONT_MAX_GROUPS || (*end && (*end != ',' || !end[1])))
            break;
        for (long d = lo; d <= hi; d++)
            p->distances[p->ndistances++] = (int)d;
        s = *end ? end + 1 : end;
    }
    if (*s || p->ndistances == 0) {
        snprintf(err, errlen,
                 "--distance '%s' is not allowed (increasing hop counts >= 1, at "
                 "most %d: N, A..B or a comma list such as 1,2,4)",
                 text, CONT_MAX_GROUPS);
        return -1;
    }
    return 0;
}

static int topology_options(struct cont_params *p, const struct hpcp_optval *v, char *err,
                            size_t errlen)
{
    struct cont_topo_request *t = &p->topo;
    const char *bad = NULL;
    t->torus = v[OPT_TORUS].set;
    t->dims_text = t->torus ? v[OPT_TORUS].s : v[OPT_MESH].set ? v[OPT_MESH].s : NULL;
    t->wrap_text = v[OPT_WRAP].set ? v[OPT_WRAP].s : NULL;
    t->ranks_per_node = v[OPT_RPN].set ? (int)v[OPT_RPN].i : 0;
    t->coords = v[OPT_COORDS].set ? v[OPT_COORDS].s : NULL;
    if (v[OPT_TORUS].set && v[OPT_MESH].set)
        bad = "--torus and --mesh are alternatives (allowed: one, with --wrap for a mixed grid)";
    else if (t->wrap_text && !t->dims_text)
        bad = "--wrap needs the dims: give --torus DIMS or --mesh DIMS with it";
    else if (t->coords && !strcmp(t->coords, "slurm") && t->dims_text)
        bad = "--coords slurm describes a switch tree and takes no --torus or --mesh";
    if (bad)
        hpcp_copy_truncated(err, errlen, bad);
    return bad ? -1 : 0;
}

static int parse(struct cont_params *p, const char *variant, int argc, char **argv, char *err,
                 size_t errlen)
{
    struct hpcp_optval v[OPT_COUNT];
    char context[48];
    snprintf(context, sizeof context, "%s %s", strcmp(variant, "show") ? "contention" : "topology",
             variant);
    memset(p, 0, sizeof *p);
    if (hpcp_cli_parse(&cont_cli, argc, argv, context, v, &p->run, err, errlen) ||
        check_applies(v, &p->run, variant, err, errlen) || topology_options(p, v, err, errlen) ||
        hpcp_parse_sizes(&spec[OPT_SIZES],
                         v[OPT_SIZES].set ? v[OPT_SIZES].s : spec[OPT_SIZES].default_text, p->sizes,
                         &p->nsizes, err, errlen) ||
        (v[OPT_DISTANCE].set && parse_distances(p, v[OPT_DISTANCE].s, err, errlen)))
        return -1;
    p->messages = v[OPT_MESSAGES].set ? (int)v[OPT_MESSAGES].i : 50;
    const char *pairs = v[OPT_PAIRS].set ? v[OPT_PAIRS].s : "rnd";
    p->pairing = !strcmp(pairs, "nn")         ? CONT_PAIRS_NN
                 : !strcmp(pairs, "nn-torus") ? CONT_PAIRS_NN_TORUS
                                              : CONT_PAIRS_RND;
    p->axis = v[OPT_AXIS].set ? (int)v[OPT_AXIS].i : -1;
    p->max_pairs = v[OPT_MAX_PAIRS].set ? (int)v[OPT_MAX_PAIRS].i : 0;
    p->distance_text = v[OPT_DISTANCE].set ? v[OPT_DISTANCE].s : NULL;
    const char *bad = NULL;
    if ((p->run.given & HPCP_TAKES(HPCP_COMMON_SEED)) && p->pairing != CONT_PAIRS_RND)
        bad = "--seed applies to --pairs rnd only (the random matching)";
    else if (v[OPT_AXIS].set && !strcmp(variant, "wicon") && p->pairing != CONT_PAIRS_NN_TORUS)
        bad = "--axis applies to wicon with --pairs nn-torus only";
    if (bad)
        hpcp_copy_truncated(err, errlen, bad);
    return bad ? -1 : 0;
}

/* Two buffers of the largest message per rank must fit beside the others. */
static int check_memory(const struct cont_params *p, const struct hpcp_sysinfo *si, char *err,
                        size_t errlen)
{
    double need = 2.0 * (double)p->sizes[p->nsizes - 1] * si->ranks_on_my_node;
    double avail = (double)hpcp_meminfo_bytes("MemAvailable:");
    char a[32], b[32], c[32];
    if (hpcp_any(MPI_COMM_WORLD, avail > 0 && need > 0.5 * avail)) {
        snprintf(err, errlen,
                 "--sizes up to %s need %s of buffers on a node, more than half "
                 "the memory available (%s); allowed: smaller messages",
                 hpcp_format_bytes((double)p->sizes[p->nsizes - 1], a, sizeof a),
                 hpcp_format_bytes(need, b, sizeof b), hpcp_format_bytes(avail, c, sizeof c));
        return -1;
    }
    return 0;
}

int cont_params_prepare(struct cont_params *p, struct cont_topo *t, const char *variant, int argc,
                        char **argv, const struct hpcp_sysinfo *si)
{
    char err[512];
    memset(t, 0, sizeof *t);
    int bad = parse(p, variant, argc, argv, err, sizeof err) ||
              (strcmp(variant, "show") && check_memory(p, si, err, sizeof err)) ||
              hpcp_check_writable(MPI_COMM_WORLD, p->run.out, "--out", err, sizeof err) ||
              /* topology show resolves as its harness run (cont_show.c) */
              (strcmp(variant, "show") && cont_topo_resolve(t, &p->topo, si, err, sizeof err));
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
