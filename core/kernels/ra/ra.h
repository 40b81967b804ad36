/* RandomAccess (GUPS) family, by the HPCC rules: shared pieces of every
 * variant. Rules and definitions: docs/kernels/randomaccess.md. */
#ifndef HPCPROBE_RA_H
#define HPCPROBE_RA_H
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "hpcprobe/gups_rng.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/kernel.h"
#include "hpcprobe/memory.h"
#include "hpcprobe/sizing.h"

#define RA_LCG_MUL 6364136223846793005ULL   /* HPCC's 64-bit LCG */
#define RA_LCG_ADD 1ULL
#define RA_MAX_LOOKAHEAD 1024               /* HPCC: at most 1024 updates pending */
#define RA_UPDATES_PER_WORD 4               /* HPCC: 4 x table size updates */
#define RA_TOLERANCE_FRACTION 0.01          /* HPCC: pass with <= 1 % wrong words */
#define RA_MAX_SWEEP_LOOKAHEAD 32768        /* the top of Plimpton et al.'s Table 4 */
#define RA_MAX_DIMS 8                       /* torus, staged: dimensions of the virtual grid */
#define RA_MAX_THREADS 1024                 /* --threads */
#define RA_MAX_LOCKS (1 << 20)              /* --sync locks:K */
#define RA_MAX_UPDATES_PER_WORD 64          /* --updates-per-word (studies) */

/* Plimpton et al.'s optimisations of the hypercube exchange (Table 3), each
 * a switch; Mod4/Mod5 changed the MPI library, which is a build choice here. */
enum ra_mods {
    RA_MOD_PREPOST = 1,      /* Mod1: every stage's receive posted before the step */
    RA_MOD_LATE_UPDATE = 2,  /* Mod2: own updates applied after the exchange is posted */
    RA_MOD_LATE_WAIT = 4,    /* Mod3: wait for a receive only after splitting the keep-list */
    RA_MOD_ISEND = 8,        /* Mod6/7: non-blocking sends from double-buffered lists */
    RA_MODS_ALL = 15,
};

enum ra_rng { RA_RNG_POLY, RA_RNG_LCG };

/* How threads sharing one table keep it right (Garg et al., section 3.3):
 * not at all, an atomic XOR, or K striped mutexes. */
enum ra_sync { RA_SYNC_NONE, RA_SYNC_ATOMIC, RA_SYNC_LOCKS };

/* The serial loop of single, star and ceiling (--update-loop): HPCC's plain
 * loop, or each word prefetched when its update is generated and XORed
 * `ahead` updates later (ra_serial.c). */
enum ra_loop { RA_LOOP_PREFETCH, RA_LOOP_PLAIN };
/* Words prefetched ahead of their XOR, in the serial loop and in the mpi
 * algorithms' list updates: 128 was fastest of 8 to 256 on a Zen 5 (2 ranks,
 * 2^27 words; 16 gave half the rate, 256 lost 10 %). */
#define RA_PREFETCH_AHEAD 128
/* How many to keep in flight when at most `most` may be pending: the
 * largest power of two <= RA_PREFETCH_AHEAD and <= most (0 when most < 1). */
static inline unsigned ra_prefetch_depth(long long most)
{
    unsigned depth = RA_PREFETCH_AHEAD;
    while (depth && depth > most)
        depth /= 2;
    return depth;
}
static inline const char *ra_loop_name(enum ra_loop loop)
{
    return loop == RA_LOOP_PLAIN ? "plain" : "prefetch";
}

static inline uint64_t ra_next_poly(uint64_t r)
{
    return hpcp_gups_next(r);
}

static inline uint64_t ra_next_lcg(uint64_t r)
{
    return RA_LCG_MUL * r + RA_LCG_ADD;
}

static inline uint64_t ra_next(enum ra_rng rng, uint64_t r)
{
    return rng == RA_RNG_POLY ? ra_next_poly(r) : ra_next_lcg(r);
}

static inline const char *ra_rng_name(enum ra_rng rng)
{
    return rng == RA_RNG_POLY ? "poly" : "lcg";
}

/* Table index of value r for a table of 2^log2 words: HPCC takes the low bits
 * of the shift-register values and the high bits of the LCG values (the low
 * bits of an LCG have short periods). */
static inline uint64_t ra_index(enum ra_rng rng, uint64_t r, int log2)
{
    if (rng == RA_RNG_POLY)
        return r & ((1ULL << log2) - 1);
    return log2 ? r >> (64 - log2) : 0;
}

