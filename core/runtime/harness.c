/* The harness (harness.h): common options, fault hooks, the per-repetition
 * loop and the commit, shared by every family. */
#include "hpcprobe/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcprobe/sizing.h"
#include "hpcprobe/util.h"

#define MAX_SPEC 64 /* hpcp_suggest looks at no more names than this */

/* Every family's common options, with the ranges and names they always had;
 * --repeat's lower bound is the family's (mem needs 2). */
static const struct hpcp_optspec common_spec[HPCP_COMMON_COUNT] = {
    [HPCP_COMMON_REPEAT] = {"--repeat", HPCP_OPT_INT, 1, 1000, 0, 0, 0, NULL, 0,
                            "timed repetitions", "1"},
    [HPCP_COMMON_WARMUP] =
        {"--warmup", HPCP_OPT_INT, 0, 100, 0, 0, 0, NULL, 0,
         "untimed repetitions before the timed ones (kept in the record as warm-up)", "0"},
    [HPCP_COMMON_SEED] = {"--seed", HPCP_OPT_INT, 0, 0x7fffffffffffffffLL, 0, 0, 0, NULL, 0,
                          "seed of the generated data or of the random plan", "1"},
    [HPCP_COMMON_NO_VERIFY] = {"--no-verify", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                               "skip verification (verdict skipped, exit status 0)", NULL},
    [HPCP_COMMON_OUT] =
        {"--out", HPCP_OPT_STRING, 0, 0, 0, 0, 0, NULL, 0,
         "append the record to FILE (JSON Lines, one write per record; default none)", NULL},
    [HPCP_COMMON_QUIET] = {"--quiet", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0,
                           "no human-readable lines on stdout", NULL},
    [HPCP_COMMON_MEMORY_CAP] = {"--memory-cap", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL, 0,
                                "what the ranks of a node allocate stays under F of its "
                                "available memory: default sizes shrink to fit, a size given "
                                "by hand that does not is refused (docs/sizing.md)",
                                "0.9"},
};

const char *hpcp_common_name(int option)
{
    return common_spec[option].name;
}

const struct hpcp_optspec *hpcp_common_spec(int option)
{
    return &common_spec[option];
}

int hpcp_common_refused(const struct hpcp_common *c, unsigned allowed)
{
    for (int o = 0; o < HPCP_COMMON_COUNT; o++)
        if ((c->given & HPCP_TAKES(o)) && !(allowed & HPCP_TAKES(o)))
            return o;
    return -1;
}

static void common_from_values(const struct hpcp_cli *cli, const struct hpcp_optval *v,
                               const int *slot, struct hpcp_common *c)
{
    memset(c, 0, sizeof *c);
    for (int o = 0; o < HPCP_COMMON_COUNT; o++)
        if (slot[o] >= 0 && v[slot[o]].set)
            c->given |= HPCP_TAKES(o);
#define GIVEN(o) (c->given & HPCP_TAKES(o))
    c->repeat = GIVEN(HPCP_COMMON_REPEAT) ? (int)v[slot[HPCP_COMMON_REPEAT]].i
                : cli->repeat_default     ? cli->repeat_default
                                          : 1;
    c->warmup =
        GIVEN(HPCP_COMMON_WARMUP) ? (int)v[slot[HPCP_COMMON_WARMUP]].i : cli->warmup_default;
    c->seed = GIVEN(HPCP_COMMON_SEED) ? (uint64_t)v[slot[HPCP_COMMON_SEED]].i : cli->seed_default;
    c->verify = !GIVEN(HPCP_COMMON_NO_VERIFY);
    c->quiet = GIVEN(HPCP_COMMON_QUIET) != 0;
    c->out = GIVEN(HPCP_COMMON_OUT) ? v[slot[HPCP_COMMON_OUT]].s : NULL;
    c->memory_cap =
        GIVEN(HPCP_COMMON_MEMORY_CAP) ? v[slot[HPCP_COMMON_MEMORY_CAP]].d : HPCP_DEFAULT_MEMORY_CAP;
#undef GIVEN
}

