/* MPI communication family (docs/kernels/comm.md): IMB-style functions
 * (`comm`), HPCC's b_eff (`beff`) and the rank-pair bandwidth matrix
 * (`pairs`). Shared here: options, message sizes, placement, check patterns. */
#ifndef HPCPROBE_COMM_H
#define HPCPROBE_COMM_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/kernel.h"
#include "hpcprobe/options.h"
#include "hpcprobe/record.h"

#define COMM_MAX_SIZES 64
#define COMM_MAX_FUNCTIONS 16
/* Largest message: MPI counts are ints, and a v-collective's displacements
 * (ranks x message) must stay below 2^31 too. */
#define COMM_MAX_MESSAGE ((size_t)1 << 30)
#define COMM_DEFAULT_MAX_SIZE ((size_t)4 << 20)

/* The communication families' own options; --seed (beff), --repeat (pairs),
 * --out and --quiet are the harness's common ones. */
enum {
    COMM_OPT_SIZES,
    COMM_OPT_TIME_PER_SIZE,
    COMM_OPT_OFF_CACHE,
    COMM_OPT_CHECK,
    COMM_OPT_NP_SWEEP,
    COMM_OPT_FUNCTIONS,
    COMM_OPT_TIMING,
    COMM_OPT_LAT_TIME,
    COMM_OPT_BW_TIME,
    COMM_OPT_SIZE,
    COMM_OPT_MESSAGES,
    COMM_OPT_PLACEMENT,
    COMM_OPT_PLACEMENT_BY,
    COMM_OPT_BUFFERS,
    COMM_OPT_MATRIX_TIME,
    COMM_OPT_SAMPLE_TIME,
    COMM_OPT_COUNT
};

/* Where the ranks run: asked for with --placement, applied by the launcher
 * (hpcprobe checks and records it) or by hpcprobe (a rank permutation). */
struct comm_place {
    const char *spec;   /* NULL (as launched), "block", "round-robin", or a file */
    int by_launcher;    /* --placement-by launcher */
    int host_index;     /* set by comm_place_apply: this rank's host in metadata.hosts */
};

/* How MPI reaches device buffers (--buffers device): given the device pointers
 * (the MPI is CUDA-aware), or through pinned host memory copied on each call. */
enum comm_transfer { COMM_TRANSFER_NONE, COMM_TRANSFER_CUDA_AWARE, COMM_TRANSFER_STAGED };

/* --buffers: where the message buffers live, and for device the device each
 * rank chose (comm_device_open). */
struct comm_device {
    int on;             /* --buffers device */
    int transfer;       /* enum comm_transfer, the same on every rank */
    int aware;          /* hpcp_mpi_device_aware, the least over the ranks: 1, 0, -1 */
    char query[128];    /* what that asked the MPI */
    int index;          /* this rank's device: node-local rank % devices */
    char name[128];
};

struct comm_params {
    size_t sizes[COMM_MAX_SIZES];
    int nsizes, sizes_default;
    double time_per_size;        /* comm: seconds of timed calls per size */
    int off_cache, check, np_sweep;
    int timing;                  /* comm: whose repetition and timing policy (comm_timing) */
    const char *functions;       /* comm all: a comma list, NULL for every function */
    double lat_pairs_time, bw_pairs_time; /* beff: ping-pong budgets (s) */
    size_t size;                 /* pairs: message size */
    int messages;                /* pairs: fewest timed messages per sample */
    double matrix_time;          /* pairs: seconds the matrix may take (a sample beyond) */
    double sample_time;          /* pairs: least seconds per sample (0: `messages` exactly) */
    uint64_t llc_bytes;          /* node's last-level caches (sysfs), 0 if unknown */
    struct comm_place place;
    struct comm_device dev;      /* comm (some functions) and pairs: --buffers */
    /* beff: --seed of the random rings; pairs: --seed of the round order and
     * --repeat, the samples per pair; every one: --out, --quiet. */
    struct hpcp_common run;
};

/* Whose repetition and timing policy `comm` follows (comm_timing.c): hpcprobe's own
 * (a time budget per size, batches of back-to-back calls), IMB-MPI1's or OSU's. */
enum comm_timing { COMM_TIMING_HPCPROBE, COMM_TIMING_IMB, COMM_TIMING_OSU };
/* "imb" -> COMM_TIMING_IMB (the option's choices are checked before). */
int comm_timing_named(const char *name);
const char *comm_timing_name(int timing);

/* Parse and check the options of `bench` ("comm", "beff", "pairs"); 0, or
 * HPCP_EXIT_USAGE after one line on rank 0. Collective over `world`. */
int comm_params_prepare(struct comm_params *p, const char *bench, const char *variant, int argc,
                        char **argv, MPI_Comm world);
/* "0", "64K", "4M", "1G" (binary suffixes) -> bytes; 0 or -1. */

/* Parse a --sizes list: SIZE or A..B (A, 2A, 4A ... up to B) items, comma
 * separated, strictly increasing. 0, or -1 with one line in err. */
