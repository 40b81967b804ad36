/* The internal FFT: panels of FFT_LANES transforms held as point vectors (fft_isa.h), each
 * transformed by hand-vectorised Stockham radix-8/4/2 passes (fft_codelets.c). A panel of
 * n >= 2^TWO_LEVEL_LOG2 points is done in two levels, n = na nb, so that every short FFT
 * runs in two L1-sized work buffers while the panel stays in L2: FFTs of nb points over
 * the na strided subsequences, twiddles w_n^(ja kb), FFTs of na points over contiguous
 * blocks. The six-step's twiddles are applied lane by lane when the panel is stored.
 * Inverse transforms swap real and imaginary parts on load and store. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft.h"

#define PV FFT_PV
#define TWO_PI 6.283185307179586476925286766559
#define TWO_LEVEL_LOG2 10
/* Stores bypass the cache (non-temporal) when the matrix written is at least this large:
 * it cannot stay in cache until it is read again. */
#define STREAM_BYTES ((size_t)32 << 20)

int fft_roots_init(struct fft_roots *r, uint64_t m, int sign)
{
    int bits = 0;
    while (((uint64_t)1 << bits) < m)
        bits++;
    r->m = m, r->shift = (bits + 1) / 2, r->sign = sign;
    uint64_t nlo = (uint64_t)1 << r->shift, nhi = (m >> r->shift) + 1;
    r->lo = malloc(2 * nlo * sizeof(double));
    r->hi = malloc(2 * nhi * sizeof(double));
    if (!r->lo || !r->hi)
        return -1;
    for (uint64_t t = 0; t < nlo; t++) {
        r->lo[2 * t] = cos(TWO_PI * (double)t / (double)m);
        r->lo[2 * t + 1] = sign * sin(TWO_PI * (double)t / (double)m);
    }
    for (uint64_t t = 0; t < nhi; t++) {
        double a = TWO_PI * (double)(t << r->shift) / (double)m;
        r->hi[2 * t] = cos(a), r->hi[2 * t + 1] = sign * sin(a);
    }
    return 0;
}

void fft_roots_free(struct fft_roots *r)
{
    free(r->lo), free(r->hi);
    r->lo = r->hi = NULL;
}

/* omega_m^t from the two tables (t taken mod m). */
static inline void root(const struct fft_roots *r, uint64_t t, double *c, double *s)
{
    t &= r->m - 1;
    const double *a = r->lo + 2 * (t & (((uint64_t)1 << r->shift) - 1));
    const double *b = r->hi + 2 * (t >> r->shift);
    *c = a[0] * b[0] - a[1] * b[1];
    *s = a[0] * b[1] + a[1] * b[0];
}

static void *alloc64(size_t doubles)
{
    return aligned_alloc(64, (doubles * sizeof(double) + 63) & ~(size_t)63);
}

/* Radices for 2^log2n: eights, with one four (or two) for the remainder. */
static int schedule(int log2n, int *radix)
{
    int k = 0, left = log2n;
    if (left % 3 == 1 && left >= 4)
        radix[k++] = 4, radix[k++] = 4, left -= 4;
    else if (left % 3 == 2)
        radix[k++] = 4, left -= 2;
    else if (left == 1)
        radix[k++] = 2, left -= 1;
    while (left >= 3)
        radix[k++] = 8, left -= 3;
    return k;
}

/* Forward roots of each pass: w_(ns r)^(q k) for k < ns, q = 1 .. r - 1. */
static int sub_plan(struct fft_sub *s, int log2L)
{
    s->L = 1 << log2L;
    s->npasses = schedule(log2L, s->radix);
    for (int i = 0, ns = 1; i < s->npasses; ns *= s->radix[i], i++) {
        int r = s->radix[i];
        s->tw[i] = alloc64(2 * (size_t)ns * (r - 1) + 2);
        if (!s->tw[i])
            return -1;
        for (int k = 0; k < ns; k++)
            for (int q = 1; q < r; q++) {
                double a = TWO_PI * (double)(q * k) / (double)(ns * r);
                s->tw[i][2 * (k * (r - 1) + q - 1)] = cos(a);
                s->tw[i][2 * (k * (r - 1) + q - 1) + 1] = -sin(a);
            }
    }
    return 0;
}

static void sub_free(struct fft_sub *s)
{
    for (int i = 0; i < s->npasses; i++)
        free(s->tw[i]);
    memset(s, 0, sizeof *s);
}