int hpcp_cli_parse(const struct hpcp_cli *cli, int argc, char **argv, const char *context,
                   struct hpcp_optval *own, struct hpcp_common *c, char *err, size_t errlen)
{
    struct hpcp_optspec spec[MAX_SPEC];
    struct hpcp_optval v[MAX_SPEC];
    int slot[HPCP_COMMON_COUNT], n = cli->n;
    if (n < 0 || n > MAX_SPEC) { /* a family table past the budget: a programming error */
        snprintf(err, errlen, "%s: %d options, more than the %d the parser takes", context, n,
                 MAX_SPEC);
        return -1;
    }
    memcpy(spec, cli->spec, (size_t)n * sizeof *spec);
    for (int o = 0; o < HPCP_COMMON_COUNT; o++) {
        slot[o] = -1;
        if (!(cli->takes & HPCP_TAKES(o)) || n == MAX_SPEC)
            continue;
        spec[n] = common_spec[o];
        if (o == HPCP_COMMON_REPEAT && cli->repeat_min)
            spec[n].int_min = cli->repeat_min;
        slot[o] = n++;
    }
    if (hpcp_parse_options(argc, argv, spec, n, v, context, err, errlen))
        return -1;
    memcpy(own, v, (size_t)cli->n * sizeof *own);
    common_from_values(cli, v, slot, c);
    return 0;
}

/* Parse "<what>:<number>" from HPCPROBE_INJECT_FAULT; -1 if absent. */
static long long fault_arg(const char *what)
{
    const char *spec = getenv("HPCPROBE_INJECT_FAULT");
    size_t n = strlen(what);
    if (!spec || strncmp(spec, what, n) != 0 || spec[n] != ':')
        return -1;
    char *end;
    long long v = strtoll(spec + n + 1, &end, 10);
    return (*end == '\0' && v >= 0) ? v : -1;
}

void hpcp_fault_point(int rank)
{
    if (fault_arg("exit") == rank) {
        fprintf(stderr, "hpcprobe-bench: injected fault: rank %d exits\n", rank);
        fflush(stderr);
        _exit(17);
    }
    if (fault_arg("hang") == rank) {
        fprintf(stderr, "hpcprobe-bench: injected fault: rank %d hangs\n", rank);
        fflush(stderr);
        for (;;)
            pause();
    }
}

uint64_t hpcp_fault_count(const char *what)
{
    long long v = fault_arg(what);
    return v > 0 ? (uint64_t)v : 0;
}

uint64_t hpcp_fault_corrupt_words(void)
{
    return hpcp_fault_count("corrupt");
}

uint64_t hpcp_fault_nan_words(void)
{
    return hpcp_fault_count("nan");
}

uint64_t hpcp_fault_lost_updates(void)
{
    return hpcp_fault_count("lose");
}

/* Rank 0: append, print, and the verdict; then every rank has the status. */
static int commit(MPI_Comm comm, struct hpcp_record *r, struct hpcp_bench *b, const char *out,
                  const struct hpcp_family_hooks *h, int quiet)
{
    int rank, rc = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        rc = hpcp_record_commit(r, b->si, out);
        if (h && h->print && !quiet)
            h->print(r, b);
    }
    hpcp_record_free(r);
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    return rc;
}

int hpcp_harness_commit(MPI_Comm comm, struct hpcp_record *r, const struct hpcp_sysinfo *si,
                        const char *out)
{
    struct hpcp_bench b = {comm, 0, 0, si, NULL, NULL};
    return commit(comm, r, &b, out, NULL, 1);
}

/* One run: the family's preparation, the kernel's timed run, its keeping. */
static int run_once(const struct hpcp_kernel *k, struct hpcp_bench *b,
                    const struct hpcp_family_hooks *h, int rep, int warm)
{
    double seconds = 0;
    if (h->before_run)
        h->before_run(b);
    int rc = k->run(b, &seconds);
    if (!rc && h->keep)
        h->keep(b, rep, warm, seconds);
    return rc;
}

/* Verification of the repetition just run: its error (worst rank, on rank 0)
 * and rank 0's time for it. */
static int check(const struct hpcp_kernel *k, struct hpcp_bench *b, struct hpcp_checks *v)
{
    double error = 0, worst = 0, t0 = MPI_Wtime();
    int rc = k->verify(b, &error);
    v->seconds[v->n] = MPI_Wtime() - t0;
    MPI_Reduce(&error, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, b->comm);
    v->error[v->n++] = worst;
    return rc;
}

/* The last timed repetition: the family's after-run step, then the fault
 * hook that spoils the result verification must catch. */
