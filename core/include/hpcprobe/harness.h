/* The harness every family runs through (runtime/harness.c): the options
 * every family shares, declared and parsed once; the phases setup ->
 * warm-up -> repetitions (run, verify) -> record -> commit; and the test-only
 * fault hooks (HPCPROBE_INJECT_FAULT), called from one place.
 *
 * A family hands the loop to hpcp_harness_run with a few hooks. A kernel
 * that times one repetition per `run` (ra, dgemm, beff, pairs) is one point;
 * a sweep (comm's message sizes, congestion's conditions, gpu copy's sizes,
 * contention's phases and sizes, stream's phases) says how many points it
 * has and prepares each, and every point's repetitions go through the same
 * run, keep and verify; a query (gpu info, topology show) has no record.
 * Every kernel has setup, run, verify and teardown
 * (core/tests/test_registry.c). mem's sweeps measure one copy alone, then
 * several at once, while the ranks outside a phase sleep rather than spin in
 * its collectives: they call hpcp_harness_loop once per phase, on that
 * phase's ranks and communicator, then build their record and call
 * hpcp_harness_commit on every rank. */
#ifndef HPCPROBE_HARNESS_H
#define HPCPROBE_HARNESS_H
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/kernel.h"
#include "hpcprobe/options.h"
#include "hpcprobe/record.h"

/* --- the common options ---------------------------------------------------- */

enum hpcp_common_option {
    HPCP_COMMON_REPEAT,     /* --repeat N: timed repetitions */
    HPCP_COMMON_WARMUP,     /* --warmup N: untimed-for-the-headline runs first */
    HPCP_COMMON_SEED,       /* --seed S: the data's or the plan's random stream */
    HPCP_COMMON_NO_VERIFY,  /* --no-verify: skip validation (the record says so) */
    HPCP_COMMON_OUT,        /* --out FILE: append the record (JSON Lines) */
    HPCP_COMMON_QUIET,      /* --quiet: no summary on stdout */
    /* --memory-cap F: what the ranks of a node allocate stays under F of its
     * available memory (sizing.h); taken by the families that size from
     * memory or the caches (mem, stream, ra, the dense ones) */
    HPCP_COMMON_MEMORY_CAP,
    HPCP_COMMON_COUNT
};
#define HPCP_TAKES(o) (1u << (o))
/* Every option of the loop (all but --memory-cap). */
#define HPCP_TAKES_ALL ((1u << HPCP_COMMON_MEMORY_CAP) - 1)

/* The common options' values, defaults filled in. */
struct hpcp_common {
    int repeat, warmup;
    uint64_t seed;
    int verify, quiet;
    const char *out;        /* NULL: the record goes nowhere */
    unsigned given;         /* HPCP_TAKES bits of those on the command line */
    double memory_cap;      /* --memory-cap, HPCP_DEFAULT_MEMORY_CAP when not given */
};

/* A family's command line: its own options, and which common ones it takes
 * (the others stay unknown options, as they always were for it). */
struct hpcp_cli {
    const struct hpcp_optspec *spec;  /* the family's own options */
    int n;
    unsigned takes;                   /* HPCP_TAKES bits */
    int repeat_min;                   /* 0: 1 */
    int repeat_default, warmup_default; /* repeat_default 0: 1 */
    uint64_t seed_default;
    /* What a common option means to this family, indexed by HPCP_COMMON_*
     * (congestion's --warmup also runs congestor rounds first), for
     * `describe`; NULL, or a NULL entry: the common help. */
    const char *const *common_help;
};

/* Parse argv against the family's options followed by the common ones it
 * takes: own[0..cli->n) as hpcp_parse_options fills them, the common ones
 * into *c. Returns 0, or -1 with one line in err. */
int hpcp_cli_parse(const struct hpcp_cli *cli, int argc, char **argv, const char *context,
                   struct hpcp_optval *own, struct hpcp_common *c, char *err, size_t errlen);

/* The spec of a common option (HPCP_COMMON_*), with its help and default. */
const struct hpcp_optspec *hpcp_common_spec(int option);

/* "--repeat" for HPCP_COMMON_REPEAT. */
const char *hpcp_common_name(int option);

/* The first common option in `given` that is not in `allowed` (HPCP_TAKES
 * bits), or -1: for a family whose variants take different options. */
int hpcp_common_refused(const struct hpcp_common *c, unsigned allowed);

/* --- the fault hooks -------------------------------------------------------- */

/* Test-only, from HPCPROBE_INJECT_FAULT ("exit:R", "hang:R"): rank R exits
 * with status 17 or sleeps forever when it reaches this call, which comes
 * before the first timed repetition. */
void hpcp_fault_point(int rank);
/* The N of "<what>:N" when N >= 1, else 0: a family's own fault (congestion's
 * "mute:1", congestors that loop and move nothing). */
uint64_t hpcp_fault_count(const char *what);
/* Words to corrupt from "corrupt:N" (0 when not set): rank 0 spoils them
 * after the last repetition, before verification. */
