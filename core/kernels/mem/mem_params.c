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

#define SIZE_MAX_BYTES (1LL << 50)

const struct hpcp_optspec mem_option_spec[MEM_OPT_COUNT] = {
    [MEM_OPT_ARRAY_BYTES] = {"--array-bytes", HPCP_OPT_BYTES, 1, SIZE_MAX_BYTES, 0, 0, 0, NULL, 0,
                             "bytes per array (three arrays), at least 8192 (default 4x the "
                             "caches the copies of a node share, per copy: docs/sizing.md)",
                             NULL},
    [MEM_OPT_BUFFER_BYTES] = {"--buffer-bytes", HPCP_OPT_BYTES, 1, SIZE_MAX_BYTES, 0, 0, 0, NULL, 0,
                              "stride sweep: the buffer the strides sweep (default a power of "
                              "two >= 4x the caches the copies share, per copy)",
                              NULL},
    [MEM_OPT_MIN_BYTES] = {"--min-bytes", HPCP_OPT_BYTES, 1, SIZE_MAX_BYTES, 0, 0, 0, NULL, 0,
                           "smallest block size (stride --sweep block, a power of two, >= 64) or "
                           "working set (latency, >= 1K)",
                           "1K"},
    [MEM_OPT_MAX_BYTES] = {"--max-bytes", HPCP_OPT_BYTES, 1, SIZE_MAX_BYTES, 0, 0, 0, NULL, 0,
                           "largest block size or working set (default a power of two >= 4x "
                           "the caches one core reaches; latency: halved until the copies fit "
                           "--memory-cap)",
                           NULL},
    [MEM_OPT_MIN_STRIDE] = {"--min-stride", HPCP_OPT_BYTES, 1, SIZE_MAX_BYTES, 0, 0, 0, NULL, 0,
                            "smallest stride, a power of two >= 8", "8"},
    [MEM_OPT_MAX_STRIDE] = {"--max-stride", HPCP_OPT_BYTES, 1, SIZE_MAX_BYTES, 0, 0, 0, NULL, 0,
                            "largest stride, a power of two <= the buffer (default half the "
                            "buffer)",
                            NULL},
    [MEM_OPT_PER_OCTAVE] = {"--points-per-octave", HPCP_OPT_INT, 1, 8, 0, 0, 0, NULL, 0,
                            "working sets per doubling", "2"},
    [MEM_OPT_SWEEP] = {"--sweep", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "stride|block", 0,
                       "time per access against stride or against block size", "stride"},
    [MEM_OPT_BUILD_VARIANT] = {"--build-variant", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "O3|O0", 0,
                               "which build of the read+write kernel runs", "O3"},
    [MEM_OPT_COPIES] = {"--copies", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
                        "one, all or N: one copy alone (rank 0, the others sleep), then N (or "
                        "every launched rank) at once; the ratio many/one is recorded (default "
                        "one; all for stream star)",
                        NULL},
    [MEM_OPT_OVERSUBSCRIBE] = {"--oversubscribe", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                               "allow more copies (x threads) on a node than it has cores", NULL},
    [MEM_OPT_THREADS] = {"--threads", HPCP_OPT_INT, 1, MEM_MAX_THREADS, 0, 0, 0, NULL, 0,
                         "OpenMP threads per rank, each rank pinned to its own T cores (default "
                         "OMP_NUM_THREADS, else 1)",
                         NULL},
    [MEM_OPT_MIN_TIME] = {"--min-time", HPCP_OPT_DOUBLE, 0, 0, 0.0, 60.0, 1, NULL, 0,
                          "each sample lasts at least S seconds (calibrated on one copy)", "0.01"},
    [MEM_OPT_HUGEPAGES] = {"--hugepages", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "on|off", 0,
                           "MADV_HUGEPAGE or MADV_NOHUGEPAGE on the buffers; what the OS gave is "
                           "recorded (default on for stream, off for mem)",
                           NULL},
};

/* STREAM's first iteration is its warm-up: --repeat counts it, so at least 2;
 * STREAM runs NTIMES = 10 of them, the sweeps 5 samples per point. */
#define MEM_TAKES                                                      \
    (HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_SEED) |   \
     HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) | \
     HPCP_TAKES(HPCP_COMMON_QUIET) | HPCP_TAKES(HPCP_COMMON_MEMORY_CAP))
static const char *const mem_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_REPEAT] = "timed samples per point, each at least --min-time long",
    [HPCP_COMMON_SEED] = "seed of the random cycle the chase follows",
};
static const char *const stream_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_REPEAT] = "iterations of the four kernels, the first a warm-up left out of the "
                           "rates (STREAM's NTIMES)",
};
static const struct hpcp_cli mem_cli = {mem_option_spec, MEM_OPT_COUNT, MEM_TAKES, 2, 5, 0,
                                        12345,           mem_help};