/* Generator state after n steps from the start value 1, in O(log n):
 * x^n mod (x^64 + x^2 + x + 1) over GF(2), or the LCG's n-fold composition.
 * Update number i (from 0) of a stream starting at position p uses
 * ra_next(ra_rng_jump(p + i)) = ra_rng_jump(p + i + 1). */
uint64_t ra_rng_jump(enum ra_rng rng, uint64_t n);

/* How a rank finds the owner of a global index when the ranks or the words
 * per rank are not powers of two: HPCC's division, or Garg & Sabharwal's
 * division-free prediction floor(g * ranks / words) with one correction step
 * (their Theorem 4.1; valid when ranks < words / ranks). */
enum ra_owner_rule { RA_OWNER_DIVISION, RA_OWNER_PREDICT };

/* HPCC's block distribution of a global table of `words` (a power of two)
 * over `ranks`: the first `rem` ranks own one word more. */
struct ra_dist {
    uint64_t words;
    int ranks;
    int log2_words;
    uint64_t min_local;  /* words / ranks */
    uint64_t rem;        /* words % ranks */
    uint64_t top;        /* first global index owned by a rank with min_local words */
    int shift;           /* log2(words / ranks) when both are powers of two, else -1 */
    enum ra_owner_rule rule;
};
/* Division rule; ra_dist_set_rule may switch to prediction. */
void ra_dist_init(struct ra_dist *d, uint64_t words, int ranks);
/* 0, or -1 with one line in err when the rule cannot be used here. */
int ra_dist_set_rule(struct ra_dist *d, enum ra_owner_rule rule, char *err, size_t errlen);
static inline const char *ra_owner_rule_name(enum ra_owner_rule rule)
{
    return rule == RA_OWNER_PREDICT ? "predict" : "division";
}
static inline uint64_t ra_dist_start(const struct ra_dist *d, int rank)
{
    uint64_t r = (uint64_t)rank;
    return r * d->min_local + (r < d->rem ? r : d->rem);
}
static inline uint64_t ra_dist_count(const struct ra_dist *d, int rank)
{
    return d->min_local + ((uint64_t)rank < d->rem ? 1 : 0);
}
static inline int ra_owner_division(const struct ra_dist *d, uint64_t g)
{
    return g < d->top ? (int)(g / (d->min_local + 1)) : (int)((g - d->rem) / d->min_local);
}
/* Theorem 4.1: with p the true owner, p <= floor(g * ranks / words) <= p + 1,
 * so one comparison with the predicted rank's first index corrects it. */
static inline int ra_owner_predict(const struct ra_dist *d, uint64_t g)
{
    __extension__ typedef unsigned __int128 u128; /* g * ranks may pass 2^64 */
    int pe = (int)(((u128)g * (u128)(unsigned)d->ranks) >> d->log2_words);
    return g < ra_dist_start(d, pe) ? pe - 1 : pe;
}
static inline int ra_dist_owner(const struct ra_dist *d, uint64_t g)
{
    if (d->shift >= 0) /* HPCC masks instead of dividing when it can */
        return (int)(g >> d->shift);
    return d->rule == RA_OWNER_PREDICT ? ra_owner_predict(d, g) : ra_owner_division(d, g);
}

/* A table in anonymous memory aligned to 2 MiB, advised to use (or avoid)
 * transparent huge pages. */
struct ra_table {
    uint64_t *words;
    uint64_t n;
    struct hpcp_region region;    /* madvise result in region.advice_rc, recorded */
    uint64_t thp_bytes;           /* huge-page bytes the OS gave, after first touch */
};
int ra_table_alloc(struct ra_table *t, uint64_t words, int hugepages);
/* T[i] = first_global + i; then measure the huge pages obtained. */
void ra_table_init(struct ra_table *t, uint64_t first_global);
void ra_table_free(struct ra_table *t);