uint64_t hpcp_fault_corrupt_words(void);
/* "nan:N" (N >= 1): rank 0's floating-point result gets a NaN instead, after
 * the last repetition and before verification, which must fail it (0 when
 * not set). */
uint64_t hpcp_fault_nan_words(void);
/* "lose:N": a threaded RandomAccess run drops N updates on rank 0, which
 * stay counted as executed (tests of the error-rate study). */
uint64_t hpcp_fault_lost_updates(void);

/* --- the loop --------------------------------------------------------------- */

/* What verification found: per verified repetition, the worst rank's error
 * and its time; n = 0 under --no-verify. Valid on rank 0. */
struct hpcp_checks {
    double *error, *seconds;
    int n;
};

/* A family's part in hpcp_harness_run; NULL hooks are skipped. */
struct hpcp_family_hooks {
    /* 1: verify after every timed repetition (ra); 0: once, after the last
     * of each point. */
    int verify_each;
    /* A sweep whose checks add up over its points (contention): verify
     * once, after the last point's last repetition. */
    int verify_at_end;
    /* setup failed on some rank: say what could not be had (hpcp_error). */
    void (*setup_failed)(struct hpcp_bench *b);
    /* Once, after setup: the plan line (rank 0 unless --quiet). */
    void (*plan)(struct hpcp_bench *b);
    /* Before each timed run (star: a barrier, so every rank starts together). */
    void (*before_run)(struct hpcp_bench *b);
    /* After each run: keep repetition `rep` (warm: a warm-up). May be collective. */
    void (*keep)(struct hpcp_bench *b, int rep, int warm, double seconds);
    /* After the last timed run, before the fault hook and verification: 0 or
     * an HPCP_EXIT_* status (ra writes --dump-table here). */
    int (*after_last)(struct hpcp_bench *b);
    /* "corrupt:N": spoil `words` words of the result, so that verification
     * must fail. Called on every rank: a result held by rank 0 is spoilt
     * there, a replicated one (HPL's solution vector) on every rank. */
    void (*corrupt)(struct hpcp_bench *b, uint64_t words);
    /* "nan:N": put a NaN into the result instead (floating-point families).
     * Called where corrupt is. */
    void (*poison)(struct hpcp_bench *b);
    /* After each timed repetition and its verification, if any (error: on
     * rank 0, the worst rank's; 0 when not verified). */
    void (*rep_done)(struct hpcp_bench *b, int rep, double error);
    /* A sweep: the number of points (collective; NULL: one), and before
     * point i's warm-up and repetitions, its preparation (0 or an
     * HPCP_EXIT_* status, the same on every rank). The fault point comes
     * before the first point's first timed repetition; verification after
     * each repetition (verify_each) or the last of each point; after_last,
     * corrupt and poison after the last repetition of the last point. */
    int (*points)(struct hpcp_bench *b);
    int (*point)(struct hpcp_bench *b, int i);
    /* Build the record: collective, complete on rank 0. NULL: a query that
     * measures nothing (gpu info, topology show) and writes no record; its
     * verify returns a failed check as the exit status itself. */
    void (*record)(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v);
    /* Rank 0 unless --quiet, after the record is built: the summary (a
     * query's: r NULL, after its verification passed). */
    void (*print)(const struct hpcp_record *r, struct hpcp_bench *b);
};

/* setup -> plan -> hpcp_harness_loop -> record -> commit -> teardown, for
 * kernel k with b->state set up by the family. Returns the HPCP_EXIT_*
 * status, the same on every rank. */
int hpcp_harness_run(const struct hpcp_kernel *k, struct hpcp_bench *b, const struct hpcp_common *c,
                     const struct hpcp_family_hooks *h);

/* The loop alone, collective over b->comm (which may be a subset of the
 * job's ranks, with b->rank the job's rank): per point (prepare -> warm-up
 * runs -> fault point, at the first point -> timed runs (run, keep, verify))
 * -> after_last, corrupt and poison after the last point's last run. Uses
 * only k->run and k->verify, and of h neither setup_failed, plan, record nor
 * print. The checks are appended to v (zeroed before the first call; free
 * with hpcp_checks_free). Returns 0 or an HPCP_EXIT_* status, the same on
 * every rank of b->comm. */
int hpcp_harness_loop(const struct hpcp_kernel *k, struct hpcp_bench *b,
                      const struct hpcp_common *c, const struct hpcp_family_hooks *h,
                      struct hpcp_checks *v);
void hpcp_checks_free(struct hpcp_checks *v);

/* --- the commit ------------------------------------------------------------- */

/* The end of every family: rank 0 appends the record it built to `out`
 * (NULL: nowhere); the exit status (write failure, failed validation, or 0)
 * is broadcast to every rank; the record is freed on every rank (zeroed or
 * initialised there). Collective over comm. */
int hpcp_harness_commit(MPI_Comm comm, struct hpcp_record *r, const struct hpcp_sysinfo *si,
                        const char *out);

#endif