static const struct hpcp_cli stream_cli = {mem_option_spec, MEM_OPT_COUNT, MEM_TAKES, 2, 10, 0,
                                           12345,           stream_help};

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
#define MEM_COMMON_ALL (MEM_TAKES & ~HPCP_TAKES(HPCP_COMMON_SEED))

static int listed(const int *list, int opt)
{
    for (; *list >= 0; list++)
        if (*list == opt)
            return 1;
    return 0;
}

static const int *variant_opts(const char *variant)
{
    return !strcmp(variant, "stride")    ? stride_opts
           : !strcmp(variant, "latency") ? latency_opts
                                         : stream_opts;
}

static unsigned variant_common(const char *variant)
{
    return strcmp(variant, "latency") == 0 ? MEM_TAKES : MEM_COMMON_ALL;
}

/* describe: the options of kernel k, from the lists its parse refuses by. */
static int mem_takes(const struct hpcp_kernel *k, int option)
{
    if (option >= MEM_OPT_COUNT)
        return (variant_common(k->variant) & HPCP_TAKES(option - MEM_OPT_COUNT)) != 0;
    return listed(variant_opts(k->variant), option) || listed(common_opts, option);
}

const struct hpcp_options_desc mem_options_desc = {&mem_cli, mem_takes};
const struct hpcp_options_desc stream_options_desc = {&stream_cli, mem_takes};