struct ra_params {
    int table_log2;
    uint64_t table_words;    /* per process (single, star) or global (mpi) */
    enum ra_rng rng;
    int lookahead;
    int compliant;
    enum ra_owner_rule owner;
    int grid[RA_MAX_DIMS];   /* torus, staged: --grid; zeros where MPI_Dims_create chooses */
    int ndims;               /* torus, staged: dimensions (0: not given) */
    int mods;                /* hypercube: enum ra_mods bits */
    int grid_given, mods_given, owner_given;
    /* hypercube, torus, pipeline: the overlapped form, exchanges in flight
     * while the rank works on (--overlap on|off). */
    int overlap, overlap_given;
    enum ra_loop loop;       /* single, star, ceiling: --update-loop */
    int loop_given;
    /* Multi-core (Garg et al., Table 1): threads per rank, the mapping mode
     * (table, generation and look-ahead each per core or per node), how a
     * shared table is kept right, and the pipeline's routing threads. */
    int threads;
    int mapping_mode;
    enum ra_sync sync;
    int locks;               /* RA_SYNC_LOCKS: K */
    int roles;               /* pipeline: routing threads k' (-1: auto) */
    int oversubscribe;
    int updates_per_word;    /* HPCC: 4 */
    int threads_given, mode_given, sync_given, roles_given;
    struct hpcp_common run;  /* --repeat, --warmup, --no-verify, --out, --quiet */
    double time_limit_s;     /* 0: none */
    int hugepages;
    double memory_fraction;  /* < 0 when --table-log2 or --size-rule caches was given */
    int size_by_caches;      /* --size-rule caches */
    char size_rule[256];     /* "option", or the sizing layer's rule in words */
    struct hpcp_node node;   /* what the sizing layer sized for */
    const char *dump;
};

/* "prepost,late-wait" for a set of enum ra_mods bits ("none" when empty). */
const char *ra_mods_string(int mods, char *buf, size_t len);

/* Per-run state shared by the kernels of the family. */
struct ra_state {
    struct ra_params p;
    struct ra_dist dist;     /* the table's distribution (one rank for single/star) */
    struct ra_table table;
    int active;              /* this rank owns a table (single: rank 0 only) */
    uint64_t my_start;       /* first global index held here */
    uint64_t seq_start;      /* position in the sequence of this rank's first update */
    uint64_t my_updates;     /* updates this rank issues: 4 x its words */
    uint64_t executed;       /* updates issued in the last repetition */
    /* Last repetition, per rank: messages and bytes sent, the most updates
     * held at once (generated or received, not yet applied), synchronous
     * steps, exchange stages per step, distinct ranks sent to, and the
     * nanoseconds spent routing (splitting lists and exchanging them). */
    long long messages_sent, bytes_sent, max_pending, steps, stages, partners, route_ns;
    /* Overlapped forms: the most of this rank's look-ahead in use at once
     * (updates it generated in batches or buckets not yet through), <= Q. */
    long long max_lookahead;
    /* Hypercube: nanoseconds inside the exchange's MPI calls (posting,
     * sending, waiting for and receiving arrivals, completing sends); -1
     * where an algorithm does not keep it. */
    long long exchange_ns;
    /* Pipeline: nanoseconds in the receive calls that delivered a message
     * (the test that found it, its count, the receive posted again) and the
     * messages they delivered, the per-packet receive cost of Garg et al.'s
     * section 5.2; -1 where an algorithm does not keep them. */
    long long receive_ns, messages_received;
    /* Section 4.3.1's buckets (torus, pipeline; 0 elsewhere): updates per
     * bucket, buckets sending to other ranks, receive buffers posted (of
     * bucket_size each), and the single-producer/single-consumer rings
     * between threads with their size in updates. Same on every rank. */
    int bucket_size, send_buckets, receive_buckets, intercore_buckets, intercore_bucket_size;
    /* Threaded algorithms: the sequence ranges actually executed (start
     * position, count), one per generating thread, for the verifier; and per
     * thread of rank 0 its updates handled, busy time, TSC ticks busy, CPU
     * and role, for the record. nranges 0: [seq_start, +executed). */
    uint64_t (*ranges)[2];
    int nranges;
    int nthreads;
    long long *thread_updates, *thread_busy_ns, *thread_busy_ticks, *thread_cpu;
    char thread_roles[512];
    double ticks_per_ns;     /* TSC rate measured over the run; 0 when unknown */
    void *algo;              /* algorithm-private state */
    struct ra_samples *samples; /* the driver's figures per repetition (ra_record.h) */
};

/* The per-thread arrays and executed ranges of a threaded algorithm for
 * T threads (ra_threads.c); -1 when out of memory. */
int ra_thread_state_alloc(struct ra_state *s, int T);
void ra_thread_state_free(struct ra_state *s);

/* Count-only verifier shared by every variant: replays updates
 * [seq_start, seq_start + executed) of the sequence (or the ranges), each XORed once into
 * its word by the owning rank (a synchronous all-to-all exchange over
 * `comm`, which the table is distributed over), then counts the words
 * that differ from their index. Returns the total on every rank. */
uint64_t ra_verify_table(struct ra_state *s, MPI_Comm comm);

/* The single-process update loop of single, star and ceiling (ra_serial.c).
 * Updates between generation and XOR: 0 for the plain loop, else
 * ra_prefetch_depth of the look-ahead. */