static int finish_last(struct hpcp_bench *b, const struct hpcp_family_hooks *h)
{
    int rc = h->after_last ? h->after_last(b) : 0;
    uint64_t words = hpcp_fault_corrupt_words();
    if (!rc && words && h->corrupt)
        h->corrupt(b, words);
    if (!rc && hpcp_fault_nan_words() && h->poison)
        h->poison(b);
    return rc;
}

/* One point's warm-up and timed repetitions; the fault point before the
 * first point's first timed one, the fault hooks after the last point's
 * last one. */
static int point_reps(const struct hpcp_kernel *k, struct hpcp_bench *b,
                      const struct hpcp_common *c, const struct hpcp_family_hooks *h,
                      struct hpcp_checks *v, int first, int final)
{
    int rc = 0;
    for (int i = 0; i < c->warmup && !rc; i++)
        rc = run_once(k, b, h, i, 1);
    if (!rc && first)
        hpcp_fault_point(b->rank);
    for (int i = 0; i < c->repeat && !rc; i++) {
        int last = i == c->repeat - 1;
        rc = run_once(k, b, h, i, 0);
        if (!rc && last && final)
            rc = finish_last(b, h);
        if (!rc && c->verify && (h->verify_each || (last && (final || !h->verify_at_end))))
            rc = check(k, b, v);
        if (!rc && h->rep_done)
            h->rep_done(b, i, v->n ? v->error[v->n - 1] : 0);
    }
    return rc;
}

/* Every point: its preparation, then its repetitions. */
static int sweep(const struct hpcp_kernel *k, struct hpcp_bench *b, const struct hpcp_common *c,
                 const struct hpcp_family_hooks *h, struct hpcp_checks *v, int points)
{
    int rc = 0;
    for (int p = 0; p < points && !rc; p++) {
        if (h->point)
            rc = h->point(b, p);
        if (!rc)
            rc = point_reps(k, b, c, h, v, p == 0, p == points - 1);
    }
    return rc;
}

/* Room for this loop's verifications (one per repetition of every point, at
 * most) after those v already holds. */
static int checks_grow(struct hpcp_bench *b, struct hpcp_checks *v, size_t more)
{
    size_t n = (size_t)v->n + more;
    double *error = realloc(v->error, (n ? n : 1) * sizeof(double));
    if (error)
        v->error = error;
    double *seconds = realloc(v->seconds, (n ? n : 1) * sizeof(double));
    if (seconds)
        v->seconds = seconds;
    if (!hpcp_any(b->comm, !error || !seconds))
        return 0;
    hpcp_error(b->comm, "%s %s: out of memory", b->kernel ? b->kernel->family : "harness",
               b->kernel ? b->kernel->variant : "run");
    return HPCP_EXIT_RUNTIME;
}

void hpcp_checks_free(struct hpcp_checks *v)
{
    free(v->error), free(v->seconds);
    v->error = v->seconds = NULL;
    v->n = 0;
}

int hpcp_harness_loop(const struct hpcp_kernel *k, struct hpcp_bench *b,
                      const struct hpcp_common *c, const struct hpcp_family_hooks *h,
                      struct hpcp_checks *v)
{
    int points = h->points ? h->points(b) : 1;
    int rc = checks_grow(b, v, (size_t)c->repeat * (size_t)(points > 0 ? points : 0));
    return rc ? rc : sweep(k, b, c, h, v, points);
}

int hpcp_harness_run(const struct hpcp_kernel *k, struct hpcp_bench *b, const struct hpcp_common *c,
                     const struct hpcp_family_hooks *h)
{
    struct hpcp_checks v = {NULL, NULL, 0};
    int rc = k->setup(b);
    if (rc) {
        if (h->setup_failed)
            h->setup_failed(b);
        /* a refusal of what was asked stays one (congestion's roles) */
        rc = rc == HPCP_EXIT_USAGE ? rc : HPCP_EXIT_RUNTIME;
    } else {
        if (h->plan)
            h->plan(b);
        rc = hpcp_harness_loop(k, b, c, h, &v);
    }
    if (!rc && h->record) {
        struct hpcp_record r;
        memset(&r, 0, sizeof r);
        h->record(&r, b, &v);
        rc = commit(b->comm, &r, b, c->out, h, c->quiet);
    } else if (!rc && h->print && !c->quiet && b->rank == 0) {
        h->print(NULL, b); /* a query: its output is what it found */
    }
    k->teardown(b);
    hpcp_checks_free(&v);
    return rc;
}
