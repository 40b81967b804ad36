/* The internal FFT: Stockham autosort radix-8/4/2 passes over panels of FFT_LANES rows
 * in split-complex form, so every butterfly is a loop over the lanes that the compiler
 * vectorises. Used for batches of rows (the six-step) and through them for whole vectors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fft.h"

#define L FFT_LANES
#define TWO_PI 6.283185307179586476925286766559

int fft_roots_init(struct fft_roots *r, uint64_t m, int sign)
{
    int bits = 0;
    while (((uint64_t)1 << bits) < m)
        bits++;
    r->m = m, r->shift = (bits + 1) / 2;
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

/* Radices for n = 2^log2n: eights, with one four (or two) for the remainder. */
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

int fft_internal_plan(struct fft_rows *p)
{
    p->npasses = schedule(p->log2n, p->radix);
    for (int s = 0, ns = 1; s < p->npasses; ns *= p->radix[s], s++) {
        int r = p->radix[s];
        p->tw[s] = malloc(2 * (size_t)ns * (r - 1) * sizeof(double) + 16);
        if (!p->tw[s])
            return -1;
        for (int k = 0; k < ns; k++)
            for (int q = 1; q < r; q++) {
                double a = TWO_PI * (double)(q * k) / (double)(ns * r);
                p->tw[s][2 * (k * (r - 1) + q - 1)] = cos(a);
                p->tw[s][2 * (k * (r - 1) + q - 1) + 1] = p->sign * sin(a);
            }
    }
    size_t lanes = (size_t)p->n * L;
    p->panel = aligned_alloc(64, (4 * lanes * sizeof(double) + 63) & ~(size_t)63);
    return p->panel ? 0 : -1;
}

/* v[q] *= w_q for q = 1..r-1 (the pass's twiddles of index k), lane-wise. */
static inline void twiddle_in(double (*vr)[L], double (*vi)[L], const double *w, int r)
{
    for (int q = 1; q < r; q++) {
        double c = w[2 * (q - 1)], s = w[2 * (q - 1) + 1];
        for (int b = 0; b < L; b++) {
            double x = vr[q][b], y = vi[q][b];
            vr[q][b] = x * c - y * s;
            vi[q][b] = x * s + y * c;
        }
    }
}

/* Length-4 DFT of v[o], v[o+d], v[o+2d], v[o+3d] in place; sg the transform's sign. */
static inline void dft4(double (*vr)[L], double (*vi)[L], int o, int d, double sg)
{
    for (int b = 0; b < L; b++) {
        double t0r = vr[o][b] + vr[o + 2 * d][b], t0i = vi[o][b] + vi[o + 2 * d][b];
        double t1r = vr[o][b] - vr[o + 2 * d][b], t1i = vi[o][b] - vi[o + 2 * d][b];
        double t2r = vr[o + d][b] + vr[o + 3 * d][b], t2i = vi[o + d][b] + vi[o + 3 * d][b];
        double ur = vr[o + d][b] - vr[o + 3 * d][b], ui = vi[o + d][b] - vi[o + 3 * d][b];
        double t3r = -sg * ui, t3i = sg * ur; /* (a1 - a3) times sign * i */
        vr[o][b] = t0r + t2r, vi[o][b] = t0i + t2i;
        vr[o + 2 * d][b] = t0r - t2r, vi[o + 2 * d][b] = t0i - t2i;
        vr[o + d][b] = t1r + t3r, vi[o + d][b] = t1i + t3i;
        vr[o + 3 * d][b] = t1r - t3r, vi[o + 3 * d][b] = t1i - t3i;
    }
}

/* Length-8 DFT of v[0..8) in place: two length-4 DFTs of the even and odd terms, then
 * y_k = E_k + w^k O_k and y_{k+4} = E_k - w^k O_k. Output order y0..y7. */
static inline void dft8(double (*vr)[L], double (*vi)[L], double sg)
{
    const double h = 0.70710678118654752440084436210485;
    dft4(vr, vi, 0, 2, sg); /* evens: v0, v2, v4, v6 -> E0 at 0, E1 at 2, E2 at 4, E3 at 6 */
    dft4(vr, vi, 1, 2, sg); /* odds -> O0 at 1, O1 at 3, O2 at 5, O3 at 7 */
    double yr[8][L], yi[8][L];
    for (int b = 0; b < L; b++) {
        double o1r = h * (vr[3][b] - sg * vi[3][b]), o1i = h * (vi[3][b] + sg * vr[3][b]);
        double o2r = -sg * vi[5][b], o2i = sg * vr[5][b];
        double o3r = h * (-vr[7][b] - sg * vi[7][b]), o3i = h * (-vi[7][b] + sg * vr[7][b]);
        yr[0][b] = vr[0][b] + vr[1][b], yi[0][b] = vi[0][b] + vi[1][b];
        yr[4][b] = vr[0][b] - vr[1][b], yi[4][b] = vi[0][b] - vi[1][b];
        yr[1][b] = vr[2][b] + o1r, yi[1][b] = vi[2][b] + o1i;
        yr[5][b] = vr[2][b] - o1r, yi[5][b] = vi[2][b] - o1i;
        yr[2][b] = vr[4][b] + o2r, yi[2][b] = vi[4][b] + o2i;
        yr[6][b] = vr[4][b] - o2r, yi[6][b] = vi[4][b] - o2i;
        yr[3][b] = vr[6][b] + o3r, yi[3][b] = vi[6][b] + o3i;
        yr[7][b] = vr[6][b] - o3r, yi[7][b] = vi[6][b] - o3i;
    }
    memcpy(vr, yr, sizeof yr);
    memcpy(vi, yi, sizeof yi);
}