unsigned ra_serial_ahead(enum ra_loop loop, int lookahead);
/* `n` updates of the stream starting at position `pos` into a table of
 * `words` words (a power of two: HPCC's index bits; else scaled into it by a
 * multiply), `ahead` as ra_serial_ahead gives. Stops early after
 * `time_limit_s` (0: never). Returns the updates done. */
uint64_t ra_update_serial(uint64_t *table, uint64_t words, enum ra_rng rng, unsigned ahead,
                          uint64_t pos, uint64_t n, double time_limit_s);
struct hpcp_record;
/* The loop that ran (update_loop, prefetch_ahead), for the record. */
void ra_serial_record_params(struct hpcp_record *r, const struct ra_params *p);

/* The algorithm-only options an algorithm takes (the others are refused
 * by name), as struct ra_algorithm.takes bits. */
enum ra_takes {
    RA_TAKES_MULTICORE = 1, /* --threads, --mapping-mode (mpi algorithms) */
    RA_TAKES_OWNER = 2,     /* --owner */
    RA_TAKES_GRID = 4,      /* --grid, --dims: a virtual grid of the ranks */
    RA_TAKES_MODS = 8,      /* --mods: Plimpton et al.'s optimisations */
    RA_TAKES_SYNC = 16,     /* --sync: threads updating one shared table */
    RA_TAKES_ROLES = 32,    /* --roles: the pipeline's routing threads */
    RA_TAKES_OVERLAP = 64,  /* --overlap: exchanges overlapped with the work */
    RA_TAKES_LOOP = 128,    /* --update-loop: single, star and ceiling */
};

enum ra_scope { RA_SCOPE_SINGLE, RA_SCOPE_STAR, RA_SCOPE_MPI };
#define RA_MODE(m) (1 << (m))  /* struct ra_algorithm.modes */
#define RA_MODE_RANK_PER_CORE RA_MODE(1)

struct hpcp_record;

/* What each RandomAccess kernel declares about itself (its kernel's
 * family_data), so that the shared checks and the record never branch on
 * an algorithm's name. */
struct ra_algorithm {
    enum ra_scope scope;    /* one process, every rank its own table, one table over all */
    unsigned takes;         /* enum ra_takes bits */
    int modes;              /* the mapping modes it runs (Garg et al., Table 1): bit m */
    int default_mode;       /* when --mapping-mode is not given */
    int overlap_default;    /* --overlap when not given: the faster form where measured */
    int threaded;           /* threads share the rank's table; the record says how */
    const char *sync_refusal; /* why --sync does not apply, after the rule ("" if nothing) */
    /* Record parameters of its own options (torus: the grid), or NULL. */
    void (*record_params)(struct hpcp_record *r, const struct ra_params *p);
    /* Threaded: how the table is kept right (shared: sync, locks), or NULL. */
    void (*record_threads)(struct hpcp_record *r, const struct ra_params *p);
};

static inline const struct ra_algorithm *ra_algo(const struct hpcp_kernel *k)
{
    return k->family_data;
}
static inline int ra_is_star(const struct hpcp_kernel *k)
{
    return ra_algo(k)->scope == RA_SCOPE_STAR;
}
static inline int ra_is_mpi(const struct hpcp_kernel *k)
{
    return ra_algo(k)->scope == RA_SCOPE_MPI;
}

/* The family driver (ra_driver.c), named in each ra kernel. */
int hpcp_ra_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                   char **argv);

/* Buckets of pending updates per destination with O(log P) access to the
 * fullest, as HPCC's reference keeps them (ra_buckets.c). */
struct ra_buckets {
    int nbuckets, capacity;
    int *head, *count, *heap, *pos, *next;
    uint64_t *value;
    int heap_n, free_head, pending;
};
int ra_buckets_init(struct ra_buckets *b, int nbuckets, int capacity);
void ra_buckets_free(struct ra_buckets *b);
/* Needs a free slot: callers keep pending < capacity. */
void ra_buckets_insert(struct ra_buckets *b, int dest, uint64_t v);
/* Move the fullest bucket's updates to out (room for capacity); returns its
 * destination and sets *n, or -1 when every bucket is empty. */
int ra_buckets_pop_largest(struct ra_buckets *b, uint64_t *out, int *n);

/* describe (ra_options.c): the options of every ra kernel, and what single,
 * mpi and ceiling (ra_records) or star records. */
extern const struct hpcp_options_desc ra_options_desc;
extern const struct hpcp_records_desc ra_records, ra_star_records;

#endif
