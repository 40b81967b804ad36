/* Memory family options: parsing, defaults from the caches, and the checks
 * that refuse bad input with one line before anything large is allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/util.h"
#include "mem.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)
#define MEM_MIN_ELEMENTS 1024 /* a STREAM array below this times nothing but the loop */

const struct hpcp_optspec mem_option_spec[MEM_OPT_COUNT] = {
    [MEM_OPT_ARRAY_BYTES] = {"--array-bytes", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_BUFFER_BYTES] = {"--buffer-bytes", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_MIN_BYTES] = {"--min-bytes", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_MAX_BYTES] = {"--max-bytes", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_MIN_STRIDE] = {"--min-stride", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_MAX_STRIDE] = {"--max-stride", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_PER_OCTAVE] = {"--points-per-octave", HPCP_OPT_INT, 1, 8, 0, 0, 0, NULL},
    [MEM_OPT_SWEEP] = {"--sweep", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "stride|block"},
    [MEM_OPT_BUILD_VARIANT] = {"--build-variant", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "O3|O0"},
    [MEM_OPT_COPIES] = {"--copies", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_OVERSUBSCRIBE] = {"--oversubscribe", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL},
    [MEM_OPT_THREADS] = {"--threads", HPCP_OPT_INT, 1, MEM_MAX_THREADS, 0, 0, 0, NULL},
    [MEM_OPT_MIN_TIME] = {"--min-time", HPCP_OPT_DOUBLE, 0, 0, 0.0, 60.0, 1, NULL},
    [MEM_OPT_HUGEPAGES] = {"--hugepages", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "on|off"},
};

/* STREAM's first iteration is its warm-up: --repeat counts it, so at least 2. */
static const struct hpcp_cli mem_cli = {
    mem_option_spec,
    MEM_OPT_COUNT,
    HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_SEED) |
        HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) |
        HPCP_TAKES(HPCP_COMMON_QUIET),
    2,
    5,
    0,
    12345};

/* Which options each variant reads; the rest are refused by name. */
static const int stream_opts[] = {MEM_OPT_ARRAY_BYTES, MEM_OPT_THREADS, MEM_OPT_HUGEPAGES, -1};
static const int stride_opts[] = {MEM_OPT_BUFFER_BYTES,  MEM_OPT_MIN_BYTES,
                                  MEM_OPT_MAX_BYTES,     MEM_OPT_MIN_STRIDE,
                                  MEM_OPT_MAX_STRIDE,    MEM_OPT_SWEEP,
                                  MEM_OPT_BUILD_VARIANT, MEM_OPT_HUGEPAGES,
                                  MEM_OPT_MIN_TIME,      -1};
static const int latency_opts[] = {MEM_OPT_MIN_BYTES, MEM_OPT_MAX_BYTES, MEM_OPT_PER_OCTAVE,
                                   MEM_OPT_HUGEPAGES, MEM_OPT_MIN_TIME,  -1};
static const int common_opts[] = {MEM_OPT_COPIES, MEM_OPT_OVERSUBSCRIBE, -1};
/* Of the harness's common options, only the latency chase takes --seed. */
#define MEM_COMMON_ALL (mem_cli.takes & ~HPCP_TAKES(HPCP_COMMON_SEED))

int mem_parse_size(const char *text, uint64_t *bytes)
{
    return hpcp_parse_bytes(text, bytes);
}

static int listed(const int *list, int opt)
{
    for (; *list >= 0; list++)
        if (*list == opt)
            return 1;
    return 0;
}

