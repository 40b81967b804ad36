/* The gpu family's host arithmetic (gpu.h): what each stream op moves, the gold values
 * BabelStream checks against, the RandomAccess stream plan, the copy kinds and the two
 * sizing rules. Plain C without a device, so that test_gpu.c checks it everywhere. */
#include <math.h>
#include <stdio.h>

#include "gpu.h"
#include "hpcprobe/gups_rng.h"
#include "hpcprobe/util.h"

static const char *const op_names[GPU_STREAM_OPS] = {"copy", "mul", "add", "triad", "dot"};
/* Arrays each op reads or writes (BabelStream's counting). */
static const int op_arrays[GPU_STREAM_OPS] = {2, 2, 3, 3, 2};
static const int op_flops[GPU_STREAM_OPS] = {0, 1, 1, 2, 2};

const char *gpu_stream_op_name(enum gpu_stream_op op)
{
    return (unsigned)op < GPU_STREAM_OPS ? op_names[op] : "?";
}

double gpu_stream_bytes(enum gpu_stream_op op, uint64_t n)
{
    return (unsigned)op < GPU_STREAM_OPS ? op_arrays[op] * 8.0 * (double)n : 0;
}

double gpu_stream_flops(enum gpu_stream_op op, uint64_t n)
{
    return (unsigned)op < GPU_STREAM_OPS ? op_flops[op] * (double)n : 0;
}

/* The same statements, in the same order, as BabelStream's check_solution, so
 * that the rounding of each step is the device's. */
void gpu_stream_gold(int reps, uint64_t n, struct gpu_stream_gold *g)
{
    double a = GPU_STREAM_A0, b = GPU_STREAM_B0, c = GPU_STREAM_C0;
    const double scalar = GPU_STREAM_SCALAR;
    for (int i = 0; i < reps; i++) {
        c = a;
        b = scalar * c;
        c = a + b;
        a = b + scalar * c;
    }
    g->a = a, g->b = b, g->c = c;
    g->dot = a * b * (double)n;
}

/* Relative where the gold value is not 0 (c before the first round is). */
static double relative(double deviation, double gold)
{
    return gold != 0 ? deviation / fabs(gold) : deviation;
}

void gpu_stream_errors(const struct gpu_stream_gold *g, const double mean_abs_dev[3], double dot,
                       double err[4])
{
    err[0] = relative(mean_abs_dev[0], g->a);
    err[1] = relative(mean_abs_dev[1], g->b);
    err[2] = relative(mean_abs_dev[2], g->c);
    err[3] = relative(fabs(dot - g->dot), g->dot);
}

void gpu_ra_plan_init(struct gpu_ra_plan *p, int log2_words, uint64_t streams)
{
    p->words = (uint64_t)1 << log2_words;
    p->updates = 4 * p->words;
    p->streams = streams < 1 ? 1 : streams > p->updates ? p->updates : streams;
    p->per_stream = p->updates / p->streams;
    p->extra = p->updates % p->streams;
}

uint64_t gpu_ra_stream_first(const struct gpu_ra_plan *p, uint64_t s)
{
    return s * p->per_stream + (s < p->extra ? s : p->extra);
}

uint64_t gpu_ra_starts(uint64_t n)
{
    return hpcp_gups_starts(n);
}

static const char *const kind_names[GPU_COPY_KINDS] = {"h2d", "d2h", "d2d", "p2p"};

const char *gpu_copy_kind_name(enum gpu_copy_kind k)
{
    return (unsigned)k < GPU_COPY_KINDS ? kind_names[k] : "?";
}

double gpu_copy_counted_bytes(enum gpu_copy_kind k, uint64_t bytes)
{
    return (k == GPU_COPY_D2D ? 2.0 : 1.0) * (double)bytes;
}

uint64_t gpu_stream_elements(uint64_t l2_bytes, uint64_t free_bytes, double fraction, char *rule,
                             size_t len)
{
    double per_array = fraction * (double)free_bytes / 3.0;
    double least = 4.0 * (double)l2_bytes > 1024 ? 4.0 * (double)l2_bytes : 1024;
    uint64_t n = 1;
    while (n < ((uint64_t)1 << 60) && 16.0 * (double)n <= per_array)
        n *= 2;
    char l2[32], avail[32];
    if (rule)
        snprintf(rule, len,
                 "the largest power of two doubles per array with 3 arrays in %g of the free "
                 "device memory (%s), each at least 4 x L2 (%s)",
                 fraction, hpcp_format_bytes((double)free_bytes, avail, sizeof avail),
                 hpcp_format_bytes((double)l2_bytes, l2, sizeof l2));
    return 8.0 * (double)n > per_array || 8.0 * (double)n < least ? 0 : n;
}

int gpu_ra_log2_words(uint64_t free_bytes, double fraction, char *rule, size_t len)
{
    double budget = fraction * (double)free_bytes;
    int log2 = 0;
    while (log2 < 40 && 8.0 * ldexp(1.0, log2 + 1) <= budget)
        log2++;
    char avail[32];
    if (rule)
        snprintf(rule, len,
                 "the largest power-of-two table in %g of the free device memory (%s), as "
                 "HPCC takes half of memory",
                 fraction, hpcp_format_bytes((double)free_bytes, avail, sizeof avail));
    return log2 < 10 ? 0 : log2;
}