int fft_internal_plan(struct fft_rows *p)
{
    p->isa = fft_isa_current();
    p->na = 1 << (p->log2n / 2), p->nb = p->n / p->na;
    p->two_level = p->log2n >= TWO_LEVEL_LOG2;
    int bad, work;
    if (p->two_level) {
        bad = sub_plan(&p->sub_a, p->log2n / 2) || sub_plan(&p->sub_b, p->log2n - p->log2n / 2);
        p->w1 = alloc64(2 * (size_t)p->n);
        bad = bad || !p->w1;
        for (int ja = 0; !bad && ja < p->na; ja++)
            for (int kb = 0; kb < p->nb; kb++) {
                double a = TWO_PI * (double)((ja * kb) % p->n) / (double)p->n;
                p->w1[2 * (ja * p->nb + kb)] = cos(a), p->w1[2 * (ja * p->nb + kb) + 1] = -sin(a);
            }
        work = p->nb;
    } else {
        bad = sub_plan(&p->whole, p->log2n);
        work = p->n;
    }
    p->panel = alloc64((size_t)p->n * PV);
    p->work = alloc64(2 * (size_t)work * PV);
    p->ef = alloc64((size_t)(p->na + p->nb) * PV);
    return bad || !p->panel || !p->work || !p->ef ? -1 : 0;
}

void fft_internal_free(struct fft_rows *p)
{
    sub_free(&p->whole), sub_free(&p->sub_a), sub_free(&p->sub_b);
    free(p->w1), free(p->panel), free(p->work), free(p->ef);
    p->w1 = p->panel = p->work = p->ef = NULL;
}

/* The short FFT s from x (stride xs point vectors) to y (stride ys), its last pass times
 * wo; the passes between ping-pong in work. y may be x when there are two passes or more. */
static void sub_run(const struct fft_rows *p, const struct fft_sub *s, const double *x, size_t xs,
                    double *y, size_t ys, const double *wo)
{
    const double *src = x;
    size_t ss = xs;
    for (int i = 0, ns = 1; i < s->npasses; ns *= s->radix[i], i++) {
        int last = i == s->npasses - 1;
        double *dst = last ? y : p->work + (size_t)(i & 1) * s->L * PV;
        size_t ds = last ? ys : 1;
        p->isa->pass(src, ss, dst, ds, s->L, s->radix[i], ns, s->tw[i], last ? wo : NULL);
        src = dst, ss = ds;
    }
}

/* The panel's transform; returns where it is: output k = kb + nb ka at R[kb sa + ka sb]. */
static const double *panel_fft(const struct fft_rows *p, size_t *sa, size_t *sb)
{
    double *P = p->panel;
    if (!p->two_level) {
        *sa = 1, *sb = (size_t)p->nb;
        if (p->whole.npasses >= 2) {
            sub_run(p, &p->whole, P, 1, P, 1, NULL);
            return P;
        }
        double *R = p->work + (size_t)p->n * PV; /* one pass: not in place */
        sub_run(p, &p->whole, P, 1, R, 1, NULL);
        return R;
    }
    for (int ja = 0; ja < p->na; ja++) /* x[ja + na jb] over jb, back in place, twiddled */
        sub_run(p, &p->sub_b, P + (size_t)ja * PV, (size_t)p->na, P + (size_t)ja * PV,
                (size_t)p->na, p->w1 + 2 * (size_t)ja * p->nb);
    for (int kb = 0; kb < p->nb; kb++) /* then over ja: contiguous blocks */
        sub_run(p, &p->sub_a, P + (size_t)kb * p->na * PV, 1, P + (size_t)kb * p->na * PV, 1, NULL);
    *sa = (size_t)p->na, *sb = 1;
    return P;
}

/* The lane twiddles of a panel: w^((a0 + b)(c0 + k)) for lane b, point k = kb + nb ka,
 * as E[kb] = w^((a0 + b) kb) times F[ka] = w^((a0 + b)(c0 + nb ka)); forward roots (the
 * conjugates of an inverse table), as the panel is stored before its swap is undone. */
static void lane_twiddles(const struct fft_rows *p, const struct fft_roots *roots, uint64_t a0,
                          uint64_t c0)
{
    double *E = p->ef, *F = p->ef + (size_t)p->nb * PV, conj = roots->sign > 0 ? -1.0 : 1.0;
    for (int b = 0; b < FFT_LANES; b++) {
        uint64_t lane = a0 + (uint64_t)b;
        for (int kb = 0; kb < p->nb; kb++) {
            double *e = E + (size_t)kb * PV + b;
            root(roots, lane * (uint64_t)kb, &e[0], &e[8]);
            e[8] *= conj;
        }
        for (int ka = 0; ka < p->na; ka++) {
            double *f = F + (size_t)ka * PV + b;
            root(roots, lane * (c0 + (uint64_t)p->nb * (uint64_t)ka), &f[0], &f[8]);
            f[8] *= conj;
        }
    }
}

