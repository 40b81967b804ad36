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

enum {
    OPT_CANARY,
    OPT_CONGESTOR,
    OPT_CONGESTOR_BYTES,
    OPT_BANDWIDTH_BYTES,
    OPT_IN_FLIGHT,
    OPT_SAMPLES,
    OPT_BANDWIDTH_SAMPLES,
    OPT_FRACTION,
    OPT_COUNT
};

static const struct hpcp_optspec spec[OPT_COUNT] = {
    [OPT_CANARY] = {"--canary", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_CONGESTOR] = {"--congestor", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_CONGESTOR_BYTES] = {"--congestor-bytes", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_BANDWIDTH_BYTES] = {"--bandwidth-bytes", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_IN_FLIGHT] = {"--in-flight", HPCP_OPT_INT, 1, 64, 0, 0, 0, NULL},
    [OPT_SAMPLES] = {"--samples", HPCP_OPT_INT, 1, 1000000, 0, 0, 0, NULL},
    [OPT_BANDWIDTH_SAMPLES] = {"--bandwidth-samples", HPCP_OPT_INT, 1, 1000000, 0, 0, 0, NULL},
    [OPT_FRACTION] = {"--congestor-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 1.0, 1, NULL},
};

#define CONG_TAKES                                                     \
    (HPCP_TAKES(HPCP_COMMON_WARMUP) | HPCP_TAKES(HPCP_COMMON_SEED) |   \
     HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) | \
     HPCP_TAKES(HPCP_COMMON_QUIET))
static const struct hpcp_cli cong_cli = {spec, OPT_COUNT, CONG_TAKES, 0, 1, 10, 1};

/* "a,b": names from `names` (n of them), each once, into list; -1 with a line. */
static int parse_names(const char *option, const char *text, const char *const *names, int n,
                       int *list, int *count, char *err, size_t errlen)
{
    char buf[256], allowed[160] = "";
    for (int i = 0; i < n; i++)
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "",
                 names[i]);
    hpcp_copy_truncated(buf, sizeof buf, text);
    *count = 0;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int i = 0; i < n; i++)
            found = strcmp(w, names[i]) ? found : i;
        for (int i = 0; found >= 0 && i < *count; i++)
            found = list[i] == found ? -2 : found;
        if (found < 0) {
            snprintf(err, errlen, "%s '%s': %s '%s' (allowed: a comma list of %s)", option, text,
                     found == -2 ? "repeats" : "unknown pattern", w, allowed);
            return -1;
        }
        list[(*count)++] = found;
    }
    if (*count == 0 || text[strlen(text) - 1] == ',') {
        snprintf(err, errlen, "%s '%s' is empty or ends with a comma (allowed: %s)", option, text,
                 allowed);
        return -1;
    }
    return 0;
}

static int parse_size(const struct hpcp_optval *v, int opt, uint64_t fallback, uint64_t least,
                      uint64_t *out, char *err, size_t errlen)
{
    *out = fallback;
    if (!v[opt].set)
        return 0;
    if (hpcp_parse_bytes(v[opt].s, out) == 0 && *out >= least && *out <= CONG_MAX_MESSAGE_BYTES)
        return 0;
    snprintf(err, errlen, "%s '%s' is not allowed (a size of %llu B to 64M, e.g. 4K or 128K)",
             spec[opt].name, v[opt].s, (unsigned long long)least);
    return -1;
}

static int parse(struct cong_params *p, int argc, char **argv, char *err, size_t errlen)
{
    struct hpcp_optval v[OPT_COUNT];
    memset(p, 0, sizeof *p);
    if (hpcp_cli_parse(&cong_cli, argc, argv, "congestion load", v, &p->run, err, errlen) ||
        parse_names("--canary", v[OPT_CANARY].set ? v[OPT_CANARY].s : "latency,bandwidth,allreduce",
                    cong_canary_names, CONG_NCANARIES, p->canary, &p->ncanaries, err, errlen))
        return -1;
    const char *congestors =
        v[OPT_CONGESTOR].set ? v[OPT_CONGESTOR].s : "incast,put-incast,get-bcast,alltoall";
    if (strcmp(congestors, "none") != 0 &&
        parse_names("--congestor", congestors, cong_pattern_names, CONG_NPATTERNS, p->congestor,
                    &p->ncongestors, err, errlen))
        return -1;
    /* 8 bytes hold a message's stamp; smaller canary messages could not be checked */
    if (parse_size(v, OPT_CONGESTOR_BYTES, 4096, 8, &p->congestor_bytes, err, errlen) ||
        parse_size(v, OPT_BANDWIDTH_BYTES, 131072, 8, &p->bandwidth_bytes, err, errlen))
        return -1;
    p->in_flight = v[OPT_IN_FLIGHT].set ? (int)v[OPT_IN_FLIGHT].i : 8;
    p->samples = v[OPT_SAMPLES].set ? (int)v[OPT_SAMPLES].i : 1000;
    p->bandwidth_samples = v[OPT_BANDWIDTH_SAMPLES].set ? (int)v[OPT_BANDWIDTH_SAMPLES].i : 100;
    p->fraction = v[OPT_FRACTION].set ? v[OPT_FRACTION].d : 0.8;
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
    double canary = 3.0 * (double)p->in_flight * (double)p->bandwidth_bytes;
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
