/* Congestion options: parsing, defaults, and the checks that refuse bad
 * input with one line before any buffer is allocated. docs/cli.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "congestion.h"
#include "hpcprobe/options.h"
#include "hpcprobe/util.h"

const char *const cong_canary_names[CONG_NCANARIES] = {"latency", "bandwidth", "allreduce"};
const char *const cong_pattern_names[CONG_NPATTERNS] = {"incast", "put-incast", "get-bcast",
                                                        "alltoall"};
const char *const cong_mode_names[2] = {"hpcprobe", "gpcnet"};
const char *const cong_placement_names[3] = {"spread", "random", "packed"};
const char *const cong_idle_names[2] = {"sleep", "spin"};

/* GPCNeT's counts (network_load_test): a latency or Allreduce test is rings
 * (tests) of 200 timed steps, a bandwidth test rings of 8; it takes 30 rings
 * per measurement. gpcnet mode takes one measurement unless --samples says. */
#define GPCNET_RINGS 30
#define GPCNET_STEPS 200
#define GPCNET_BW_STEPS 8

enum {
    OPT_CANARY,
    OPT_CONGESTOR,
    OPT_CONGESTOR_BYTES,
    OPT_BANDWIDTH_BYTES,
    OPT_IN_FLIGHT,
    OPT_SAMPLES,
    OPT_BANDWIDTH_SAMPLES,
    OPT_FRACTION,
    OPT_MODE,
    OPT_PLACEMENT,
    OPT_IDLE,
    OPT_COUNT
};

/* The canaries and congestors are lists of the names above (hpcp_parse_list,
 * the order kept); the message sizes are sizes (hpcp_parse_size). */
static const struct hpcp_optspec spec[OPT_COUNT] = {
    [OPT_CANARY] = {"--canary", HPCP_OPT_LIST, 1, 0, 0, 0, 0, "latency|bandwidth|allreduce",
                    CONG_NCANARIES, "the canaries measured, alone and beside the congestors",
                    "latency,bandwidth,allreduce"},
    [OPT_CONGESTOR] = {"--congestor", HPCP_OPT_LIST, 0, 0, 0, 0, 0,
                       "incast|put-incast|get-bcast|alltoall", CONG_NPATTERNS,
                       "the congestor patterns, each run beside the canaries in turn, or none",
                       "incast,put-incast,get-bcast,alltoall"},
    [OPT_CONGESTOR_BYTES] = {"--congestor-bytes", HPCP_OPT_BYTES, 8, CONG_MAX_MESSAGE_BYTES, 0, 0,
                             0, NULL, 0, "congestor message size", "4K"},
    [OPT_BANDWIDTH_BYTES] = {"--bandwidth-bytes", HPCP_OPT_BYTES, 8, CONG_MAX_MESSAGE_BYTES, 0, 0,
                             0, NULL, 0, "bandwidth canary message size", "128K"},
    [OPT_IN_FLIGHT] = {"--in-flight", HPCP_OPT_INT, 1, 64, 0, 0, 0, NULL, 0,
                       "bandwidth messages in flight, concurrent Allreduces", "8"},
    [OPT_SAMPLES] = {"--samples", HPCP_OPT_INT, 1, 1000000, 0, 0, 0, NULL, 0,
                     "latency and allreduce samples per rank and run (gpcnet mode: timed "
                     "steps, default 6000: GPCNeT's 30 rings of 200)",
                     "1000"},
    [OPT_BANDWIDTH_SAMPLES] = {"--bandwidth-samples", HPCP_OPT_INT, 1, 1000000, 0, 0, 0, NULL, 0,
                               "bandwidth samples per rank and run (gpcnet mode: timed steps, "
                               "default 240: GPCNeT's 30 rings of 8)",
                               "100"},
    [OPT_FRACTION] = {"--congestor-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 1.0,
                      HPCP_OPEN_MIN | HPCP_OPEN_MAX, NULL, 0,
                      "share of the nodes (one node: ranks) that congest, 0 < F < 1", "0.8"},
    [OPT_MODE] = {"--mode", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "hpcprobe|gpcnet", 0,
                  "hpcprobe: canaries beside one congestor at a time; gpcnet: GPCNeT's "
                  "network_load_test layout, definitions and Key Results table",
                  "hpcprobe"},
    [OPT_PLACEMENT] = {"--canary-placement", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "spread|random|packed",
                       0,
                       "where the canary nodes sit: spread evenly, random (seeded by --seed), "
                       "or packed on the first nodes in host order (default: the mode's, "
                       "spread in hpcprobe mode, random in gpcnet mode)",
                       NULL},
    [OPT_IDLE] = {"--idle-wait", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "sleep|spin", 0,
                  "how ranks wait for their messages and for the others: asleep between "
                  "tests, or in blocking MPI calls (busy-polling, as GPCNeT's ranks: on nodes "
                  "shared by several ranks it takes the canaries' cores)",
                  "sleep"},
};