/* Partial panels (width < FFT_LANES lanes), element by element; missing lanes are 0. */
static void load_partial(const struct fft_rows *p, const double complex *a, size_t ld, int by_cols,
                         int width, int swap)
{
    for (int t = 0; t < p->n; t++)
        for (int b = 0; b < FFT_LANES; b++) {
            const double *v =
                (const double *)(by_cols ? a + (size_t)t * ld + b : a + (size_t)b * ld + t);
            double re = b < width ? v[0] : 0.0, im = b < width ? v[1] : 0.0;
            p->panel[(size_t)t * PV + b] = swap ? im : re;
            p->panel[(size_t)t * PV + 8 + b] = swap ? re : im;
        }
}

static void store_partial(const struct fft_rows *p, const double *R, size_t sa, size_t sb,
                          const double *E, double complex *a, size_t ld, int by_cols, int width,
                          int swap)
{
    const double *F = p->ef + (size_t)p->nb * PV;
    for (int ka = 0; ka < p->na; ka++)
        for (int kb = 0; kb < p->nb; kb++) {
            const double *v = R + ((size_t)kb * sa + (size_t)ka * sb) * PV;
            size_t k = (size_t)kb + (size_t)p->nb * ka;
            for (int b = 0; b < width; b++) {
                double x = v[b], y = v[8 + b];
                if (E) {
                    const double *e = E + (size_t)kb * PV + b, *f = F + (size_t)ka * PV + b;
                    double c = e[0] * f[0] - e[8] * f[8], s = e[0] * f[8] + e[8] * f[0];
                    double u = x * c - y * s;
                    y = x * s + y * c, x = u;
                }
                double *d = (double *)(by_cols ? a + k * ld + b : a + (size_t)b * ld + k);
                d[0] = swap ? y : x, d[1] = swap ? x : y;
            }
        }
}

static int aligned64(const void *q)
{
    return ((uintptr_t)q & 63) == 0;
}

void fft_internal_run(const struct fft_rows *p, const double complex *src, size_t lds, int src_cols,
                      double complex *dst, size_t ldd, int dst_cols, int count,
                      const struct fft_twiddle *tw)
{
    const struct fft_isa *isa = p->isa;
    int swap = p->sign > 0;
    size_t bytes = (size_t)count * (size_t)p->n * sizeof *dst;
    int nt = bytes >= STREAM_BYTES && aligned64(dst) && ldd % 4 == 0;
    for (int first = 0; first < count; first += FFT_LANES) {
        int width = count - first < FFT_LANES ? count - first : FFT_LANES;
        const double complex *a = src_cols ? src + first : src + (size_t)first * lds;
        double complex *d = dst_cols ? dst + first : dst + (size_t)first * ldd;
        if (width < FFT_LANES)
            load_partial(p, a, lds, src_cols, width, swap);
        else if (src_cols)
            isa->load_cols((const double *)a, lds, p->n, p->panel, swap);
        else
            isa->load_rows((const double *)a, lds, p->n, p->panel, swap);
        size_t sa, sb;
        const double *R = panel_fft(p, &sa, &sb);
        const double *E = NULL;
        if (tw) {
            uint64_t a0 = (dst_cols ? tw->col0 : tw->row0) + (uint64_t)first;
            lane_twiddles(p, tw->roots, a0, dst_cols ? tw->row0 : tw->col0);
            E = p->ef;
        }
        if (width < FFT_LANES)
            store_partial(p, R, sa, sb, E, d, ldd, dst_cols, width, swap);
        else if (dst_cols)
            isa->store_cols(R, sa, sb, p->na, p->nb, E, p->ef + (size_t)p->nb * PV, (double *)d,
                            ldd, swap, nt);
        else
            isa->store_rows(R, sa, sb, p->na, p->nb, E, p->ef + (size_t)p->nb * PV, (double *)d,
                            ldd, swap);
    }
}

/* FFTW has no twiddle step: a separate pass over the rows. */
void fft_apply_twiddles(const struct fft_rows *p, double complex *a, const struct fft_twiddle *tw)
{
    for (int r = 0; r < p->rows; r++) {
        double *row = (double *)(a + (size_t)r * p->ld);
        uint64_t rg = tw->row0 + (uint64_t)r;
        for (int t = 0; t < p->n; t++) {
            double c, s, x = row[2 * t], y = row[2 * t + 1];
            root(tw->roots, rg * (tw->col0 + (uint64_t)t), &c, &s);
            row[2 * t] = x * c - y * s;
            row[2 * t + 1] = x * s + y * c;
        }
    }
}
