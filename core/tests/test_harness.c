/* The harness: common options parsed once, and the phase order of
 * hpcp_harness_run with a toy kernel that logs what it is asked to do. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/harness.h"
#include "hpcprobe/util.h"

static const struct hpcp_optspec own[] = {
    {"--size", HPCP_OPT_INT, 1, 100, 0, 0, 0, NULL, 0, "a size", "1"},
};
static const struct hpcp_cli cli = {own,
                                    1,
                                    HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_SEED) |
                                        HPCP_TAKES(HPCP_COMMON_NO_VERIFY) |
                                        HPCP_TAKES(HPCP_COMMON_QUIET),
                                    2,
                                    5,
                                    0,
                                    42,
                                    NULL};

static int parse(int argc, char **argv, struct hpcp_optval *v, struct hpcp_common *c, char *err)
{
    return hpcp_cli_parse(&cli, argc, argv, "toy run", v, c, err, 256);
}

static void common_options(void)
{
    struct hpcp_optval v[1];
    struct hpcp_common c;
    char err[256];
    char *none[] = {"--size", "3"};
    CHECK(parse(2, none, v, &c, err) == 0 && v[0].i == 3);
    CHECK(c.repeat == 5 && c.warmup == 0 && c.seed == 42 && c.verify && !c.quiet && !c.out);
    CHECK(c.given == 0);
    char *all[] = {"--repeat", "7", "--seed=9", "--no-verify", "--quiet"};
    CHECK(parse(5, all, v, &c, err) == 0 && !v[0].set);
    CHECK(c.repeat == 7 && c.seed == 9 && !c.verify && c.quiet);
    CHECK(c.given == (HPCP_TAKES(HPCP_COMMON_REPEAT) | HPCP_TAKES(HPCP_COMMON_SEED) |
                      HPCP_TAKES(HPCP_COMMON_NO_VERIFY) | HPCP_TAKES(HPCP_COMMON_QUIET)));
    CHECK(hpcp_common_refused(&c, cli.takes) == -1);
    CHECK(hpcp_common_refused(&c, HPCP_TAKES(HPCP_COMMON_REPEAT)) == HPCP_COMMON_SEED);
    char *low[] = {"--repeat", "1"}; /* the family's lower bound */
    CHECK(parse(2, low, v, &c, err) == -1 && strstr(err, "an integer from 2 to 1000"));
    char *not_taken[] = {"--out", "x.jsonl"};
    CHECK(parse(2, not_taken, v, &c, err) == -1 && strstr(err, "unknown option '--out'"));
    char *typo[] = {"--repaet", "3"};
    CHECK(parse(2, typo, v, &c, err) == -1 && strstr(err, "did you mean '--repeat'"));
    CHECK(strcmp(hpcp_common_name(HPCP_COMMON_WARMUP), "--warmup") == 0);
}

/* The toy: each phase and hook appends one letter to the log. */
struct toy {
    char log[64];
    int n;
    double error;
};

static void note(struct hpcp_bench *b, char c)
{
    struct toy *t = b->state;
    if (t->n < 63)
        t->log[t->n++] = c;
}

static int toy_setup(struct hpcp_bench *b)
{
    note(b, 'S');
    return 0;
}
static int toy_run(struct hpcp_bench *b, double *s)
{
    note(b, 'r');
    *s = 1;
    return 0;
}
static void toy_teardown(struct hpcp_bench *b)
{
    note(b, 'T');
}
static void toy_keep(struct hpcp_bench *b, int rep, int warm, double s)
{
    (void)rep, (void)s;
    note(b, warm ? 'w' : 'k');
}

static int toy_verify(struct hpcp_bench *b, double *error)
{
    struct toy *t = b->state;
    note(b, 'v');
    *error = t->error;
    return 0;
}

static void toy_record(struct hpcp_record *r, struct hpcp_bench *b, const struct hpcp_checks *v)
{
    note(b, 'R');
    hpcp_record_init(r, "toy", "single", "log", b->si);
    if (v->n)
        hpcp_record_validation(r, "the toy's error", "1", v->error, v->n, 1.0);
    else
        hpcp_record_validation_skipped(r, "--no-verify");
}

static int toy_points(struct hpcp_bench *b)
{
    (void)b;
    return 2;
}
static int toy_point(struct hpcp_bench *b, int i)
{
    note(b, (char)('a' + i));
    return 0;
}

