/* peak bandwidth single|star: load, copy and triad at each level of the
 * memory hierarchy (peak_bw.c: phases, peak_bw_loops.c: the ISA kernels,
 * peak_bw_params.c: options and sizes, peak_bw_driver.c: points and record).
 * docs/kernels/peak.md#peak-bandwidth. */
#ifndef HPCPROBE_PEAK_BW_H
#define HPCPROBE_PEAK_BW_H
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/memory.h"
#include "hpcprobe/sizing.h"

enum { PEAK_BW_LOAD, PEAK_BW_COPY, PEAK_BW_TRIAD, PEAK_BW_KERNELS };
/* l1 .. l3 are cache levels 1..3; custom is --working-set's one size. */
enum { PEAK_BW_L1, PEAK_BW_L2, PEAK_BW_L3, PEAK_BW_MEMORY, PEAK_BW_CUSTOM, PEAK_BW_LEVELS };
#define PEAK_BW_SCALAR 3.0
/* Each array starts on a fresh 64-byte line, and the arrays of one kernel are
 * this far apart beyond whole pages, so that a[i] and b[i] never sit at the
 * same offset in a 4 KiB page (loads would wait on stores they only seem to
 * alias). */
#define PEAK_BW_ARRAY_GAP 320
/* The smallest working set measured: 64 doubles per array of triad. */
#define PEAK_BW_MIN_BYTES 1536

extern const char *const peak_bw_kernel_names[PEAK_BW_KERNELS];
extern const char *const peak_bw_level_names[PEAK_BW_LEVELS];
/* Bytes a kernel moves per element: load 8 (read), copy 16 (read + write, the
 * write-allocate not counted, as likwid-bench counts), triad 24 (STREAM's). */
extern const int peak_bw_bytes_per_element[PEAK_BW_KERNELS];

/* One instruction set's kernels; each runs `sweeps` sweeps over its arrays
 * of n doubles (n a multiple of 8, arrays 64-byte aligned). */
struct peak_bw_isa {
    const char *name; /* "avx512", ... as --isa and the record's algorithm */
    int vector_bits;
    int (*available)(void);
    double (*load)(const double *a, size_t n, long sweeps); /* the last sweep's sum */
    void (*copy)(double *b, const double *a, size_t n, long sweeps);
    void (*triad)(double *a, const double *b, const double *c, double s, size_t n, long sweeps);
    /* The same with non-temporal stores (NULL where the ISA has none): what the
     * memory level uses, as STREAM does, since a plain store first reads the
     * line it writes (the write-allocate) and hides a third of copy's rate. */
    void (*copy_nt)(double *b, const double *a, size_t n, long sweeps);
    void (*triad_nt)(double *a, const double *b, const double *c, double s, size_t n, long sweeps);
};

/* --stores: non-temporal at the memory level only (auto), never, or at every
 * level measured (a --working-set beyond the caches, for a peer's _mem kernels). */
enum { PEAK_BW_STORES_AUTO, PEAK_BW_STORES_PLAIN, PEAK_BW_STORES_NT };
/* 1 when kernel k at `level` uses the ISA's non-temporal stores. */
int peak_bw_uses_nt(const struct peak_bw_isa *isa, int stores, int level, int kernel);

/* Every ISA this build has kernels for, widest first. */
extern const struct peak_bw_isa peak_bw_isas[];
extern const int peak_bw_nisas;

/* The kernels for --isa `name` ("auto": the widest this CPU has), or NULL
 * with one line in err when the name is unknown or the CPU lacks it. */
const struct peak_bw_isa *peak_bw_isa_pick(const char *name, char *err, size_t errlen);
/* The ISA flags this CPU has, "sse2,avx,avx2,fma,avx512f" (x86) or "neon". */
void peak_bw_isa_flags(char *buf, size_t len);

/* Elements per array of kernel k in a working set of `bytes` (all its arrays
 * together), a multiple of 8; the bytes one sweep moves are
 * peak_bw_bytes_per_element[k] * that. */
