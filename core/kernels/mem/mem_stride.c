/* mem stride: the read+write kernel of paper 002 against stride (Figure 2)
 * or block size (Figure 4), at -O3 or -O0 (mem_rw.c). */
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"
#include "mem_rw.h"
#include "mem_sweep.h"

struct stride_data {
    struct hpcp_region region;
    uint64_t *buf;
    mem_rw_pass_fn pass;
    size_t n, step;        /* the current point: words swept, words between accesses */
    long passes_done;      /* since the point was prepared */
};

static void add_points(struct mem_sweep_state *s)
{
    const struct mem_params *p = &s->p;
    s->npoints = 0;
    if (p->sweep == MEM_SWEEP_STRIDE) {
        size_t words = p->buffer_bytes / 8;
        for (uint64_t st = p->min_stride; st <= p->max_stride && s->npoints < MEM_MAX_POINTS;
             st *= 2) {
            size_t step = st / 8;
            s->x[s->npoints] = (double)st;
            s->accesses[s->npoints++] = (double)((words + step - 1) / step);
        }
        return;
    }
    for (uint64_t bytes = p->min_bytes; bytes <= p->max_bytes && s->npoints < MEM_MAX_POINTS;
         bytes *= 2) {
        s->x[s->npoints] = (double)(bytes - bytes % 8);
        s->accesses[s->npoints++] = (double)(bytes / 8);
    }
}

static int stride_setup(struct hpcp_bench *b)
{
    struct mem_sweep_state *s = b->state;
    struct stride_data *d = calloc(1, sizeof *d);
    s->data = d;
    s->x_name = s->p.sweep == MEM_SWEEP_STRIDE ? "stride_bytes" : "block_bytes";
    s->build_flags = s->p.build_o0 ? mem_rw_flags_O0 : mem_rw_flags_O3;
    add_points(s);
    size_t bytes = s->p.sweep == MEM_SWEEP_STRIDE ? s->p.buffer_bytes : s->p.max_bytes;
    int failed = !d || (s->active && hpcp_region_alloc(&d->region, bytes, s->p.hugepages) != 0);
    if (!failed && s->active) {
        d->buf = d->region.base;
        d->pass = s->p.build_o0 ? mem_rw_pass_O0 : mem_rw_pass_O3;
        memset(d->buf, 0, bytes);
        s->thp_bytes = hpcp_thp_bytes(d->buf, bytes);
        s->buffer = d->buf, s->buffer_bytes = bytes;
    }
    return hpcp_any(b->comm, failed) ? HPCP_EXIT_RUNTIME : 0;
}

static void prepare_point(struct mem_sweep_state *s, struct stride_data *d)
{
    double x = s->x[s->point];
    if (s->p.sweep == MEM_SWEEP_STRIDE) {
        d->n = s->p.buffer_bytes / 8;
        d->step = (size_t)x / 8;
    } else {
        d->n = (size_t)x / 8;
        d->step = 1;
    }
    memset(d->buf, 0, d->n * sizeof *d->buf);
    d->passes_done = 0;
}

static int stride_run(struct hpcp_bench *b, double *seconds)
{
    struct mem_sweep_state *s = b->state;
    struct stride_data *d = s->data;
    *seconds = 0;
    if (s->passes == 0) {
        prepare_point(s, d);
        return 0;
    }
    if (s->passes < 0) { /* test hook: one word too many, per corrupt word asked */
        for (uint64_t i = 0; i < hpcp_fault_corrupt_words() && i * d->step < d->n; i++)
            d->buf[i * d->step] += 1;
        return 0;
    }
    double t0 = MPI_Wtime();
    for (long i = 0; i < s->passes; i++)
        d->pass(d->buf, d->n, d->step);
    *seconds = MPI_Wtime() - t0;
    d->passes_done += s->passes;
    return 0;
}

static int stride_verify(struct hpcp_bench *b, double *error)
{
    struct mem_sweep_state *s = b->state;
    struct stride_data *d = s->data;
    uint64_t wrong = 0, want = (uint64_t)d->passes_done;
    for (size_t i = 0; i < d->n; i++)
        wrong += d->buf[i] != (i % d->step == 0 ? want : 0);
    *error = (double)wrong;
    return 0;
}

static void stride_teardown(struct hpcp_bench *b)
{
    struct mem_sweep_state *s = b->state;
    struct stride_data *d = s->data;
    if (d)
        hpcp_region_free(&d->region);
    free(d);
    s->data = NULL;
}

const struct hpcp_kernel hpcp_mem_stride = {
    "mem",
    "stride",
    "rw",
    "read+write time per access vs stride or block size, -O3 or -O0 (paper 002 Figs 2-4)",
    hpcp_mem_driver,
    stride_setup,
    stride_run,
    stride_verify,
    stride_teardown,
    NULL,
    &mem_options_desc,
    &mem_stride_records};
