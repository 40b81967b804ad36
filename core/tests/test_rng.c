/* Generator jump-ahead, index functions and HPCC's table distribution. */
#include <mpi.h>
#include <stdint.h>

#include "check.h"
#include "hpcprobe/rng.h"
#include "ra_mpi.h"

static void known_values(void)
{
    CHECK(ra_rng_jump(RA_RNG_POLY, 0) == 1);
    CHECK(ra_rng_jump(RA_RNG_POLY, 1) == 2);
    CHECK(ra_rng_jump(RA_RNG_POLY, 63) == 0x8000000000000000ULL);
    CHECK(ra_rng_jump(RA_RNG_POLY, 64) == 7); /* x^64 = x^2 + x + 1 */
    CHECK(ra_rng_jump(RA_RNG_POLY, 65) == 14);
    CHECK(ra_rng_jump(RA_RNG_LCG, 0) == 1);
    CHECK(ra_rng_jump(RA_RNG_LCG, 1) == RA_LCG_MUL + RA_LCG_ADD);
    CHECK(ra_index(RA_RNG_POLY, 0xabcdULL, 8) == 0xcd);
    CHECK(ra_index(RA_RNG_LCG, 0xf000000000000001ULL, 4) == 0xf);
}

/* One pass of 2^20 steps, compared with jumps at many random points. */
static void jump_equals_steps(enum ra_rng rng)
{
    enum { STEPS = 1 << 20 };
    uint64_t seed = 42 + rng, r = ra_rng_jump(rng, 0), next_check = hpcp_splitmix64(&seed) % 4096;
    int checked = 0;
    for (uint64_t n = 0; n <= STEPS; n++) {
        if (n == next_check) {
            CHECK(ra_rng_jump(rng, n) == r);
            checked++;
            next_check += 1 + hpcp_splitmix64(&seed) % 8192;
        }
        r = ra_next(rng, r);
    }
    CHECK(checked > 200);
}

/* Far jumps: 1000 consecutive values after jump(n) equal jump(n + i). */
static void consecutive_after_jump(enum ra_rng rng)
{
    uint64_t seed = 7 + rng;
    for (int t = 0; t < 20; t++) {
        uint64_t n = hpcp_splitmix64(&seed) >> 4, r = ra_rng_jump(rng, n);
        int same = 1;
        for (uint64_t i = 1; i <= 1000; i++) {
            r = ra_next(rng, r);
            if (i % 97 == 0 || i == 1000)
                same &= r == ra_rng_jump(rng, n + i);
        }
        CHECK(same);
    }
}

/* Every index owned by exactly the rank whose slice holds it; the first
 * `rem` ranks hold one word more. */
static void distribution(void)
{
    for (int P = 1; P <= 9; P++) {
        for (int k = 4; k <= 10; k++) {
            struct ra_dist d;
            uint64_t N = 1ULL << k, next = 0;
            ra_dist_init(&d, N, P);
            int ok = 1;
            for (int r = 0; r < P; r++) {
                ok &= ra_dist_start(&d, r) == next;
                ok &= ra_dist_count(&d, r) == N / P + ((uint64_t)r < N % P);
                for (uint64_t g = next; g < next + ra_dist_count(&d, r); g++)
                    ok &= ra_dist_owner(&d, g) == r;
                next += ra_dist_count(&d, r);
            }
            CHECK(ok && next == N);
        }
    }
}

/* The depths the serial loop and the applier are tried at: none, the
 * smallest rings, and the largest. */
static const unsigned depths[] = {0, 1, 2, 64, RA_PREFETCH_AHEAD};

static int same_words(const uint64_t *a, const uint64_t *b, uint64_t n)
{
    int same = 1;
    for (uint64_t i = 0; i < n; i++)
        same &= a[i] == b[i];
    return same;
}

/* The kernels' serial update loop, plain or prefetching `ahead` updates,
 * applies exactly the updates of an independent plain loop over the same
 * stretch of the sequence, on a power-of-two table (HPCC's index bits) and
 * on one of `words` words (the index scaled by a multiply), for stretches
 * shorter and longer than the look-ahead. */
