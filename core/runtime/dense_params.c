/* Options of dgemm, hpl, ptrans and fft, their sizes from memory as HPCC sizes them, and
 * the checks that refuse bad input with one line before anything large is allocated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/dense.h"
#include "hpcprobe/util.h"

#define OPT(name, kind, lo, hi, choices, help, dflt) \
    {name, kind, lo, hi, 0, 0, 0, choices, 0, help, dflt}

static const struct hpcp_optspec dense_spec[DENSE_OPT_COUNT + 1] = {
    [DENSE_OPT_N] = OPT("--n", HPCP_OPT_STRING, 0, 0, NULL,
                        "matrix order, a whole number >= 1 (default sized from memory as HPCC "
                        "sizes it)",
                        NULL),
    [DENSE_OPT_NB] = OPT("--nb", HPCP_OPT_STRING, 0, 0, NULL,
                         "block size, 1 ... min(N, 4096) (default 192, at most N)", NULL),
    [DENSE_OPT_GRID] = OPT("--grid", HPCP_OPT_STRING, 0, 0, NULL,
                           "process grid PxQ, P*Q = ranks, ranks mapped row-major (default as "
                           "square as the ranks allow, P <= Q)",
                           NULL),
    [DENSE_OPT_LOOKAHEAD] = OPT("--lookahead", HPCP_OPT_INT, 0, 1, NULL, "look-ahead depth", "1"),
    [DENSE_OPT_LOG2] = OPT("--log2", HPCP_OPT_INT, 1, 40, NULL,
                           "m = 2^K points (default sized from memory)", NULL),
    [DENSE_OPT_FFT] = OPT("--fft", HPCP_OPT_CHOICE, 0, 0, "fftw|internal",
                          "local transforms through FFTW3 or the internal Stockham FFT (default "
                          "fftw when built with it)",
                          NULL),
    [DENSE_OPT_MEMORY_FRACTION] = {"--memory-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL, 0,
                                   "size from F of the available memory", "0.25"},
    [DENSE_OPT_THREADS] =
        OPT("--threads", HPCP_OPT_INT, 1, 1024, NULL, "BLAS threads per rank", "1"),
    [DENSE_OPT_SIZE_RULE] = OPT("--size-rule", HPCP_OPT_CHOICE, 0, 0, "memory|caches",
                                "points without --log2/--m: as HPCC, from --memory-fraction of "
                                "the memory; or a power of two >= 4x each rank's share of the "
                                "caches (docs/sizing.md)",
                                "memory"),
    /* --m: fft points, a power of two (an alternative to --log2) */
    [DENSE_OPT_COUNT] = OPT("--m", HPCP_OPT_STRING, 0, 0, NULL,
                            "M points, a power of two (an alternative to --log2)", NULL),
};
#define DENSE_OPT_M DENSE_OPT_COUNT
#define NSPEC (DENSE_OPT_COUNT + 1)

static const char *const dense_help[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_SEED] = "seed of the generated matrices or vectors",
};
static const struct hpcp_cli dense_cli = {
    dense_spec,
    NSPEC,
    HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_SEED) |
        HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_OUT) |
        HPCP_TAKES(HPCP_COMMON_QUIET) | HPCP_TAKES(HPCP_COMMON_MEMORY_CAP),
    0,
    1,
    0,
    42,
    dense_help};

/* Which options each family reads beyond the common ones; the rest are refused by name. */
static const int dgemm_opts[] = {DENSE_OPT_N, DENSE_OPT_THREADS, -1};
static const int hpl_opts[] = {DENSE_OPT_N,         DENSE_OPT_NB,      DENSE_OPT_GRID,
                               DENSE_OPT_LOOKAHEAD, DENSE_OPT_THREADS, -1};
static const int ptrans_opts[] = {DENSE_OPT_N, DENSE_OPT_NB, DENSE_OPT_GRID, -1};
static const int fft_opts[] = {DENSE_OPT_LOG2, DENSE_OPT_M, DENSE_OPT_FFT, DENSE_OPT_SIZE_RULE, -1};
static const int common_opts[] = {DENSE_OPT_MEMORY_FRACTION, -1};