static const struct hpcp_kernel toy_kernel = {
    "toy",        "single",  "log",   "a kernel that logs its phases",
    NULL,         toy_setup, toy_run, toy_verify,
    toy_teardown, NULL,      NULL,    NULL};

/* sweep: 0 one point, 1 two points, 2 two points verified at the end. */
static const char *run_toy(struct hpcp_sysinfo *si, struct toy *t, int verify_each, int verify,
                           int sweep)
{
    struct hpcp_common c = {3, 2, 0, verify, 1, NULL, 0, 0.9};
    struct hpcp_family_hooks h = {.verify_each = verify_each,
                                  .verify_at_end = sweep == 2,
                                  .keep = toy_keep,
                                  .record = toy_record,
                                  .points = sweep ? toy_points : NULL,
                                  .point = sweep ? toy_point : NULL};
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, t, &toy_kernel};
    t->n = 0;
    memset(t->log, 0, sizeof t->log);
    int rc = hpcp_harness_run(&toy_kernel, &b, &c, &h);
    t->log[t->n++] = (char)('0' + rc);
    return t->log;
}

static void phase_order(struct hpcp_sysinfo *si)
{
    struct toy t = {.error = 0};
    CHECK(strcmp(run_toy(si, &t, 0, 1, 0), "SrwrwrkrkrkvRT0") == 0);
    CHECK(strcmp(run_toy(si, &t, 1, 1, 0), "SrwrwrkvrkvrkvRT0") == 0);
    CHECK(strcmp(run_toy(si, &t, 1, 0, 0), "SrwrwrkrkrkRT0") == 0);
    /* A sweep: each point prepared, then its own warm-up, repetitions and
     * verification, through the same run, keep and verify. */
    CHECK(strcmp(run_toy(si, &t, 0, 1, 1), "SarwrwrkrkrkvbrwrwrkrkrkvRT0") == 0);
    CHECK(strcmp(run_toy(si, &t, 1, 0, 1), "SarwrwrkrkrkbrwrwrkrkrkRT0") == 0);
    CHECK(strcmp(run_toy(si, &t, 0, 1, 2), "SarwrwrkrkrkbrwrwrkrkrkvRT0") == 0);
    t.error = 2; /* over the toy's tolerance: validation fails, exit status 1 */
    CHECK(strcmp(run_toy(si, &t, 0, 1, 0), "SrwrwrkrkrkvRT1") == 0);
}

static void toy_corrupt(struct hpcp_bench *b, uint64_t words)
{
    (void)words;
    note(b, 'c');
}

/* The loop alone, as mem's phases call it on their own ranks: no setup,
 * record or teardown; the corrupt hook after the last point's last run,
 * before its verification; each call's checks appended to the last's. */
static void loop_alone(struct hpcp_sysinfo *si)
{
    struct toy t = {.error = 0};
    struct hpcp_common c = {2, 1, 0, 1, 1, NULL, 0, 0.9};
    struct hpcp_family_hooks h = {
        .keep = toy_keep, .corrupt = toy_corrupt, .points = toy_points, .point = toy_point};
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &t, &toy_kernel};
    struct hpcp_checks v = {NULL, NULL, 0};
    memset(t.log, 0, sizeof t.log);
    setenv("HPCPROBE_INJECT_FAULT", "corrupt:1", 1);
    CHECK(hpcp_harness_loop(&toy_kernel, &b, &c, &h, &v) == 0 && v.n == 2);
    unsetenv("HPCPROBE_INJECT_FAULT");
    CHECK(hpcp_harness_loop(&toy_kernel, &b, &c, &h, &v) == 0 && v.n == 4);
    CHECK(strcmp(t.log, "arwrkrkvbrwrkrkcvarwrkrkvbrwrkrkv") == 0);
    hpcp_checks_free(&v);
    CHECK(v.n == 0 && !v.error && !v.seconds);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct hpcp_sysinfo si;
    hpcp_sysinfo_collect(&si, MPI_COMM_WORLD, argc, argv);
    common_options();
    phase_order(&si);
    loop_alone(&si);
    hpcp_sysinfo_free(&si);
    MPI_Finalize();
    return check_summary("test_harness");
}
