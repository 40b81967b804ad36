/* What the dense families of HPCC (dgemm, hpl, ptrans) share with fft: their options,
 * sizing from memory as HPCC sizes them, the element generator, the record's common
 * parameters and huge-page allocation. Implemented in runtime/dense_params.c and
 * runtime/dense.c. docs/kernels/hpl.md, dgemm.md, ptrans.md, fft.md. */
#ifndef HPCPROBE_DENSE_H
#define HPCPROBE_DENSE_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/kernel.h"
#include "hpcprobe/options.h"
#include "hpcprobe/record.h"
#include "hpcprobe/rng.h"
#include "hpcprobe/sizing.h"

/* The dense families' own options; --repeat, --seed, --no-verify, --out and
 * --quiet are the harness's common ones. */
enum {
    DENSE_OPT_N,
    DENSE_OPT_NB,
    DENSE_OPT_GRID,
    DENSE_OPT_LOOKAHEAD,
    DENSE_OPT_LOG2,
    DENSE_OPT_FFT,
    DENSE_OPT_MEMORY_FRACTION,
    DENSE_OPT_THREADS,
    DENSE_OPT_SIZE_RULE,
    DENSE_OPT_COUNT
};

#define DENSE_DEFAULT_FRACTION 0.25
#define DENSE_DEFAULT_NB 192
#define DENSE_MAX_NB 4096

struct dense_params {
    const char *family, *variant;
    long long n;           /* matrix order (dgemm, hpl, ptrans) */
    int nb, p, q;          /* block size, process grid P x Q */
    int lookahead;         /* hpl: look-ahead depth 0 or 1 */
    int log2;              /* fft: m = 2^log2 points */
    int use_fftw;          /* fft: 1 FFTW, 0 the internal Stockham FFT */
    int size_from_option;  /* --n or --log2 given (else sized from memory) */
    double fraction;       /* --memory-fraction */
    int threads;
    struct hpcp_common run; /* --repeat, --seed, --no-verify, --out, --quiet */
    double proc_bytes;     /* what one rank may use: HPCC's HPLMaxProcMem */
    int size_by_caches;    /* fft --size-rule caches */
    char size_rule[256];   /* "option", or the sizing layer's rule in words */
    struct hpcp_node node; /* what the sizing layer sized for */
};

/* Parse, size and check the options of `family variant`; prints the one line and returns
 * HPCP_EXIT_USAGE, or 0. Collective. */
int dense_params_prepare(struct dense_params *p, const char *family, const char *variant, int argc,
                         char **argv, const struct hpcp_sysinfo *si);

/* 1 when this build has FFTW. */
int dense_have_fftw(void);

/* A reproducible element in [-0.5, 0.5): depends only on (seed, i, j), so every grid and
 * rank count generates the same matrix and a verifier can regenerate any element. */
static inline double dense_element(uint64_t seed, uint64_t i, uint64_t j)
{
    uint64_t z = hpcp_mix64(seed + HPCP_GOLDEN_GAMMA * (i * 0x100000001b3ULL + j + 1));
    return (double)(z >> 11) * 0x1.0p-53 - 0.5;
}

/* The parameters every dense record carries: repeat, threads, seed, memory sizing. */
void dense_record_common(struct hpcp_record *r, const struct dense_params *p);

/* `bytes` aligned to 2 MiB with transparent huge pages asked for (MADV_HUGEPAGE), so that
 * strided walks over large matrices and vectors do not miss the TLB at every row; NULL
 * when out of memory. Freed with free(). */
void *dense_alloc(size_t bytes);

/* describe (runtime/dense_params.c): the options of dgemm, hpl, ptrans and fft, and
 * what they record. */
extern const struct hpcp_options_desc dense_options_desc;
extern const struct hpcp_records_desc dense_flop_records, dense_ptrans_records;

#endif
