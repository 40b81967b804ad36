/* The shared verifier, run on 1-4 ranks through the real kernels: a clean
 * run has no wrong words; flipped, doubled or missing updates are counted. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/record.h"
#include "hpcprobe/util.h"
#include "ra.h"

extern const struct hpcp_kernel hpcp_ra_single, hpcp_ra_mpi_reference;

enum tamper { NONE, FLIP3, DOUBLE_UPDATE, MISS10 };

static void tamper_with(struct ra_state *s, int rank, int ranks, enum tamper t)
{
    if (t == FLIP3 && rank == 0 && s->table.n >= 3)
        for (int i = 0; i < 3; i++)
            s->table.words[i] ^= 1;
    /* An update applied twice: its value XORed into its word once more. */
    if (t == DOUBLE_UPDATE && rank == ranks - 1 && s->table.n > 0)
        s->table.words[0] ^= s->my_start | (1ULL << 60);
    if (t == MISS10 && rank == 0 && s->active)
        s->executed -= 10; /* the replay now skips ten updates */
}

static double run_one(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, enum ra_rng rng,
                      enum tamper t)
{
    struct ra_state s;
    memset(&s, 0, sizeof s);
    s.p.table_log2 = 12;
    s.p.table_words = 1u << 12;
    s.p.rng = rng;
    s.p.lookahead = RA_MAX_LOOKAHEAD;
    s.p.updates_per_word = RA_UPDATES_PER_WORD;
    s.p.threads = 1;
    s.p.run.repeat = 1;
    s.p.run.verify = 1;
    s.p.hugepages = 1;
    struct hpcp_bench b = {MPI_COMM_WORLD, si->rank, si->ranks, si, &s, k};
    double seconds = 0, error = -1;
    CHECK(k->setup(&b) == 0);
    CHECK(k->run(&b, &seconds) == 0);
    CHECK(!s.active || s.executed == s.my_updates);
    tamper_with(&s, si->rank, si->ranks, t);
    CHECK(k->verify(&b, &error) == 0);
    k->teardown(&b);
    return error;
}

static void verdicts(void)
{
    struct hpcp_sysinfo si;
    memset(&si, 0, sizeof si);
    si.ranks = 1;
    struct hpcp_record r;
    double ok[] = {0, 5}, bad[] = {0, 200};
    hpcp_record_init(&r, "ra", "single", "serial", &si);
    hpcp_record_validation(&r, "m", "words", ok, 2, 163.84);
    CHECK(r.validation.verdict == HPCP_PASSED && r.validation.error == 5);
    hpcp_record_free(&r);
    hpcp_record_init(&r, "ra", "single", "serial", &si);
    hpcp_record_validation(&r, "m", "words", bad, 2, 163.84);
    CHECK(r.validation.verdict == HPCP_FAILED && r.validation.error == 200);
    hpcp_record_free(&r);
}

/* Fail safe: NaN and infinities fail whatever the tolerance, and a record that
 * no verifier touched is NOT_VALIDATED, which fails the run and is written as
 * such (status "failed", a verdict the reader refuses). */
static void fail_safe(void)
{
    struct hpcp_sysinfo si;
    memset(&si, 0, sizeof si);
    si.ranks = 1;
    struct hpcp_record r;
    double nan_last[] = {0, NAN}, nan_first[] = {NAN, 0}, inf[] = {INFINITY}, ok[] = {1};
    const double *bad[] = {nan_last, nan_first, inf};
    const int n[] = {2, 2, 1};
    for (int i = 0; i < 3; i++) {
        hpcp_record_init(&r, "ra", "single", "serial", &si);
        hpcp_record_validation(&r, "m", "words", bad[i], n[i], 1e300);
        CHECK(r.validation.verdict == HPCP_FAILED && hpcp_verdict_fails(r.validation.verdict));
        CHECK(i == 2 ? isinf(r.validation.error) : isnan(r.validation.error));
        hpcp_record_free(&r);
    }
    hpcp_record_init(&r, "ra", "single", "serial", &si);
    hpcp_record_validation(&r, "m", "words", ok, 1, NAN); /* a NaN tolerance passes nothing */
    CHECK(r.validation.verdict == HPCP_FAILED);
    hpcp_record_free(&r);
    hpcp_record_init(&r, "ra", "single", "serial", &si);
    CHECK(r.validation.verdict == HPCP_NOT_VALIDATED && hpcp_verdict_fails(HPCP_NOT_VALIDATED));
    hpcp_record_validation(&r, "m", "words", ok, 0, 1); /* no repetition verified */
    CHECK(r.validation.verdict == HPCP_NOT_VALIDATED);
    CHECK(hpcp_record_commit(&r, &si, NULL) == HPCP_EXIT_VALIDATION);
    char *line = hpcp_record_to_json(&r, &si);
    CHECK(line && strstr(line, "\"verdict\":\"not_validated\"") &&
          strstr(line, "\"status\":\"failed\""));
    free(line);
    hpcp_record_free(&r);
    CHECK(!hpcp_verdict_fails(HPCP_PASSED) && !hpcp_verdict_fails(HPCP_SKIPPED));
    CHECK(strcmp(hpcp_verdict_word(HPCP_NOT_VALIDATED), "NOT VALIDATED") == 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct hpcp_sysinfo si;
    hpcp_sysinfo_collect(&si, MPI_COMM_WORLD, argc, argv);
    const struct hpcp_kernel *kernels[] = {&hpcp_ra_single, &hpcp_ra_mpi_reference};
    for (int i = 0; i < 2; i++) {
        for (int rng = RA_RNG_POLY; rng <= RA_RNG_LCG; rng++) {
            CHECK(run_one(kernels[i], &si, (enum ra_rng)rng, NONE) == 0);
            CHECK(run_one(kernels[i], &si, (enum ra_rng)rng, FLIP3) == 3);
        }
        double missed = run_one(kernels[i], &si, RA_RNG_POLY, MISS10);
        CHECK(missed > 0 && missed <= 10);
    }
    CHECK(run_one(&hpcp_ra_mpi_reference, &si, RA_RNG_POLY, DOUBLE_UPDATE) == 1);
    verdicts();
    fail_safe();
    hpcp_sysinfo_free(&si);
    int failed = check_summary("test_verify");
    MPI_Finalize();
    return failed;
}