int dense_have_fftw(void)
{
#ifdef HPCP_HAVE_FFTW
    return 1;
#else
    return 0;
#endif
}

static int listed(const int *list, int opt)
{
    for (; *list >= 0; list++)
        if (*list == opt)
            return 1;
    return 0;
}

static const int *family_opts(const char *family)
{
    return !strcmp(family, "dgemm")    ? dgemm_opts
           : !strcmp(family, "hpl")    ? hpl_opts
           : !strcmp(family, "ptrans") ? ptrans_opts
                                       : fft_opts;
}

/* describe: a kernel takes its family's list and the common ones. */
static int dense_takes(const struct hpcp_kernel *k, int option)
{
    return option >= NSPEC || listed(family_opts(k->family), option) || listed(common_opts, option);
}

const struct hpcp_options_desc dense_options_desc = {&dense_cli, dense_takes};

static const struct hpcp_metric_desc flop_metrics[] = {
    {"flop_rate", "flop/s", "floating-point operations per second, per repetition"},
    {"time", "s", "seconds per repetition (hpl)"},
    {NULL, NULL, NULL}};
static const struct hpcp_metric_desc ptrans_metrics[] = {
    {"bandwidth", "B/s", "bytes of the matrix transposed and added per second"},
    {"time", "s", "seconds per repetition"},
    {NULL, NULL, NULL}};
const struct hpcp_records_desc dense_flop_records = {flop_metrics, "flop_rate"};
const struct hpcp_records_desc dense_ptrans_records = {ptrans_metrics, "bandwidth"};

/* A whole number >= 1 in decimal digits (no sign, no suffix), else -1. */
static long long parse_count(const char *text)
{
    char *end;
    if (!text || text[0] < '0' || text[0] > '9')
        return -1;
    long long v = strtoll(text, &end, 10);
    return *end || v < 1 ? -1 : v;
}

static int parse_grid(struct dense_params *p, const char *text, int ranks, char *err, size_t errlen)
{
    char *x = text ? strchr(text, 'x') : NULL;
    long long a = -1, b = -1;
    if (x) {
        char left[32];
        size_t len = (size_t)(x - text);
        if (len < sizeof left) {
            memcpy(left, text, len);
            left[len] = '\0';
            a = parse_count(left);
            b = parse_count(x + 1);
        }
    }
    if (a < 1 || b < 1) {
        snprintf(err, errlen,
                 "--grid '%s' is not a process grid (allowed: PxQ with P*Q = %d "
                 "ranks, e.g. 1x%d)",
                 text, ranks, ranks);
        return -1;
    }
    if (a * b != ranks) {
        snprintf(err, errlen,
                 "--grid %s has %lld processes but %d rank%s launched (allowed: "
                 "PxQ with P*Q = %d, e.g. 1x%d)",
                 text, a * b, ranks, ranks == 1 ? " was" : "s were", ranks, ranks);
        return -1;
    }
    p->p = (int)a, p->q = (int)b;
    return 0;
}

/* HPL's advice: a grid as square as the ranks allow, P <= Q. */
static void default_grid(struct dense_params *p, int ranks)
{
    p->p = 1;
    for (int d = 1; (long)d * d <= ranks; d++)
        if (ranks % d == 0)
            p->p = d;
    p->q = ranks / p->p;
}

static int floor_log2(double x)
{
    int k = 0;
    while (k < 62 && ldexp(1.0, k + 1) <= x)
        k++;
    return k;
}

/* Sizes when no --n/--log2 was given: the sizing layer's rule (HPCC's from
 * the memory fraction, or fft's from the caches), the same on every rank. */