static void serial_loop_matches_plain(enum ra_rng rng, uint64_t words, unsigned ahead, uint64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    enum { MOST = 1 << 10 };
    static uint64_t fast[MOST], slow[MOST];
    const uint64_t pos = 12345;
    int pow2 = (words & (words - 1)) == 0, log2 = __builtin_ctzll(words);
    for (uint64_t i = 0; i < words; i++)
        fast[i] = slow[i] = i;
    CHECK(ra_update_serial(fast, words, rng, ahead, pos, n, 0) == n);
    uint64_t r = ra_rng_jump(rng, pos);
    for (uint64_t i = 0; i < n; i++) {
        r = ra_next(rng, r);
        slow[pow2 ? ra_index(rng, r, log2) : (uint64_t)(((u128)r * words) >> 64)] ^= r;
    }
    CHECK(same_words(fast, slow, words));
}

static void serial_loops(void)
{
    const uint64_t lengths[] = {0, 1, 100, 3 * (1u << 20) + 777};
    const uint64_t sizes[] = {1 << 10, 1000};
    for (int rng = RA_RNG_POLY; rng <= RA_RNG_LCG; rng++)
        for (size_t a = 0; a < sizeof depths / sizeof *depths; a++)
            for (size_t n = 0; n < sizeof lengths / sizeof *lengths; n++)
                for (size_t w = 0; w < sizeof sizes / sizeof *sizes; w++)
                    serial_loop_matches_plain((enum ra_rng)rng, sizes[w], depths[a], lengths[n]);
    /* The ring never holds more than the look-ahead allows. */
    CHECK(ra_serial_ahead(RA_LOOP_PLAIN, 1024) == 0);
    CHECK(ra_serial_ahead(RA_LOOP_PREFETCH, 1024) == RA_PREFETCH_AHEAD);
    CHECK(ra_serial_ahead(RA_LOOP_PREFETCH, 100) == 64);
    CHECK(ra_serial_ahead(RA_LOOP_PREFETCH, 5) == 4);
    CHECK(ra_serial_ahead(RA_LOOP_PREFETCH, 1) == 1);
}

/* The mpi algorithms' applier XORs every value it was given exactly once,
 * in the order given, whatever the depth (0: at once) and however the
 * values come (one list, many short ones, one at a time), holds at most its
 * depth, and holds nothing after a drain; on a part of the table that
 * starts at a global index other than 0. */
static void applier_applies_each_once(enum ra_rng rng, unsigned depth)
{
    enum { LOG2 = 12, WORDS = 1 << LOG2, PART = WORDS / 2, N = 5000 };
    static uint64_t part[PART], expect[PART], values[N];
    struct ra_state s = {.p = {.table_log2 = LOG2, .rng = rng}, .my_start = PART};
    s.table.words = part;
    uint64_t r = ra_rng_jump(rng, 77);
    size_t n = 0;
    while (n < N) { /* values this "rank" owns: global index in [PART, WORDS) */
        r = ra_next(rng, r);
        if (ra_index(rng, r, LOG2) >= PART)
            values[n++] = r;
    }
    for (uint64_t i = 0; i < PART; i++)
        part[i] = expect[i] = PART + i;
    for (size_t i = 0; i < N; i++)
        expect[ra_index(rng, values[i], LOG2) - PART] ^= values[i];
    struct ra_applier a;
    ra_applier_init(&a, &s, depth);
    ra_applier_add(&a, values, 1000);
    for (size_t at = 1000; at < 3000; at += 7)
        ra_applier_add(&a, values + at, at + 7 <= 3000 ? 7 : 3000 - at);
    for (size_t i = 3000; i < N; i++)
        ra_applier_add(&a, values + i, 1);
    CHECK(a.held <= depth);
    ra_applier_drain(&a);
    CHECK(a.held == 0);
    CHECK(same_words(part, expect, PART));
}

static void appliers(void)
{
    for (int rng = RA_RNG_POLY; rng <= RA_RNG_LCG; rng++)
        for (size_t d = 0; d < sizeof depths / sizeof *depths; d++)
            applier_applies_each_once((enum ra_rng)rng, depths[d]);
    CHECK(ra_prefetch_depth(0) == 0);
    CHECK(ra_prefetch_depth(1) == 1);
    CHECK(ra_prefetch_depth(100) == 64);
    CHECK(ra_prefetch_depth(1 << 20) == RA_PREFETCH_AHEAD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    known_values();
    jump_equals_steps(RA_RNG_POLY);
    jump_equals_steps(RA_RNG_LCG);
    consecutive_after_jump(RA_RNG_POLY);
    consecutive_after_jump(RA_RNG_LCG);
    distribution();
    serial_loops();
    appliers();
    MPI_Finalize();
    return check_summary("test_rng");
}