static int check_applies(const struct hpcp_optval *v, const struct hpcp_common *c,
                         const char *variant, char *err, size_t errlen)
{
    int latency = strcmp(variant, "latency") == 0;
    const int *own = strcmp(variant, "stride") == 0 ? stride_opts
                     : latency                      ? latency_opts
                                                    : stream_opts;
    const char *name = NULL;
    for (int o = 0; o < MEM_OPT_COUNT && !name; o++)
        if (v[o].set && !listed(own, o) && !listed(common_opts, o))
            name = mem_option_spec[o].name;
    int refused = hpcp_common_refused(c, latency ? mem_cli.takes : MEM_COMMON_ALL);
    if (!name && refused >= 0)
        name = hpcp_common_name(refused);
    if (name)
        snprintf(err, errlen, "%s does not apply to %s %s", name,
                 own == stream_opts ? "stream" : "mem", variant);
    return name ? -1 : 0;
}

/* Sizes: a positive byte count with an optional K/M/G/T suffix. */
static int size_option(const struct hpcp_optval *v, int opt, uint64_t dflt, uint64_t *out,
                       char *err, size_t errlen)
{
    *out = dflt;
    if (!v[opt].set)
        return 0;
    if (mem_parse_size(v[opt].s, out) == 0)
        return 0;
    snprintf(err, errlen,
             "%s must be a positive size in bytes (e.g. 4096, 64K, 512M, 2G), "
             "not '%s'",
             mem_option_spec[opt].name, v[opt].s);
    return -1;
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

static uint64_t pow2_at_least(uint64_t x)
{
    uint64_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

static int parse_copies(struct mem_params *p, const struct hpcp_optval *v, const char *variant,
                        int ranks, char *err, size_t errlen)
{
    const char *text = v[MEM_OPT_COPIES].set          ? v[MEM_OPT_COPIES].s
                       : strcmp(variant, "star") == 0 ? "all"
                                                      : "one";
    char *end;
    long n = strtol(text, &end, 10);
    if (strcmp(text, "one") == 0)
        n = 1;
    else if (strcmp(text, "all") == 0)
        n = ranks;
    else if (*end || end == text || n < 1)
        n = -1;
    if (n < 1 || n > ranks) {
        snprintf(err, errlen,
                 "--copies %s: %s (allowed: one, all, or 1..%d: one copy per "
                 "launched rank; launch more ranks for more copies)",
                 text, n < 0 ? "not a number of copies" : "more copies than launched ranks", ranks);
        return -1;
    }
    hpcp_copy_truncated(p->copies_text, sizeof p->copies_text, text);
    p->copies = (int)n;
    return 0;
}

static int stream_sizes(struct mem_params *p, const struct hpcp_optval *v, char *err, size_t errlen)
{
    uint64_t rule = 4 * p->caches.llc_per_node;
    if (rule < 32 * MIB)
        rule = 32 * MIB; /* STREAM's own floor when no cache size is known */
    p->array_from_option = v[MEM_OPT_ARRAY_BYTES].set;
    if (size_option(v, MEM_OPT_ARRAY_BYTES, rule, &p->array_bytes, err, errlen))
        return -1;
    if (p->array_bytes < MEM_MIN_ELEMENTS * sizeof(double)) {
        snprintf(err, errlen,
                 "--array-bytes %llu is too small (allowed: >= %llu bytes, %d "
                 "doubles per array)",
                 (unsigned long long)p->array_bytes,
                 (unsigned long long)(MEM_MIN_ELEMENTS * sizeof(double)), MEM_MIN_ELEMENTS);
        return -1;
    }
    p->array_bytes -= p->array_bytes % sizeof(double);
    const char *env = getenv("OMP_NUM_THREADS");
    p->threads = v[MEM_OPT_THREADS].set ? (int)v[MEM_OPT_THREADS].i
                 : env && atoi(env) > 0 ? atoi(env)
                                        : 1;
    if (p->threads > MEM_MAX_THREADS)
        p->threads = MEM_MAX_THREADS;
    if (!(p->run.given & HPCP_TAKES(HPCP_COMMON_REPEAT)))
        p->run.repeat = 10; /* STREAM's NTIMES; the sweeps default to 5 */
    if (p->run.repeat > MEM_STREAM_MAX_REPEAT) {
        snprintf(err, errlen,
                 "--repeat %d: STREAM's values grow 15x per iteration "
                 "(allowed: 2..%d)",
                 p->run.repeat, MEM_STREAM_MAX_REPEAT);
        return -1;
    }
    p->hugepages = !v[MEM_OPT_HUGEPAGES].set || strcmp(v[MEM_OPT_HUGEPAGES].s, "on") == 0;
    return 0;
}

static int stride_sizes(struct mem_params *p, const struct hpcp_optval *v, char *err, size_t errlen)
{
    uint64_t dflt = pow2_at_least(4 * (p->caches.llc_per_node ? p->caches.llc_per_node : 8 * MIB));
    if (size_option(v, MEM_OPT_BUFFER_BYTES, dflt, &p->buffer_bytes, err, errlen) ||
        size_option(v, MEM_OPT_MIN_STRIDE, 8, &p->min_stride, err, errlen) ||
        size_option(v, MEM_OPT_MAX_STRIDE, p->buffer_bytes / 2, &p->max_stride, err, errlen) ||
        size_option(v, MEM_OPT_MIN_BYTES, KIB, &p->min_bytes, err, errlen) ||
        size_option(v, MEM_OPT_MAX_BYTES, dflt, &p->max_bytes, err, errlen))
        return -1;
    p->sweep = v[MEM_OPT_SWEEP].set && strcmp(v[MEM_OPT_SWEEP].s, "block") == 0 ? MEM_SWEEP_BLOCK
                                                                                : MEM_SWEEP_STRIDE;
    p->build_o0 = v[MEM_OPT_BUILD_VARIANT].set && strcmp(v[MEM_OPT_BUILD_VARIANT].s, "O0") == 0;
    const char *bad = NULL;
    if (!is_pow2(p->min_stride) || !is_pow2(p->max_stride) || p->min_stride < 8)
        bad = "strides must be powers of two of at least 8 bytes (one 64-bit word)";
    else if (p->min_stride > p->max_stride)
        bad = "--min-stride is larger than --max-stride";
    else if (p->max_stride > p->buffer_bytes)
        bad = "the largest stride is larger than the buffer (allowed: --max-stride <= "
              "--buffer-bytes)";
    else if (p->min_bytes < 64 || p->min_bytes > p->max_bytes)
        bad = "block sizes need 64 <= --min-bytes <= --max-bytes";
    if (bad)
        hpcp_copy_truncated(err, errlen, bad);
    p->buffer_bytes -= p->buffer_bytes % 8;
    return bad ? -1 : 0;
}

static int latency_sizes(struct mem_params *p, const struct hpcp_optval *v, char *err,
                         size_t errlen)
{
    p->sweep = MEM_SWEEP_LATENCY;
    if (size_option(v, MEM_OPT_MIN_BYTES, KIB, &p->min_bytes, err, errlen) ||
        size_option(v, MEM_OPT_MAX_BYTES, 2 * GIB, &p->max_bytes, err, errlen))
        return -1;
    if (p->min_bytes < 1024 || p->min_bytes > p->max_bytes) {
        snprintf(err, errlen,
                 "working sets need 1K <= --min-bytes <= --max-bytes (given %llu "
                 "and %llu bytes)",
                 (unsigned long long)p->min_bytes, (unsigned long long)p->max_bytes);
        return -1;
    }
    p->max_bytes_default = !v[MEM_OPT_MAX_BYTES].set;
    p->points_per_octave = v[MEM_OPT_PER_OCTAVE].set ? (int)v[MEM_OPT_PER_OCTAVE].i : 2;
    return 0;
}

/* Bytes one active rank allocates. */
static uint64_t bytes_per_copy(const struct mem_params *p, const char *variant)
{
    if (strcmp(variant, "latency") == 0)
        return p->max_bytes + p->max_bytes / 16; /* the buffer and the cycle's order */
    if (strcmp(variant, "stride") == 0)
        return p->sweep == MEM_SWEEP_BLOCK ? p->max_bytes : p->buffer_bytes;
    return 3 * p->array_bytes;
}

static int check_fits(struct mem_params *p, const char *variant, const struct hpcp_sysinfo *si,
                      char *err, size_t errlen)
{
    int active = si->rank < p->copies, on_node = 0;
    MPI_Allreduce(&active, &on_node, 1, MPI_INT, MPI_SUM, si->node_comm);
    double avail = (double)hpcp_meminfo_bytes("MemAvailable:");
    if (p->max_bytes_default) { /* 2 GiB unless the node cannot hold that many copies */
        while (avail > 0 && p->max_bytes > 4 * p->min_bytes &&
               (double)bytes_per_copy(p, variant) * on_node > 0.5 * avail)
            p->max_bytes /= 2;
        MPI_Allreduce(MPI_IN_PLACE, &p->max_bytes, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    }
    double need = (double)bytes_per_copy(p, variant) * on_node;
    int bad_mem = avail > 0 && need > 0.9 * avail;
    int bad_cores = on_node * p->threads > si->cores_per_node && !p->oversubscribe;
    char a[32], b[32];
    if (hpcp_any(MPI_COMM_WORLD, bad_mem))
        snprintf(err, errlen,
                 "%d cop%s of %s need %s on a node, more than the memory available "
                 "(%s); allowed: buffers that fit in 90%% of it",
                 on_node, on_node == 1 ? "y" : "ies", variant, hpcp_format_bytes(need, a, sizeof a),
                 hpcp_format_bytes(avail, b, sizeof b));
    else if (hpcp_any(MPI_COMM_WORLD, bad_cores))
        snprintf(err, errlen,
                 "%d cop%s x %d thread(s) on a node with %d cores: the copies would "
                 "share cores (allowed: --copies up to %d, or --oversubscribe)",
                 on_node, on_node == 1 ? "y" : "ies", p->threads, si->cores_per_node,
                 si->cores_per_node / p->threads);
    else
        return 0;
    return -1;
}

int mem_params_parse(struct mem_params *p, const char *variant, int argc, char **argv,
                     const struct hpcp_sysinfo *si, char *err, size_t errlen)
{
    struct hpcp_optval v[MEM_OPT_COUNT];
    char context[32];
    memset(p, 0, sizeof *p);
    snprintf(context, sizeof context, "%s %s",
             strcmp(variant, "stride") && strcmp(variant, "latency") ? "stream" : "mem", variant);
    if (hpcp_cli_parse(&mem_cli, argc, argv, context, v, &p->run, err, errlen) ||
        check_applies(v, &p->run, variant, err, errlen))
        return -1;
    mem_caches_read(&p->caches);
    p->threads = 1;
    p->min_time = v[MEM_OPT_MIN_TIME].set ? v[MEM_OPT_MIN_TIME].d : 0.01;
    p->hugepages = v[MEM_OPT_HUGEPAGES].set && strcmp(v[MEM_OPT_HUGEPAGES].s, "on") == 0;
    p->oversubscribe = v[MEM_OPT_OVERSUBSCRIBE].set;
    int bad = strcmp(variant, "stride") == 0    ? stride_sizes(p, v, err, errlen)
              : strcmp(variant, "latency") == 0 ? latency_sizes(p, v, err, errlen)
                                                : stream_sizes(p, v, err, errlen);
    if (bad || parse_copies(p, v, variant, si->ranks, err, errlen))
        return -1;
    return check_fits(p, variant, si, err, errlen);
}

int mem_params_prepare(struct mem_params *p, const char *variant, int argc, char **argv,
                       const struct hpcp_sysinfo *si)
{
    char err[512];
    int bad = mem_params_parse(p, variant, argc, argv, si, err, sizeof err) ||
              hpcp_check_writable(MPI_COMM_WORLD, p->run.out, "--out", err, sizeof err);
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