static const struct hpcp_metric_desc stream_metrics[] = {
    {"single_<op>_bandwidth", "B/s", "one copy alone: copy, scale, add, triad per iteration"},
    {"star_<op>_bandwidth", "B/s", "every copy at once, per iteration"},
    {"star_<op>_best_bandwidth", "B/s", "each copy's best iteration"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc stride_metrics[] = {
    {"peak_time_per_access", "s", "samples at the slowest stride (--sweep stride)"},
    {"time_per_access_largest_block", "s", "samples at the largest block (--sweep block)"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc latency_metrics[] = {
    {"memory_latency", "s", "load-to-load latency at the largest working set"},
    {"memory_latency_per_rank", "s", "each copy's median at the largest working set, at once"},
    {NULL, NULL, NULL}};
/* stream's headline is single_ for stream single, star_ for stream star */
const struct hpcp_records_desc stream_records = {stream_metrics, "<single|star>_triad_bandwidth"};
const struct hpcp_records_desc mem_stride_records = {stride_metrics, "peak_time_per_access"};
const struct hpcp_records_desc mem_latency_records = {latency_metrics, "memory_latency"};

static int check_applies(const struct hpcp_optval *v, const struct hpcp_common *c,
                         const char *variant, char *err, size_t errlen)
{
    const int *own = variant_opts(variant);
    const char *name = NULL;
    for (int o = 0; o < MEM_OPT_COUNT && !name; o++)
        if (v[o].set && !listed(own, o) && !listed(common_opts, o))
            name = mem_option_spec[o].name;
    int refused = hpcp_common_refused(c, variant_common(variant));
    if (!name && refused >= 0)
        name = hpcp_common_name(refused);
    if (name)
        snprintf(err, errlen, "%s does not apply to %s %s", name,
                 own == stream_opts ? "stream" : "mem", variant);
    return name ? -1 : 0;
}

/* A size option (HPCP_OPT_BYTES, checked by the option parser), or dflt. */
static int size_option(const struct hpcp_optval *v, int opt, uint64_t dflt, uint64_t *out,
                       char *err, size_t errlen)
{
    (void)err, (void)errlen;
    *out = v[opt].set ? (uint64_t)v[opt].i : dflt;
    return 0;
}

/* A size its rule chooses unless given: the same on every rank (the smallest,
 * should nodes differ), the rule kept for the record. Collective. */
static int size_default(struct mem_params *p, const struct hpcp_optval *v, int opt,
                        const struct hpcp_sized *rule, uint64_t *out, char *err, size_t errlen)
{
    p->size_from_option = v[opt].set;
    if (v[opt].set) {
        snprintf(p->size_rule, sizeof p->size_rule, "option");
        return size_option(v, opt, 0, out, err, errlen);
    }
    *out = rule->value;
    MPI_Allreduce(MPI_IN_PLACE, out, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    hpcp_copy_truncated(p->size_rule, sizeof p->size_rule, rule->rule);
    return 0;
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
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
    struct hpcp_sized rule;
    hpcp_size_stream(&p->node, p->copies_on_node, p->run.memory_cap, &rule);
    if (size_default(p, v, MEM_OPT_ARRAY_BYTES, &rule, &p->array_bytes, err, errlen))
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
    struct hpcp_sized rule;
    p->sweep = v[MEM_OPT_SWEEP].set && strcmp(v[MEM_OPT_SWEEP].s, "block") == 0 ? MEM_SWEEP_BLOCK
                                                                                : MEM_SWEEP_STRIDE;
    hpcp_size_stride(&p->node, p->copies_on_node, p->run.memory_cap, &rule);
    int block = p->sweep == MEM_SWEEP_BLOCK;
    if (size_default(p, v, block ? MEM_OPT_MAX_BYTES : MEM_OPT_BUFFER_BYTES, &rule,
                     block ? &p->max_bytes : &p->buffer_bytes, err, errlen) ||
        size_option(v, block ? MEM_OPT_BUFFER_BYTES : MEM_OPT_MAX_BYTES, rule.value,
                    block ? &p->buffer_bytes : &p->max_bytes, err, errlen) ||
        size_option(v, MEM_OPT_MIN_STRIDE, 8, &p->min_stride, err, errlen) ||
        size_option(v, MEM_OPT_MAX_STRIDE, p->buffer_bytes / 2, &p->max_stride, err, errlen) ||
        size_option(v, MEM_OPT_MIN_BYTES, KIB, &p->min_bytes, err, errlen))
        return -1;
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
    struct hpcp_sized rule;
    p->sweep = MEM_SWEEP_LATENCY;
    hpcp_size_latency(&p->node, p->copies_on_node, p->run.memory_cap, &rule);
    if (size_option(v, MEM_OPT_MIN_BYTES, KIB, &p->min_bytes, err, errlen) ||
        size_default(p, v, MEM_OPT_MAX_BYTES, &rule, &p->max_bytes, err, errlen))
        return -1;
    if (p->min_bytes < 1024 || p->min_bytes > p->max_bytes) {
        snprintf(err, errlen,
                 "working sets need 1K <= --min-bytes <= --max-bytes (given %llu "
                 "and %llu bytes)",
                 (unsigned long long)p->min_bytes, (unsigned long long)p->max_bytes);
        return -1;
    }
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
    char what[96];
    snprintf(what, sizeof what, "%s %s %s",
             strcmp(variant, "stride") && strcmp(variant, "latency") ? "stream" : "mem", variant,
             p->size_from_option ? "with the size given" : "at its default size");
    int bad_mem = hpcp_cap_check(&p->node, p->run.memory_cap, (double)bytes_per_copy(p, variant),
                                 on_node, what, err, errlen);
    int bad_cores = on_node * p->threads > si->cores_per_node && !p->oversubscribe;
    if (hpcp_any(MPI_COMM_WORLD, bad_mem)) {
        if (!bad_mem) /* another node's line: say it here too, as rank 0 prints it */
            snprintf(err, errlen, "%s does not fit --memory-cap %g on every node", what,
                     p->run.memory_cap);
    } else if (hpcp_any(MPI_COMM_WORLD, bad_cores)) {
        snprintf(err, errlen,
                 "%d cop%s x %d thread(s) on a node with %d cores: the copies would "
                 "share cores (allowed: --copies up to %d, or --oversubscribe)",
                 on_node, on_node == 1 ? "y" : "ies", p->threads, si->cores_per_node,
                 si->cores_per_node / p->threads);
    } else {
        return 0;
    }
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
    const struct hpcp_cli *cli = variant_opts(variant) == stream_opts ? &stream_cli : &mem_cli;
    if (hpcp_cli_parse(cli, argc, argv, context, v, &p->run, err, errlen) ||
        check_applies(v, &p->run, variant, err, errlen))
        return -1;
    hpcp_caches_read(&p->caches);
    hpcp_node_of(&p->node, si);
    if (parse_copies(p, v, variant, si->ranks, err, errlen))
        return -1;
    p->copies_on_node = p->copies < si->ranks_per_node_max ? p->copies : si->ranks_per_node_max;
    p->threads = 1;
    p->min_time = v[MEM_OPT_MIN_TIME].set ? v[MEM_OPT_MIN_TIME].d : 0.01;
    p->hugepages = v[MEM_OPT_HUGEPAGES].set && strcmp(v[MEM_OPT_HUGEPAGES].s, "on") == 0;
    p->oversubscribe = v[MEM_OPT_OVERSUBSCRIBE].set;
    int bad = strcmp(variant, "stride") == 0    ? stride_sizes(p, v, err, errlen)
              : strcmp(variant, "latency") == 0 ? latency_sizes(p, v, err, errlen)
                                                : stream_sizes(p, v, err, errlen);
    if (bad)
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
