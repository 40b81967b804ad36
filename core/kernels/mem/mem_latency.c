/* mem latency: dependent loads over a random cycle of cache lines, working
 * sets from --min-bytes to --max-bytes, base or transparent huge pages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/rng.h"
#include "hpcprobe/util.h"
#include "mem_sweep.h"

#define CHASE_LOADS_PER_PASS 256

struct chase_data {
    struct hpcp_region region;
    char *lines;
    uint32_t *order;       /* order[j]: the j-th line of the cycle */
    size_t n;              /* lines at the current point */
    void **cur;            /* where the chase stands */
    uint64_t steps;        /* loads made since the point was prepared */
};

void mem_chase_build(void *lines, uint32_t *order, size_t n, uint64_t seed)
{
    char *base = lines;
    for (size_t j = 0; j < n; j++)
        order[j] = (uint32_t)j;
    for (size_t j = n - 1; j > 0; j--) { /* Fisher-Yates: a uniform random order */
        size_t r = (size_t)(((unsigned __int128)hpcp_splitmix64(&seed) * (j + 1)) >> 64);
        uint32_t t = order[j];
        order[j] = order[r];
        order[r] = t;
    }
    /* Linking the lines in that order, last to first, makes one cycle
     * through all n: no line is left out, none is visited twice. */
    for (size_t j = 0; j < n; j++)
        *(void **)(base + (size_t)order[j] * MEM_LINE_BYTES) =
            base + (size_t)order[(j + 1) % n] * MEM_LINE_BYTES;
}

static void add_points(struct mem_sweep_state *s)
{
    const struct mem_params *p = &s->p;
    double last = 0;
    s->npoints = 0;
    for (int k = 0; s->npoints < MEM_MAX_POINTS; k++) {
        double bytes = (double)p->min_bytes * pow(2.0, (double)k / p->points_per_octave);
        double lines = floor(bytes / MEM_LINE_BYTES + 1e-9);
        if (lines * MEM_LINE_BYTES > (double)p->max_bytes)
            break;
        if (lines * MEM_LINE_BYTES == last)
            continue;
        last = lines * MEM_LINE_BYTES;
        s->x[s->npoints] = last;
        s->accesses[s->npoints++] = CHASE_LOADS_PER_PASS;
    }
}

static int chase_setup(struct hpcp_bench *b)
{
    struct mem_sweep_state *s = b->state;
    struct chase_data *d = calloc(1, sizeof *d);
    s->data = d;
    s->x_name = "working_set_bytes";
    add_points(s);
    size_t lines = (size_t)(s->p.max_bytes / MEM_LINE_BYTES);
    int failed = !d || (s->active &&
                        hpcp_region_alloc(&d->region, lines * MEM_LINE_BYTES, s->p.hugepages) != 0);
    if (!failed && s->active && !(d->order = malloc(lines * sizeof *d->order)))
        failed = 1;
    if (!failed && s->active) {
        d->lines = d->region.base;
        memset(d->lines, 0, lines * MEM_LINE_BYTES);
        s->thp_bytes = hpcp_thp_bytes(d->lines, lines * MEM_LINE_BYTES);
        s->buffer = d->lines, s->buffer_bytes = lines * MEM_LINE_BYTES;
    }
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void **chase(void **p, long passes)
{
    for (long i = 0; i < passes; i++)
        for (int k = 0; k < CHASE_LOADS_PER_PASS; k += 8) {
            p = (void **)*p, p = (void **)*p, p = (void **)*p, p = (void **)*p;
            p = (void **)*p, p = (void **)*p, p = (void **)*p, p = (void **)*p;
        }
    return p;
}

static int chase_run(struct hpcp_bench *b, double *seconds)
{
    struct mem_sweep_state *s = b->state;
    struct chase_data *d = s->data;
    *seconds = 0;
    if (s->passes == 0) {
        d->n = (size_t)(s->x[s->point] / MEM_LINE_BYTES);
        mem_chase_build(d->lines, d->order, d->n, s->p.run.seed + (uint64_t)s->point);
        d->cur = (void **)(d->lines + (size_t)d->order[0] * MEM_LINE_BYTES);
        d->steps = 0;
        return 0;
    }
    if (s->passes < 0) { /* test hook: one load that is not counted */
        d->cur = (void **)*d->cur;
        return 0;
    }
    double t0 = MPI_Wtime();
    d->cur = chase(d->cur, s->passes);
    *seconds = MPI_Wtime() - t0;
    d->steps += (uint64_t)s->passes * CHASE_LOADS_PER_PASS;
    return 0;
}

static int chase_verify(struct hpcp_bench *b, double *error)
{
    struct mem_sweep_state *s = b->state;
    struct chase_data *d = s->data;
    void *want = d->lines + (size_t)d->order[d->steps % d->n] * MEM_LINE_BYTES;
    *error = (void *)d->cur == want ? 0 : 1;
    return 0;
}

static void chase_teardown(struct hpcp_bench *b)
{
    struct mem_sweep_state *s = b->state;
    struct chase_data *d = s->data;
    if (d) {
        hpcp_region_free(&d->region);
        free(d->order);
    }
    free(d);
    s->data = NULL;
}

const struct hpcp_kernel hpcp_mem_latency = {
    "mem",
    "latency",
    "chase",
    "dependent-load latency vs working set (random cycle of lines), plateaus = caches",
    hpcp_mem_driver,
    chase_setup,
    chase_run,
    chase_verify,
    chase_teardown,
    NULL,
    &mem_options_desc,
    &mem_latency_records};
