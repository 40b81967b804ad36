/* Batches of row FFTs through FFTW3 (when built with it) or the internal Stockham FFT. */
#include <stdlib.h>
#include <string.h>

#include "fft.h"
#ifdef HPCP_HAVE_FFTW
#include <fftw3.h>
#endif

int fft_internal_plan(struct fft_rows *p);
void fft_internal_free(struct fft_rows *p);
void fft_apply_twiddles(const struct fft_rows *p, double complex *a, const struct fft_twiddle *tw);

int fft_rows_plan(struct fft_rows *p, int use_fftw, int n, int rows, int ld, int sign,
                  double complex *scratch)
{
    memset(p, 0, sizeof *p);
    p->n = n, p->rows = rows, p->ld = ld, p->sign = sign, p->use_fftw = use_fftw;
    while ((1 << p->log2n) < n)
        p->log2n++;
    if (n <= 1 || rows <= 0)
        return 0; /* nothing to transform: length 1 is the identity */
#ifdef HPCP_HAVE_FFTW
    if (use_fftw) {
        p->fftw_plan = fftw_plan_many_dft(1, &p->n, rows, (fftw_complex *)scratch, NULL, 1, ld,
                                          (fftw_complex *)scratch, NULL, 1, ld,
                                          sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_MEASURE);
        return p->fftw_plan ? 0 : -1;
    }
#else
    (void)scratch;
    if (use_fftw)
        return -1;
#endif
    return fft_internal_plan(p);
}

void fft_rows_run(const struct fft_rows *p, double complex *a, const struct fft_twiddle *tw)
{
    if (p->n > 1 && p->rows > 0) {
#ifdef HPCP_HAVE_FFTW
        if (p->use_fftw) {
            fftw_execute_dft((fftw_plan)p->fftw_plan, (fftw_complex *)a, (fftw_complex *)a);
            if (tw)
                fft_apply_twiddles(p, a, tw);
            return;
        }
#endif
        fft_internal_run(p, a, (size_t)p->ld, 0, a, (size_t)p->ld, 0, p->rows, tw);
        return;
    }
    if (tw && p->rows > 0)
        fft_apply_twiddles(p, a, tw);
}

void fft_rows_free(struct fft_rows *p)
{
#ifdef HPCP_HAVE_FFTW
    if (p->fftw_plan)
        fftw_destroy_plan((fftw_plan)p->fftw_plan);
#endif
    fft_internal_free(p);
    memset(p, 0, sizeof *p);
}

static const struct fft_isa *preferred;

const struct fft_isa *fft_isa_select(const char *name)
{
    static const struct fft_isa *const all[] = {
#ifdef HPCP_FFT_AVX512
        &fft_isa_avx512,
#endif
#ifdef HPCP_FFT_AVX2
        &fft_isa_avx2,
#endif
        &fft_isa_portable};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        int runs = 1;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        if (!strcmp(all[i]->name, "avx512"))
            runs = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
        else if (!strcmp(all[i]->name, "avx2"))
            runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
        if (runs && (!name || !strcmp(name, all[i]->name)))
            return all[i];
    }
    return NULL;
}

void fft_isa_prefer(const struct fft_isa *isa)
{
    preferred = isa;
}

const struct fft_isa *fft_isa_current(void)
{
    return preferred ? preferred : fft_isa_select(NULL);
}