#define CONG_TAKES                                                     \
    (HPCP_TAKES(HPCP_COMMON_WARMUP) | HPCP_TAKES(HPCP_COMMON_SEED) |   \
     HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) | \
     HPCP_TAKES(HPCP_COMMON_QUIET))
static const char *const cong_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_WARMUP] = "untimed canary samples first, and congestor rounds before the "
                           "canaries start",
    [HPCP_COMMON_SEED] = "seed of the canaries' random ring",
};
static const struct hpcp_cli cong_cli = {spec, OPT_COUNT, CONG_TAKES, 0, 1, 10, 1, cong_help};

static int cong_takes(const struct hpcp_kernel *k, int option)
{
    (void)k, (void)option;
    return 1; /* one kernel, every option */
}
const struct hpcp_options_desc cong_options_desc = {&cong_cli, cong_takes};

static const struct hpcp_metric_desc cong_metrics[] = {
    {"<canary>_<condition>", "s", "latency and allreduce samples, alone or beside a congestor"},
    {"<canary>_<condition>", "B/s", "bandwidth samples, alone or beside a congestor"},
    {"cif_<canary>_<congestor>", "1", "congestion impact factor: beside over alone"},
    {NULL, NULL, NULL}};
const struct hpcp_records_desc cong_records = {cong_metrics, "cif_<canary>_<congestor>"};

/* A list option's items, or its default's, into list[0..*count). */
static void list_option(const struct hpcp_optval *v, int opt, int *list, int *count)
{
    char err[8];
    const char *text = v[opt].set ? v[opt].s : spec[opt].default_text;
    hpcp_parse_list(&spec[opt], text, list, count, err, sizeof err);
}

static uint64_t size_option(const struct hpcp_optval *v, int opt, uint64_t fallback)
{
    return v[opt].set ? (uint64_t)v[opt].i : fallback;
}

static int choice_index(const struct hpcp_optval *v, int opt, const char *const *names, int n,
                        int fallback)
{
    for (int i = 0; v[opt].set && i < n; i++)
        if (!strcmp(v[opt].s, names[i]))
            return i;
    return fallback;
}

/* --mode gpcnet: GPCNeT's four congestors at once on floor(0.8 n) nodes, so
 * the options that pick congestors or their share are refused. */
static int parse_mode(struct cong_params *p, const struct hpcp_optval *v, char *err, size_t errlen)
{
    p->mode = choice_index(v, OPT_MODE, cong_mode_names, 2, CONG_MODE_HPCPROBE);
    p->idle_spin = choice_index(v, OPT_IDLE, cong_idle_names, 2, 0);
    p->placement_given = v[OPT_PLACEMENT].set;
    p->placement =
        choice_index(v, OPT_PLACEMENT, cong_placement_names, 3,
                     p->mode == CONG_MODE_GPCNET ? CONG_PLACE_RANDOM : CONG_PLACE_SPREAD);
    if (p->mode != CONG_MODE_GPCNET)
        return 0;
    int bad = v[OPT_CONGESTOR].set ? OPT_CONGESTOR : v[OPT_FRACTION].set ? OPT_FRACTION : -1;
    if (bad >= 0) {
        snprintf(err, errlen,
                 "%s is not allowed with --mode gpcnet (it runs GPCNeT's four congestors at "
                 "once on 80 %% of the nodes); allowed: --mode hpcprobe %s",
                 spec[bad].name, spec[bad].name);
        return -1;
    }
    p->ncongestors = CONG_GPCNET_GROUPS;
    for (int g = 0; g < CONG_GPCNET_GROUPS; g++)
        p->congestor[g] = cong_gpcnet_group_pattern[g];
    p->samples = v[OPT_SAMPLES].set ? p->samples : GPCNET_RINGS * GPCNET_STEPS;
    p->bandwidth_samples =
        v[OPT_BANDWIDTH_SAMPLES].set ? p->bandwidth_samples : GPCNET_RINGS * GPCNET_BW_STEPS;
    int steps = p->samples < GPCNET_STEPS ? p->samples : GPCNET_STEPS;
    p->ring_iterations[CONG_LATENCY] = p->ring_iterations[CONG_ALLREDUCE] = steps;
    p->ring_iterations[CONG_BANDWIDTH] =
        p->bandwidth_samples < GPCNET_BW_STEPS ? p->bandwidth_samples : GPCNET_BW_STEPS;
    return 0;
}

