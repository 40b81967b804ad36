/* Contention options: parsing, defaults, and the checks that refuse bad
 * input with one line before any buffer is allocated. docs/cli.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mem/mem.h" /* mem_parse_size: the size syntax every family shares */
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

static const struct hpcp_optspec spec[OPT_COUNT] = {
    [OPT_SIZES] = {"--sizes", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_MESSAGES] = {"--messages", HPCP_OPT_INT, 1, 100000, 0, 0, 0, NULL},
    [OPT_PAIRS] = {"--pairs", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "nn|nn-torus|rnd"},
    [OPT_AXIS] = {"--axis", HPCP_OPT_INT, 0, CONT_MAX_DIMS - 1, 0, 0, 0, NULL},
    [OPT_MAX_PAIRS] = {"--max-pairs", HPCP_OPT_INT, 1, CONT_MAX_GROUPS, 0, 0, 0, NULL},
    [OPT_DISTANCE] = {"--distance", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_TORUS] = {"--torus", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_MESH] = {"--mesh", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_WRAP] = {"--wrap", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [OPT_RPN] = {"--ranks-per-node", HPCP_OPT_INT, 1, 1 << 20, 0, 0, 0, NULL},
    [OPT_COORDS] = {"--coords", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
};

static const struct hpcp_cli cont_cli = {spec, OPT_COUNT, HPCP_TAKES_ALL, 0, 5, 1, 1};

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

/* "16,1K,64K": sizes in bytes, increasing, each 1 B .. 1 GiB. */
static int parse_sizes(struct cont_params *p, const char *text, char *err, size_t errlen)
{
    char buf[512];
    hpcp_copy_truncated(buf, sizeof buf, text);
    p->nsizes = 0;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        uint64_t v = 0;
        if (p->nsizes == CONT_MAX_SIZES || mem_parse_size(w, &v) || v > CONT_MAX_MESSAGE_BYTES ||
            (p->nsizes && v <= p->sizes[p->nsizes - 1])) {
            snprintf(err, errlen,
                     "--sizes '%s' is not allowed (up to %d increasing message "
                     "sizes of 1 B to 1G, such as 16,1K,64K)",
                     text, CONT_MAX_SIZES);
            return -1;
        }
        p->sizes[p->nsizes++] = v;
    }
    if (p->nsizes == 0 || text[strlen(text) - 1] == ',') {
        snprintf(err, errlen,
                 "--sizes '%s' is empty or ends with a comma (allowed: sizes "
                 "such as 16,1K,64K)",
                 text);
        return -1;
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
        parse_sizes(p, v[OPT_SIZES].set ? v[OPT_SIZES].s : "16,64,256,1K,4K,16K,64K,256K,1M", err,
                    errlen) ||
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
              cont_topo_resolve(t, &p->topo, si, err, sizeof err);
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
