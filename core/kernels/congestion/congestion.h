/* Congestion under load (GPCNeT's method, Chunduri et al., SC19): canaries
 * measured alone and then beside congestor traffic, every sample kept, and
 * the Congestion Impact Factor (CIF). Definitions, timing and validation:
 * docs/kernels/congestion.md. */
#ifndef HPCPROBE_CONGESTION_H
#define HPCPROBE_CONGESTION_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/kernel.h"
#include "hpcprobe/util.h"

enum cong_canary { CONG_LATENCY, CONG_BANDWIDTH, CONG_ALLREDUCE, CONG_NCANARIES };
enum cong_pattern { CONG_INCAST, CONG_PUT_INCAST, CONG_GET_BCAST, CONG_ALLTOALL, CONG_NPATTERNS };
/* Conditions a canary runs under: alone, then beside each asked congestor. */
#define CONG_MAX_CONDITIONS (1 + CONG_NPATTERNS)
#define CONG_MAX_MESSAGE_BYTES ((uint64_t)64 << 20)
/* Rounds between the congestors' looks at the stop flag: no congestor runs
 * more than this many rounds ahead of another. */
#define CONG_CHECK_EVERY 4
/* Samples kept per canary and condition in one record, over all canary ranks. */
#define CONG_MAX_KEPT_SAMPLES 200000

extern const char *const cong_canary_names[CONG_NCANARIES];
extern const char *const cong_pattern_names[CONG_NPATTERNS];

/* --mode: hpcprobe's (one congestor at a time, canaries spread) or GPCNeT's
 * network_load_test layout (four congestor groups at once, random canary
 * nodes, its canary definitions: cong_gpcnet.c). */
enum cong_mode { CONG_MODE_HPCPROBE, CONG_MODE_GPCNET };
/* --canary-placement; CONG_PLACE_MODE: not given, the mode's default. */
enum cong_placement { CONG_PLACE_SPREAD, CONG_PLACE_RANDOM, CONG_PLACE_PACKED, CONG_PLACE_MODE };
extern const char *const cong_mode_names[2];
extern const char *const cong_placement_names[3];
/* --idle-wait: how a rank waits for its messages and for the others (sleep:
 * hpcprobe's naps; spin: blocking MPI calls, busy-polling, as GPCNeT's ranks). */
extern const char *const cong_idle_names[2];
/* GPCNeT's layout: 4 congestor groups (in its order), floor(0.8 n) congestor
 * units, at least 2 canary units and 2 per group, so 10 units or more. */
#define CONG_GPCNET_GROUPS 4
#define CONG_GPCNET_MIN_UNITS 10
extern const int cong_gpcnet_group_pattern[CONG_GPCNET_GROUPS];

struct cong_params {
    int canary[CONG_NCANARIES], ncanaries;
    int congestor[CONG_NPATTERNS], ncongestors; /* 0: --congestor none */
    uint64_t congestor_bytes, bandwidth_bytes;
    int in_flight, samples, bandwidth_samples;
    double fraction;
    int mode, placement;              /* placement: resolved (never CONG_PLACE_MODE) */
    int placement_given;              /* 0: the mode's default */
    int idle_spin;                    /* --idle-wait spin */
    int ring_iterations[CONG_NCANARIES]; /* gpcnet: timed iterations per ring (or test) */
    struct hpcp_common run; /* --warmup, --seed (the ring), --no-verify, --out, --quiet */
};

/* Who is what: units are nodes (hosts), or ranks when there is one node. */
struct cong_roles {
    int units, per_rank;         /* per_rank: one node, roles per rank */
    int canary_units, congestor_units;
    int canary_ranks, congestor_ranks;
    double fraction_used;        /* congestor units / units */
    int *rank_node;              /* host index of every rank (metadata.hosts order) */
    int *rank_congestor;         /* 1: the rank is a congestor */
    int *rank_group;             /* gpcnet: the rank's congestor group, -1 canary; else NULL */
    int group_units[CONG_GPCNET_GROUPS];
};

/* Pure planning, the same on every rank (tested in core/tests). Marks
 * ncongestor of `units` units, spreading the canary units evenly over them;
 * the count starts at floor(fraction * units) and moves until both roles get
 * at least `need` ranks. 0, or -1 with one line. */
int cong_split_units(int units, const int *unit_ranks, double fraction, int need,
                     int *unit_congestor, int *ncongestor, char *err, size_t errlen);
/* The same with the canary units placed by `placement` (spread: as above;
 * random: a permutation seeded by `seed`; packed: the first units). */
int cong_split_units_placed(int units, const int *unit_ranks, double fraction, int need,
                            int placement, uint64_t seed, int *unit_congestor, int *ncongestor,
                            char *err, size_t errlen);
/* Marks units - ncongestor canary units (0) among congestor units (1). */
void cong_place_canaries(int units, int ncongestor, int placement, uint64_t seed,
                         int *unit_congestor);
/* GPCNeT's split (cong_gpcnet_roles.c): floor(0.8 units) congestor units in
 * 4 groups as equal as possible (unit_group 0..3; -1: canary), canaries by
 * `placement`. 0, or -1 with one line below CONG_GPCNET_MIN_UNITS units
 * (per_rank: the units are one node's ranks, for the message). */
int cong_gpcnet_split(int units, int per_rank, int placement, uint64_t seed, int *unit_group,
                      int group_units[CONG_GPCNET_GROUPS], char *err, size_t errlen);
/* Collective: every rank's host index, then the roles. */
int cong_assign_roles(struct cong_roles *r, const struct hpcp_sysinfo *si, MPI_Comm comm,
                      const struct cong_params *p, char *err, size_t errlen);