/* describe (comm_params.c, comm_driver.c): the options of comm, beff and
 * pairs; whether comm kernel k takes --functions (functions 1: comm all) or
 * --buffers device (its function's descriptor); what each records. */
extern const struct hpcp_options_desc comm_options_desc;
int comm_kernel_takes(const struct hpcp_kernel *k, int functions);
extern const struct hpcp_records_desc comm_records, beff_records, pairs_records;

/* --- placement (comm_place.c) ------------------------------------------- */

/* The communicator to measure on: world's ranks in the order asked for.
 * Collective; 0, or HPCP_EXIT_USAGE after one line. `note` gets what a reader
 * should know (empty if nothing). */
int comm_place_apply(struct comm_place *p, MPI_Comm world, MPI_Comm *work, char *note,
                     size_t notelen);
/* Parameters `placement`, `placement_by` and per-rank counters `rank_node`
 * (index into metadata.hosts, the sorted host names) and `rank_cpu`
 * (collective over `comm`; rank 0 fills r). */
void comm_place_record(const struct comm_place *p, MPI_Comm comm, struct hpcp_record *r);
/* Collective: on rank 0 a node id per rank (the lowest rank of `comm` on its
 * node; the caller frees), NULL elsewhere. */
int *comm_node_ids(MPI_Comm comm);
/* Nodes spanned by `comm` and the most ranks on one of them (collective). */
void comm_layout(MPI_Comm comm, int *nodes, int *ranks_per_node_max);
/* Rank i of a placement file's `text`: its host (hosts + i*host_len) and CPU
 * (-1: any). 0, or -1 with one line in err (a rank missing or twice, ...). */
#define COMM_HOST_LEN 256
int comm_place_parse(const char *text, int ranks, char *hosts, int *cpus, char *err, size_t errlen);
/* New rank of each world rank so that ranks follow `order` ("block" or
 * "round-robin") over the nodes given by node[i] (a node id per world rank);
 * world rank 0 keeps rank 0. */
void comm_place_order(const char *order, const int *node, int ranks, int *new_rank);

/* --- device buffers (comm_device.c) -------------------------------------- */

/* --buffers device: every rank selects its node-local rank % devices and the
 * MPI is asked whether it takes device pointers. Collective over world; 0
 * (also with host buffers), or the exit status after one line
 * "`bench`: --buffers device: why" (no device: HPCP_EXIT_USAGE). */
int comm_device_open(struct comm_device *d, const char *bench, const struct hpcp_sysinfo *si);
/* The parameters buffers, device_transfer, mpi_device_aware, mpi_device_query,
 * device, device_name; with staged transfers the note that the times are not
 * the MPI's own. */
void comm_device_record(struct hpcp_record *r, const struct comm_device *d);
/* Copy `bytes` between device and pinned host memory for a staged call or message
 * (nothing for 0 bytes). A failed copy leaves wrong data, which the check
 * of the call reports. */
void comm_stage_copy(void *dst, const void *src, size_t bytes);

/* "none", "cuda-aware", "staged". */
const char *comm_transfer_name(int transfer);

/* --- check patterns (comm_check.c) -------------------------------------- */

/* The bytes `src` sends to `dst` (-1: the same to every receiver) in call
 * `iteration`: a pattern no other (src, dst, iteration) produces. */
void comm_fill(void *buf, size_t n, int src, int dst, long iteration);
/* Index of the first byte of buf[0..n) that differs from comm_fill's, or -1. */
long comm_check(const void *buf, size_t n, int src, int dst, long iteration);
/* Reductions: element j of `rank`'s vector, and the sum over `ranks` ranks;
 * small integers, so float sums are exact. */
float comm_reduce_value(int rank, size_t j, long iteration);
float comm_reduce_sum(int ranks, size_t j, long iteration);

/* --- helpers ------------------------------------------------------------ */

/* The start of beff and pairs (and any benchmark of at least `min_ranks`
 * ranks): options, the rank count (`why` says why it needs them), then the
 * placement. 0 with *work set, or the exit status after one line. */
int comm_begin(struct comm_params *p, const char *bench, const char *variant, int argc, char **argv,
               const struct hpcp_sysinfo *si, int min_ranks, const char *why, MPI_Comm *work,
               char *note, size_t notelen);
/* The bench of a kernel run on `work` (the placed ranks of comm_begin), with
 * its rank and size there and the family's `state`. */
struct hpcp_bench comm_bench(MPI_Comm work, const struct hpcp_sysinfo *si, void *state,
                             const struct hpcp_kernel *k);
/* The end of a comm family's record hook, every rank of `comm` once rank 0
 * has built r: the placement counters, then on rank 0 a failed validation
 * said on stderr (the harness appends, prints and frees). */
void comm_record_done(struct hpcp_record *r, MPI_Comm comm, const struct comm_params *p);

int hpcp_comm_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv);
int hpcp_beff_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv);
/* The round-robin tournament of `pairs` (pairs_schedule.c): rank's partner
 * in `round` (-1: it sits out, odd rank counts), and the number of rounds. */
int pairs_partner(int ranks, int round, int rank);
int pairs_rounds(int ranks);

int hpcp_pairs_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                      char **argv);

#endif