static void size_by_rule(struct dense_params *p, const struct hpcp_sysinfo *si)
{
    struct hpcp_sized s;
    int fft = !strcmp(p->family, "fft"), mpi = !strcmp(p->variant, "mpi");
    int copies = !strcmp(p->variant, "single") ? 1 : si->ranks_per_node_max;
    if (fft && p->size_by_caches)
        hpcp_size_fft_caches(&p->node, copies, mpi, p->run.memory_cap, &s);
    else
        hpcp_size_dense_memory(&p->node, p->family, p->variant, p->fraction, p->nb, &s);
    long long value = (long long)s.value;
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (fft)
        p->log2 = (int)value;
    else
        p->n = value;
    hpcp_copy_truncated(p->size_rule, sizeof p->size_rule, s.rule);
}

/* Bytes the largest rank allocates. */
static double bytes_needed(const struct dense_params *p, int ranks)
{
    const char *f = p->family;
    double n = (double)p->n;
    if (!strcmp(f, "dgemm"))
        return 4.0 * 8.0 * n * n; /* A, B, C and C before the last product (verification) */
    if (!strcmp(f, "hpl")) {
        double rows = ceil(n / p->nb / p->p) * p->nb, cols = ceil((n + 1) / p->nb / p->q) * p->nb;
        return 8.0 * rows * (cols + 3.0 * p->nb);
    }
    if (!strcmp(f, "ptrans")) {
        double rows = ceil(n / p->nb / p->p) * p->nb, cols = ceil(n / p->nb / p->q) * p->nb;
        return 4.0 * 8.0 * rows * cols; /* A, C, send and receive buffers */
    }
    double m = ldexp(1.0, p->log2);
    return !strcmp(p->variant, "mpi") ? 16.0 * 4.0 * ceil(m / ranks) + 64.0 * sqrt(m) * ranks
                                      : 16.0 * 3.0 * m;
}

static int check_memory(const struct dense_params *p, const struct hpcp_sysinfo *si, char *err,
                        size_t errlen)
{
    int on_node = !strcmp(p->variant, "single") ? 1 : si->ranks_per_node_max;
    char what[96];
    snprintf(what, sizeof what, "%s %s %s", p->family, p->variant,
             p->size_from_option ? "with the size given" : "at its default size");
    return hpcp_cap_check(&p->node, p->run.memory_cap, bytes_needed(p, si->ranks), on_node, what,
                          err, errlen);
}

static int parse_sizes(struct dense_params *p, const struct hpcp_optval *v, int ranks, char *err,
                       size_t errlen)
{
    if (v[DENSE_OPT_N].set && (p->n = parse_count(v[DENSE_OPT_N].s)) < 1) {
        snprintf(err, errlen, "--n '%s' is not a matrix order (allowed: a whole number >= 1)",
                 v[DENSE_OPT_N].s);
        return -1;
    }
    p->nb = DENSE_DEFAULT_NB;
    if (v[DENSE_OPT_NB].set) {
        long long nb = parse_count(v[DENSE_OPT_NB].s);
        if (nb < 1 || nb > DENSE_MAX_NB || (p->n > 0 && nb > p->n)) {
            snprintf(err, errlen,
                     "--nb '%s' is not allowed (a block size from 1 to %lld, at "
                     "most --n)",
                     v[DENSE_OPT_NB].s,
                     p->n > 0 && p->n < DENSE_MAX_NB ? p->n : (long long)DENSE_MAX_NB);
            return -1;
        }
        p->nb = (int)nb;
    } else if (p->n > 0 && p->nb > p->n) {
        p->nb = (int)p->n;
    }
    if (v[DENSE_OPT_GRID].set)
        return parse_grid(p, v[DENSE_OPT_GRID].s, ranks, err, errlen);
    default_grid(p, ranks);
    return 0;
}

