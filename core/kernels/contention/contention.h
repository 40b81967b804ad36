/* Network contention family (Bhatele & Kale, paper 004): WOCON, WICON,
 * stressing a link, equidistant pairs. Definitions, timing and validation:
 * docs/kernels/contention.md. */
#ifndef HPCPROBE_CONTENTION_H
#define HPCPROBE_CONTENTION_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "cont_topo.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/kernel.h"

#define CONT_MAX_SIZES 24
#define CONT_MAX_GROUPS 32
#define CONT_MAX_MESSAGE_BYTES ((uint64_t)1 << 30)

enum cont_pairing { CONT_PAIRS_NN, CONT_PAIRS_NN_TORUS, CONT_PAIRS_RND };

struct cont_params {
    uint64_t sizes[CONT_MAX_SIZES];
    int nsizes;
    int messages;
    enum cont_pairing pairing;
    int axis;                          /* -1: the longest dimension */
    int max_pairs;                     /* stress-link: 0 = all */
    int distances[CONT_MAX_GROUPS];    /* equidistant */
    int ndistances;
    const char *distance_text;
    struct cont_topo_request topo;
    struct hpcp_common run; /* --repeat, --warmup, --seed (wicon rnd), --no-verify, --out... */
};

/* Parse and check the options of `variant`, then the topology; prints the
 * one error line. HPCP_EXIT_USAGE or 0. */
int cont_params_prepare(struct cont_params *p, struct cont_topo *t, const char *variant, int argc,
                        char **argv, const struct hpcp_sysinfo *si);

/* Pairs: a[i] sends first, b[i] answers. `group[i]`: the phase where the pair
 * starts (stress-link: the step, 1-based; equidistant: the distance). */
struct cont_plan {
    int *a, *b, *group, *hops;
    int npairs, cap;
    int ngroups;
    int group_value[CONT_MAX_GROUPS];  /* what each phase is: a step or a distance */
    int cumulative;                    /* phase g runs every pair of phases 0..g (stress) */
    int *idle;                         /* ranks in no pair of some phase, for the record */
    int nidle;
    int axis;
};

/* Planners (cont_pairs.c), deterministic on every rank. 0, or -1 with one line. */
typedef int (*cont_planner)(struct cont_plan *pl, const struct cont_topo *t,
                            const struct cont_params *p, char *err, size_t errlen);
void cont_random_matching(int ranks, uint64_t seed, int *a, int *b);
int cont_plan_wocon(struct cont_plan *pl, const struct cont_topo *t, const struct cont_params *p,
                    char *err, size_t errlen);
int cont_plan_wicon(struct cont_plan *pl, const struct cont_topo *t, const struct cont_params *p,
                    char *err, size_t errlen);
int cont_plan_stress(struct cont_plan *pl, const struct cont_topo *t, const struct cont_params *p,
                     char *err, size_t errlen);
int cont_plan_equidistant(struct cont_plan *pl, const struct cont_topo *t,
                          const struct cont_params *p, char *err, size_t errlen);
void cont_plan_free(struct cont_plan *pl);
/* The axis of stress-link, equidistant and nn-torus: --axis, else the
 * longest dimension (the last of equals); -1 with one line if not a grid. */
int cont_pick_axis(const struct cont_topo *t, int asked, const char *what, char *err,
                   size_t errlen);
/* Largest pair distance along `axis`: D/2 on a ring, D - 1 on a line. */
int cont_max_distance(const struct cont_topo *t, int axis);

/* What the kernels share during a run. */
struct cont_state {
    struct cont_params p;
    struct cont_topo topo;
    struct cont_plan plan;
    int group, size_index, rep;        /* what the next run measures */
    int partner, initiator;            /* this rank in the current phase; -1: idle */
    MPI_Comm active;                   /* the ranks of the current phase */
    unsigned char *send, *recv;        /* the largest message each */
    double seconds;                    /* this rank's time per message of the last run */
    double *dest_seconds;              /* wocon, rank 0: per destination of the last run */
    long long wrong;                   /* messages whose contents were wrong, so far */
    int corrupt_now;                   /* test hook: damage this run's payload */
    int next_rep, spoil;               /* the point's next repetition; test hook's phase */
    double *mine;                      /* [G][S][R] this rank's times where it initiated */
    struct cont_results *results;      /* the tables, complete on rank 0 */
};

/* Message helpers (cont_exchange.c). Contents: a stamp (sender, repetition,
 * message number) in the first min(8, B) bytes, a pattern of the sender's
 * after it. */
void cont_fill_payload(unsigned char *buf, size_t bytes, int sender);
void cont_stamp(unsigned char *buf, size_t bytes, int sender, int rep, int seq);
/* 1 when the stamp (and, with full, the whole payload) is what `sender` sent. */
int cont_message_ok(const unsigned char *buf, size_t bytes, int sender, int rep, int seq, int full);
/* Receive without spinning (an idle rank must not take a measured rank's core). */
void cont_idle_recv(void *buf, int count, int source, int tag, MPI_Comm comm);
/* One timed burst of the current phase: M messages each way (paper's Fig. 8). */
int cont_exchange_run(struct hpcp_bench *b, double *seconds);
int cont_verify(struct hpcp_bench *b, double *error);

/* The shared driver (cont_driver.c) and the record (cont_record.c). */
int cont_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc, char **argv);
/* Plan the pairs (a bad plan is bad input: the line, HPCP_EXIT_USAGE), their
 * hops, and the message buffers. */
int cont_setup(struct hpcp_bench *b, cont_planner plan);
void cont_teardown(struct hpcp_bench *b);
/* `hpcprobe-bench topology show`: the resolved topology as one JSON line. */
int cont_show_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                     char **argv);

/* Rank 0's view of a run: per phase, size and repetition the mean, min and
 * max over the phase's pairs of the first rank's time per message, and for
 * wocon and wicon every pair's time: pair[(size * R + rep) * npairs + i]. */
struct cont_results {
    int G, S, R;
    double *mean, *min, *max;          /* [G][S][R] */
    double *pair;                      /* wocon, wicon; NULL otherwise */
    long long wrong;
};
/* Rank 0: the record of R (the harness appends, prints and frees it). */
void cont_build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                       const struct hpcp_bench *b, const struct cont_results *R);
void cont_print(const struct hpcp_kernel *k, const struct cont_state *s,
                const struct cont_results *R);

/* describe (cont_params.c): the options of contention and topology, and
 * what each kernel records. */
extern const struct hpcp_options_desc cont_options_desc;
extern const struct hpcp_records_desc cont_wocon_records, cont_stress_records,
    cont_equidistant_records, cont_show_records;

#endif