void cong_roles_free(struct cong_roles *r);

/* CIF from the mean of samples: congested/isolated for times (latency,
 * allreduce), isolated/congested for rates (bandwidth). NaN when undefined. */
double cong_cif(const double *isolated, int ni, const double *congested, int nc,
                int higher_is_better);

struct cong_state {
    struct cong_params p;
    struct cong_roles roles;
    MPI_Comm canaries, congestors;   /* MPI_COMM_NULL where the rank is not one */
    int left, right;                 /* ring neighbours in `canaries` (world ranks) */
    int canary_leader, congestor_leader; /* world ranks; gpcnet: this rank's group's leader */
    int leaders[CONG_GPCNET_GROUPS], nleaders; /* every congestor leader (world ranks) */
    int group_pattern;               /* gpcnet: this congestor rank's pattern */
    unsigned char *expect_right;     /* gpcnet: right neighbour's payload pattern */
    int *ring_order;                 /* gpcnet: the current ring (ranks of ring_comm) */
    MPI_Comm ring_comm;              /* gpcnet: the canary ranks with my node-local index */
    unsigned char *send, *recv;      /* in_flight * bandwidth_bytes each */
    unsigned char *expect;           /* left neighbour's payload pattern */
    unsigned char *csend, *crecv;    /* congestor buffers */
    unsigned char *root_pattern;     /* what a Get of the root's slot 0 must bring */
    size_t cbuf_bytes;
    MPI_Win win;                     /* one-sided congestors; MPI_WIN_NULL when none */
    unsigned char *win_base;
    long long canary_wrong, congestor_wrong;
    long long bytes[CONG_NPATTERNS];   /* this rank's congestor bytes per pattern */
    long long rounds[CONG_NPATTERNS];  /* this rank's congestor rounds per pattern */
    int corrupt_now;                 /* test hook: spoil one canary payload */
    int canary, pattern;             /* the sweep point: canary, congestor (-1: alone) */
    int condition;                   /* its index among the canary's conditions */
    double *mine;                    /* this rank's samples of the point */
    struct cong_results *R;          /* what the points gathered, on rank 0 */
    int mute;                        /* test hook: congestors loop but move nothing */
};

/* Canaries (cong_canary.c): n timed samples after `warmup` untimed ones,
 * each sample a time in seconds (bandwidth: bytes per second). */
void cong_canary_run(struct cong_state *s, int canary, double *samples, int n, int warmup);
/* GPCNeT's canaries (cong_gpcnet.c): n timed iterations over random rings. */
void cong_gpcnet_canary_run(struct cong_state *s, int canary, double *samples, int n);
/* Its buffers: 2 K messages of B each way, the neighbours' patterns, the ring. */
int cong_gpcnet_buffers(struct cong_state *s, int me, int canaries);
/* Congestors (cong_congestor.c): one round of the pattern; the leader learns
 * when to stop from the canary leader (cong_driver.c). */
int cong_congestor_setup(struct cong_state *s, char *err, size_t errlen);
void cong_congestor_round(struct cong_state *s, int pattern, long long round);
void cong_congestor_teardown(struct cong_state *s);
/* How long a waiting congestor (or bandwidth canary) naps between tests of its
 * requests (hpcp_wait_asleep), so it leaves the core to the ranks it shares it with. */
#define CONG_NAP_NS 20000L

/* Message contents: a stamp (sender, sample or round, message) in the first
 * 8 bytes, the sender's pattern after it. */
void cong_fill(unsigned char *buf, size_t bytes, int sender);
/* n messages of `bytes` each, every one filled as cong_fill fills one. */
void cong_fill_messages(unsigned char *buf, size_t n, size_t bytes, int sender);
void cong_stamp(unsigned char *buf, size_t bytes, int sender, long long seq, int k);
int cong_stamp_ok(const unsigned char *buf, size_t bytes, int sender, long long seq, int k);

/* Wait for n requests: asleep between tests (CONG_NAP_NS), or with --idle-wait spin
 * in MPI_Waitall, busy-polling as GPCNeT's ranks wait. */
static inline void cong_wait(const struct cong_params *p, int n, MPI_Request *rq)
{
    if (p->idle_spin)
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    else
        hpcp_wait_asleep(n, rq, CONG_NAP_NS);
}

/* Conditions a canary runs under: alone, then each congestor (or `none` once). */
static inline int cong_conditions(const struct cong_params *p)
{
    if (p->mode == CONG_MODE_GPCNET)
        return 2; /* isolated, then all four congestor groups at once */
    return 1 + (p->ncongestors ? p->ncongestors : 1);
}

int cong_params_prepare(struct cong_params *p, int argc, char **argv,
                        const struct hpcp_sysinfo *si);
int cong_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc, char **argv);

/* Rank 0's results: samples[c][k] pooled over the canary ranks (rank-major,
 * kept[c] per rank), the congestor bytes per node and pattern. */
struct cong_results {
    double *samples[CONG_NCANARIES][CONG_MAX_CONDITIONS];
    int kept[CONG_NCANARIES];        /* per canary rank */
    long long *node_bytes[CONG_NPATTERNS]; /* [units]; NULL when not asked */
    long long rounds[CONG_NPATTERNS];
    long long canary_wrong, congestor_wrong;
    int nodes;
};
void cong_build_record(struct hpcp_record *r, const struct hpcp_bench *b,
                       const struct cong_results *R);
/* The summary on stdout (rank 0, unless --quiet). */
void cong_print(const struct hpcp_record *r);

/* describe (cong_params.c) */
extern const struct hpcp_options_desc cong_options_desc;
extern const struct hpcp_records_desc cong_records;

#endif
