/* Memory family (stream, mem): parameters, caches, the one-copy / many-copy
 * harness and the sweep state shared by the kernels. docs/kernels/memory.md. */
#ifndef HPCPROBE_MEM_H
#define HPCPROBE_MEM_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/caches.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/kernel.h"
#include "hpcprobe/memory.h"
#include "hpcprobe/options.h"
#include "hpcprobe/record.h"
#include "hpcprobe/sizing.h"

#define MEM_MAX_POINTS 128
#define MEM_MAX_THREADS 256
#define MEM_MAX_CACHE_LEVELS 4

enum mem_sweep { MEM_SWEEP_STRIDE, MEM_SWEEP_BLOCK, MEM_SWEEP_LATENCY };

/* The memory families' own options; --repeat, --seed, --no-verify, --out and
 * --quiet are the harness's common ones. */
enum {
    MEM_OPT_ARRAY_BYTES,
    MEM_OPT_BUFFER_BYTES,
    MEM_OPT_MIN_BYTES,
    MEM_OPT_MAX_BYTES,
    MEM_OPT_MIN_STRIDE,
    MEM_OPT_MAX_STRIDE,
    MEM_OPT_PER_OCTAVE,
    MEM_OPT_SWEEP,
    MEM_OPT_BUILD_VARIANT,
    MEM_OPT_COPIES,
    MEM_OPT_OVERSUBSCRIBE,
    MEM_OPT_THREADS,
    MEM_OPT_MIN_TIME,
    MEM_OPT_HUGEPAGES,
    MEM_OPT_COUNT
};
extern const struct hpcp_optspec mem_option_spec[MEM_OPT_COUNT];
/* describe: the options of mem and stream kernels (mem_params.c) */
extern const struct hpcp_options_desc mem_options_desc, stream_options_desc;
extern const struct hpcp_records_desc stream_records, mem_stride_records, mem_latency_records;


struct mem_params {
    uint64_t array_bytes;              /* stream: per array */
    uint64_t buffer_bytes;             /* stride sweep */
    uint64_t min_bytes, max_bytes;     /* block and latency sweeps */
    uint64_t min_stride, max_stride;   /* stride sweep */
    int points_per_octave;
    enum mem_sweep sweep;
    int build_o0;                      /* --build-variant O0 */
    int copies;                        /* 1: one copy only; else one, then this many */
    char copies_text[16];              /* as given: one, all, N */
    int oversubscribe, threads, hugepages;
    double min_time;                   /* seconds per timed sample */
    struct hpcp_common run; /* --repeat, --seed (latency), --no-verify, --out, --quiet */
    int size_from_option;  /* the size the rule would choose was given instead */
    char size_rule[256];   /* "option", or the sizing layer's rule in words */
    int copies_on_node;    /* the most copies that run at once on one node */
    struct hpcp_node node; /* what the sizing layer sized for */
    struct hpcp_caches caches;
};

/* Parse, default and check the options for `variant` ("single", "star",
 * "stride", "latency"). 0, or -1 with one line in err. */
int mem_params_parse(struct mem_params *p, const char *variant, int argc, char **argv,
                     const struct hpcp_sysinfo *si, char *err, size_t errlen);
/* The same, then the --out check; prints the one line. HPCP_EXIT_USAGE or 0. */
int mem_params_prepare(struct mem_params *p, const char *variant, int argc, char **argv,
                       const struct hpcp_sysinfo *si);
/* STREAM iterations per phase: values grow 15x per iteration and two phases
 * must stay far from overflow (15^100 ~ 1e118). */
#define MEM_STREAM_MAX_REPEAT 50

/* Collective: each rank's first pinned CPU, gathered on rank 0 (NULL on the
 * others; the caller frees). */
long long *mem_gather_cpus(MPI_Comm comm, int cpu);