/* One pass: for j in [0, n/r), k = j mod ns: gather x[j + q n/r] times w^(qk), DFT of
 * length r, scatter to y[(j / ns) ns r + k + q ns]. */
static void pass(const double *xr, const double *xi, double *yr, double *yi, int n, int r,
                 int ns, const double *tw, double sg)
{
    int stride = n / r;
    double vr[8][L], vi[8][L];
    for (int j = 0; j < stride; j++) {
        int k = j % ns, out = (j / ns) * ns * r + k;
        for (int q = 0; q < r; q++) {
            memcpy(vr[q], xr + (size_t)(j + q * stride) * L, sizeof vr[q]);
            memcpy(vi[q], xi + (size_t)(j + q * stride) * L, sizeof vi[q]);
        }
        if (k)
            twiddle_in(vr, vi, tw + 2 * (size_t)k * (r - 1), r);
        if (r == 8) {
            dft8(vr, vi, sg);
        } else if (r == 4) {
            dft4(vr, vi, 0, 1, sg);
        } else {
            for (int b = 0; b < L; b++) {
                double ar = vr[0][b], ai = vi[0][b];
                vr[0][b] = ar + vr[1][b], vi[0][b] = ai + vi[1][b];
                vr[1][b] = ar - vr[1][b], vi[1][b] = ai - vi[1][b];
            }
        }
        for (int q = 0; q < r; q++) {
            memcpy(yr + (size_t)(out + q * ns) * L, vr[q], sizeof vr[q]);
            memcpy(yi + (size_t)(out + q * ns) * L, vi[q], sizeof vi[q]);
        }
    }
}

int fft_stockham(const struct fft_rows *p, double *re, double *im, double *wre, double *wim)
{
    int swapped = 0;
    for (int s = 0, ns = 1; s < p->npasses; ns *= p->radix[s], s++) {
        if (swapped)
            pass(wre, wim, re, im, p->n, p->radix[s], ns, p->tw[s], p->sign);
        else
            pass(re, im, wre, wim, p->n, p->radix[s], ns, p->tw[s], p->sign);
        swapped = !swapped;
    }
    return swapped;
}

static inline void root(const struct fft_roots *r, uint64_t t, double *c, double *s)
{
    t &= r->m - 1;
    const double *a = r->lo + 2 * (t & (((uint64_t)1 << r->shift) - 1));
    const double *b = r->hi + 2 * (t >> r->shift);
    *c = a[0] * b[0] - a[1] * b[1];
    *s = a[0] * b[1] + a[1] * b[0];
}

/* Lanes [first, first + width) of the panel from a: rows of a (by_cols 0: lane b is row
 * first + b, its points along the row) or columns (1: lane b is column first + b). */
static void panel_load(const struct fft_rows *p, const double complex *a, size_t ld,
                       int by_cols, int first, int width, double *re, double *im)
{
    for (int b = 0; b < L; b++)
        for (int t = 0; t < p->n; t++) {
            const double *v = (const double *)(by_cols ? a + (size_t)t * ld + first + b
                                                       : a + (size_t)(first + b) * ld + t);
            re[(size_t)t * L + b] = b < width ? v[0] : 0.0;
            im[(size_t)t * L + b] = b < width ? v[1] : 0.0;
        }
}

/* The panel back into a, rows or columns as panel_load, times the twiddles when tw is
 * given: the point at row r, column c of a gets omega^((row0 + r)(col0 + c)). */
static void panel_store(const struct fft_rows *p, double complex *a, size_t ld, int by_cols,
                        int first, int width, const struct fft_twiddle *tw, const double *re,
                        const double *im)
{
    for (int t = 0; t < p->n; t++)
        for (int b = 0; b < width; b++) {
            size_t row = by_cols ? (size_t)t : (size_t)(first + b);
            size_t col = by_cols ? (size_t)(first + b) : (size_t)t;
            double x = re[(size_t)t * L + b], y = im[(size_t)t * L + b];
            if (tw) {
                double c, s;
                root(tw->roots, (tw->row0 + row) * (tw->col0 + col), &c, &s);
                double u = x * c - y * s;
                y = x * s + y * c, x = u;
            }
            double *v = (double *)(a + row * ld + col);
            v[0] = x, v[1] = y;
        }
}

void fft_internal_run(const struct fft_rows *p, const double complex *src, size_t lds,
                      int src_cols, double complex *dst, size_t ldd, int dst_cols, int count,
                      const struct fft_twiddle *tw)
{
    size_t lanes = (size_t)p->n * L;
    for (int first = 0; first < count; first += L) {
        int width = count - first < L ? count - first : L;
        double *re = p->panel, *im = re + lanes, *wre = im + lanes, *wim = wre + lanes;
        panel_load(p, src, lds, src_cols, first, width, re, im);
        if (fft_stockham(p, re, im, wre, wim))
            re = wre, im = wim;
        panel_store(p, dst, ldd, dst_cols, first, width, tw, re, im);
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