size_t peak_bw_elements(int kernel, uint64_t bytes);

/* Bytes `sweeps` sweeps of kernel k over n elements count. */
double peak_bw_bytes(int kernel, size_t n, long sweeps);

/* The arrays of one kernel over n elements: filled with small integers (load
 * and triad's inputs) so that every sum is exact; the outputs zeroed. */
void peak_bw_fill(int kernel, double *x[3], size_t n);
/* Wrong elements after kernel k ran on x[0..3) (load: its sum), 0 when right. */
double peak_bw_check(int kernel, double *const x[3], size_t n, double sum);

struct peak_bw_params {
    struct hpcp_common run;
    const struct peak_bw_isa *isa;
    int kernels[PEAK_BW_KERNELS], nkernels; /* in the order given */
    int levels[PEAK_BW_LEVELS], nlevels;    /* asked, then those that run; smallest first */
    uint64_t ws[PEAK_BW_LEVELS];            /* working set per rank, bytes */
    char rule[PEAK_BW_LEVELS][256];
    char skipped[PEAK_BW_LEVELS][256];      /* why a level asked for does not run */
    double min_time;
    int stores;    /* PEAK_BW_STORES_* */
    int hugepages; /* --hugepages on */
    int star, copies_on_node;
    struct hpcp_node node;
};

/* Parse and size: 0, or an HPCP_EXIT_* status after one line (collective). */
int peak_bw_params_prepare(struct peak_bw_params *p, const char *variant, int argc, char **argv,
                           const struct hpcp_sysinfo *si);
/* The same without the line or the collective checks, for the tests. */
int peak_bw_params_parse(struct peak_bw_params *p, const char *variant, int argc, char **argv,
                         char *err, size_t errlen);
/* The levels parsed (p->levels) that run on node n with `copies` ranks at
 * once, and their working sets; the others' reasons in p->skipped. 0, or -1
 * with one line in err when none can run. */
int peak_bw_levels(struct peak_bw_params *p, const struct hpcp_node *n, int copies, char *err,
                   size_t errlen);

extern const struct hpcp_options_desc peak_bw_options_desc;
extern const struct hpcp_records_desc peak_bw_records;

struct peak_bw_state {
    struct peak_bw_params p;
    struct hpcp_region region;
    int active; /* this rank runs the kernels (single: rank 0) */
    int cpu;    /* the core this rank is pinned to, -1 if not */
    /* the point running: its level, kernel, arrays and sweeps per repetition */
    int point, level, kernel;
    double *x[3];
    size_t n;
    long sweeps;
    double sum;
    /* per level and kernel: rank 0's rate per repetition (bytes of every
     * active rank over the slowest one's time), this rank's best rate */
    double *rate[PEAK_BW_LEVELS][PEAK_BW_KERNELS];
    int nrate[PEAK_BW_LEVELS][PEAK_BW_KERNELS];
    double rank_best[PEAK_BW_LEVELS][PEAK_BW_KERNELS];
    double wrong[PEAK_BW_LEVELS][PEAK_BW_KERNELS]; /* rank 0: wrong elements, all ranks */
};

/* The phases (peak_bw.c). */
int peak_bw_setup(struct hpcp_bench *b);
int peak_bw_run(struct hpcp_bench *b, double *seconds);
int peak_bw_verify(struct hpcp_bench *b, double *error);
void peak_bw_teardown(struct hpcp_bench *b);
/* Point i of the sweep: fill its arrays, a warm-up sweep, the sweeps per
 * repetition (collective). */
int peak_bw_point(struct hpcp_bench *b, int i);
/* The barrier around each repetition: star's ranks start together
 * (MPI_Barrier); single's idle ranks sleep while rank 0 runs
 * (hpcp_idle_barrier), as stream single's do. */
void peak_bw_barrier(struct hpcp_bench *b);
/* Run kernel k of the state's ISA `sweeps` times over s->x. */
void peak_bw_sweep(struct peak_bw_state *s, long sweeps);

int hpcp_peak_bw_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                        char **argv);

#endif