/* A phase: ranks 0..copies-1 run together, the others sleep in a barrier. */
struct mem_phase {
    MPI_Comm world, comm; /* comm: the active ranks (MPI_COMM_NULL elsewhere) */
    int copies, active, rank;
};
void mem_phase_begin(struct mem_phase *ph, MPI_Comm world, int copies);
void mem_phase_end(struct mem_phase *ph);

/* One timed call of a kernel: `passes` passes, returns the seconds it took. */
typedef double (*mem_pass_fn)(void *ctx, long passes);

/* Every active rank leaves a barrier, times fn(ctx, passes), then keeps
 * calling fn(ctx, filler) untimed until every copy has finished its timed
 * call, so no timed region runs without the others' load. Active ranks only. */
double mem_overlapped(const struct mem_phase *ph, mem_pass_fn fn, void *ctx, long passes,
                      long filler);

/* Passes so that one call takes at least min_time (doubling from 1), decided
 * on rank 0 of the phase and shared with the copies. Active ranks only. */
long mem_calibrate(const struct mem_phase *ph, mem_pass_fn fn, void *ctx, double min_time);

/* Plateaus of a latency curve y(x), x increasing: runs of at least
 * `min_points` points within `tolerance` (relative) of the run's median.
 * For each: level[] its median latency, size[] where it ends (the cache's
 * size: where the curve is a tenth of the way to the next plateau; the
 * last plateau, memory, ends at the largest x). Returns the count. */
int mem_find_plateaus(const double *x, const double *y, int n, double tolerance, int min_points,
                      double *size, double *level, int max_plateaus);

/* The NUMA view of the memory kernels (mem_numa.c). */
#define MEM_NUMA_MAX_GROUPS 16
struct mem_numa {
    int domains;     /* NUMA domains with CPUs, most of any rank's node; -1 unknown */
    int pinned;      /* every rank was pinned before its buffers were touched */
    int *rank_node;  /* rank 0: each rank's domain (of its pinned CPU), -1 unknown */
    int groups;      /* rank 0: the copies' distinct domains; 0 when one domain */
    int group_node[MEM_NUMA_MAX_GROUPS]; /* the domain of each group, increasing */
    int my_node;     /* this rank's domain, -1 unknown */
    /* rank 0, mem_numa_check_pages: sampled pages, and those on their rank's
     * domain, over the ranks; -1 when not checked */
    long long pages_checked, pages_on_domain;
};
/* Collective: gather each rank's domain of `cpu` (its pinned CPU, -1 none)
 * and, where a node has more than one domain and copies > 1, group the
 * first `copies` ranks by domain. 0, or -1 (rank 0 out of memory). */
int mem_numa_gather(struct mem_numa *n, MPI_Comm comm, int cpu, int copies);
/* The group of rank `rank` (< copies), -1 when its domain is unknown. */
int mem_numa_group(const struct mem_numa *n, int rank);
void mem_numa_free(struct mem_numa *n);
/* Collective: where the kernel holds up to MEM_NUMA_PAGE_SAMPLES pages spread
 * over this rank's buffer [base, base + bytes) (NULL: it has none), asked
 * with move_pages (nothing moves), against the rank's domain; totals on rank
 * 0. Not checked (-1) with a copied sysfs root (its domains are not the
 * kernel's), or when a rank's domain is unknown or the kernel refuses. */
#define MEM_NUMA_PAGE_SAMPLES 64
void mem_numa_check_pages(struct mem_numa *n, MPI_Comm comm, const void *base, size_t bytes);
/* Rank 0: parameters numa_domains and first_touch, counters cpu_numa (per
 * rank, -1 unknown), copies_by_numa (per group) and the page check's, a note
 * when the copies' domains are unknown or pages are off their domain. */
void mem_numa_record(struct hpcp_record *r, const struct mem_numa *n, int ranks, int copies);

/* Pin this rank to its own `threads` CPUs (memory.h); the first CPU, -1 if not pinned. */
int mem_pin_rank(const struct hpcp_sysinfo *si, int threads);

#endif