static int parse_fft_size(struct dense_params *p, const struct hpcp_optval *v, int ranks, char *err,
                          size_t errlen)
{
    p->log2 = v[DENSE_OPT_LOG2].set ? (int)v[DENSE_OPT_LOG2].i : 0;
    if (v[DENSE_OPT_M].set) {
        long long m = parse_count(v[DENSE_OPT_M].s);
        if (m < 2 || (m & (m - 1))) {
            snprintf(err, errlen,
                     "--m '%s' is not a power of two (allowed: 2^k points, k >= 1, "
                     "e.g. 1024; or --log2 K)",
                     v[DENSE_OPT_M].s);
            return -1;
        }
        p->log2 = floor_log2((double)m);
    }
    int mpi = !strcmp(p->variant, "mpi");
    if (p->log2 && mpi && p->log2 < 2) {
        snprintf(err, errlen, "fft mpi needs at least 4 points (allowed: --log2 2..40)");
        return -1;
    }
    p->use_fftw = dense_have_fftw();
    if (v[DENSE_OPT_FFT].set)
        p->use_fftw = !strcmp(v[DENSE_OPT_FFT].s, "fftw");
    if (p->use_fftw && !dense_have_fftw()) {
        snprintf(err, errlen,
                 "--fft fftw: this hpcprobe-bench was built without FFTW3 (allowed: "
                 "--fft internal; rebuild with libfftw3-dev installed)");
        return -1;
    }
    (void)ranks;
    return 0;
}

static int check_applies(const struct hpcp_optval *v, const char *family, char *err, size_t errlen)
{
    const int *own = family_opts(family);
    for (int o = 0; o < NSPEC; o++)
        if (v[o].set && !listed(own, o) && !listed(common_opts, o)) {
            snprintf(err, errlen, "%s does not apply to %s", dense_spec[o].name, family);
            return -1;
        }
    return 0;
}

static int parse_all(struct dense_params *p, int argc, char **argv, const struct hpcp_sysinfo *si,
                     char *err, size_t errlen)
{
    struct hpcp_optval v[NSPEC];
    char context[32];
    snprintf(context, sizeof context, "%s %s", p->family, p->variant);
    if (hpcp_cli_parse(&dense_cli, argc, argv, context, v, &p->run, err, errlen) ||
        check_applies(v, p->family, err, errlen))
        return -1;
    p->fraction =
        v[DENSE_OPT_MEMORY_FRACTION].set ? v[DENSE_OPT_MEMORY_FRACTION].d : DENSE_DEFAULT_FRACTION;
    p->threads = v[DENSE_OPT_THREADS].set ? (int)v[DENSE_OPT_THREADS].i : 1;
    p->lookahead = v[DENSE_OPT_LOOKAHEAD].set ? (int)v[DENSE_OPT_LOOKAHEAD].i : 1;
    p->proc_bytes = p->fraction * (double)si->memory_available_min_node /
                    (si->ranks_per_node_max > 0 ? si->ranks_per_node_max : 1);
    int bad = !strcmp(p->family, "fft") ? parse_fft_size(p, v, si->ranks, err, errlen)
                                        : parse_sizes(p, v, si->ranks, err, errlen);
    if (bad)
        return -1;
    p->size_from_option = p->n > 0 || p->log2 > 0;
    p->size_by_caches = v[DENSE_OPT_SIZE_RULE].set && !strcmp(v[DENSE_OPT_SIZE_RULE].s, "caches");
    hpcp_node_of(&p->node, si);
    snprintf(p->size_rule, sizeof p->size_rule, "option");
    if (p->size_from_option && v[DENSE_OPT_SIZE_RULE].set) {
        snprintf(err, errlen, "give --log2/--m or --size-rule, not both");
        return -1;
    }
    if (!p->size_from_option)
        size_by_rule(p, si);
    if (p->nb > p->n && strcmp(p->family, "fft") && strcmp(p->family, "dgemm"))
        p->nb = (int)p->n;
    return check_memory(p, si, err, errlen);
}

int dense_params_prepare(struct dense_params *p, const char *family, const char *variant, int argc,
                         char **argv, const struct hpcp_sysinfo *si)
{
    char err[512];
    memset(p, 0, sizeof *p);
    p->family = family, p->variant = variant;
    int bad = parse_all(p, argc, argv, si, err, sizeof err) ||
              hpcp_check_writable(MPI_COMM_WORLD, p->run.out, "--out", err, sizeof err);
    if (bad)
        hpcp_error(MPI_COMM_WORLD, "%s", err);
    return bad ? HPCP_EXIT_USAGE : 0;
}