static int parse(struct cong_params *p, int argc, char **argv, char *err, size_t errlen)
{
    struct hpcp_optval v[OPT_COUNT];
    memset(p, 0, sizeof *p);
    if (hpcp_cli_parse(&cong_cli, argc, argv, "congestion load", v, &p->run, err, errlen))
        return -1;
    list_option(v, OPT_CANARY, p->canary, &p->ncanaries);
    list_option(v, OPT_CONGESTOR, p->congestor, &p->ncongestors);
    /* 8 bytes hold a message's stamp (the specs' minimum): smaller canary
     * messages could not be checked */
    p->congestor_bytes = size_option(v, OPT_CONGESTOR_BYTES, 4096);
    p->bandwidth_bytes = size_option(v, OPT_BANDWIDTH_BYTES, 131072);
    p->in_flight = v[OPT_IN_FLIGHT].set ? (int)v[OPT_IN_FLIGHT].i : 8;
    p->samples = v[OPT_SAMPLES].set ? (int)v[OPT_SAMPLES].i : 1000;
    p->bandwidth_samples = v[OPT_BANDWIDTH_SAMPLES].set ? (int)v[OPT_BANDWIDTH_SAMPLES].i : 100;
    p->fraction = v[OPT_FRACTION].set ? v[OPT_FRACTION].d : 0.8;
    if (parse_mode(p, v, err, errlen) != 0)
        return -1;
    if (p->fraction >= 1.0) {
        snprintf(err, errlen,
                 "--congestor-fraction %g leaves no canary (allowed: more than 0, less than 1)",
                 p->fraction);
        return -1;
    }
    return 0;
}

/* The canary and congestor buffers of every rank of a node must fit in half
 * of what the node has available. */
static int check_memory(const struct cong_params *p, const struct hpcp_sysinfo *si, char *err,
                        size_t errlen)
{
    /* send, receive and a pattern; gpcnet: K messages each way, to both neighbours */
    double per_message = p->mode == CONG_MODE_GPCNET ? 4.0 : 3.0;
    double canary = per_message * (double)p->in_flight * (double)p->bandwidth_bytes;
    double congestor = 3.0 * (double)si->ranks * (double)p->congestor_bytes;
    double need = (canary + congestor) * si->ranks_on_my_node;
    double avail = (double)hpcp_meminfo_bytes("MemAvailable:");
    char a[32], b[32];
    if (hpcp_any(MPI_COMM_WORLD, avail > 0 && need > 0.5 * avail)) {
        snprintf(err, errlen,
                 "--congestor-bytes and --bandwidth-bytes need %s of buffers on a node, more "
                 "than half the memory available (%s); allowed: smaller messages",
                 hpcp_format_bytes(need, a, sizeof a), hpcp_format_bytes(avail, b, sizeof b));
        return -1;
    }
    return 0;
}

int cong_params_prepare(struct cong_params *p, int argc, char **argv, const struct hpcp_sysinfo *si)
{
    char err[512];
    int bad = parse(p, argc, argv, err, sizeof err) || check_memory(p, si, err, sizeof err) ||
              hpcp_check_writable(MPI_COMM_WORLD, p->run.out, "--out", err, sizeof err);
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
