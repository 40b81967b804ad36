/* Check patterns for received data, and small helpers shared by comm, beff
 * and pairs (the sizes grammar is the runtime's: hpcp_parse_sizes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "hpcprobe/util.h"

/* A different 64-bit start for every (src, dst, iteration): a message sent
 * to the wrong rank, from the wrong rank or in the wrong call mismatches. */
static uint64_t pattern_seed(int src, int dst, long iteration)
{
    uint64_t z = (uint64_t)(uint32_t)src * 0x9E3779B97F4A7C15ULL ^
                 (uint64_t)(uint32_t)(dst + 1) * 0xC2B2AE3D27D4EB4FULL ^
                 (uint64_t)iteration * 0x165667B19E3779F9ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    return z ^ (z >> 27);
}

/* Word k of the pattern: distinct along the message, so shifted or
 * truncated data mismatches too. */
static uint64_t pattern_word(uint64_t seed, size_t k)
{
    return seed + (uint64_t)k * 0x9E3779B97F4A7C15ULL;
}

void comm_fill(void *buf, size_t n, int src, int dst, long iteration)
{
    uint64_t seed = pattern_seed(src, dst, iteration);
    unsigned char *b = buf;
    size_t words = n / 8;
    for (size_t k = 0; k < words; k++) {
        uint64_t w = pattern_word(seed, k);
        memcpy(b + 8 * k, &w, 8);
    }
    uint64_t last = pattern_word(seed, words);
    memcpy(b + 8 * words, &last, n % 8);
}

long comm_check(const void *buf, size_t n, int src, int dst, long iteration)
{
    uint64_t seed = pattern_seed(src, dst, iteration);
    const unsigned char *b = buf;
    for (size_t k = 0; 8 * k < n; k++) {
        uint64_t w = pattern_word(seed, k);
        size_t len = n - 8 * k < 8 ? n - 8 * k : 8;
        if (memcmp(b + 8 * k, &w, len) == 0)
            continue;
        const unsigned char *want = (const unsigned char *)&w;
        for (size_t i = 0; i < len; i++)
            if (b[8 * k + i] != want[i])
                return (long)(8 * k + i);
    }
    return -1;
}

/* Summing (r mod 5) + ((j + it) mod 3) over ranks r stays below 6 * ranks:
 * exact in a float for any realistic number of ranks. */
float comm_reduce_value(int rank, size_t j, long iteration)
{
    return (float)(rank % 5 + (int)((j + (size_t)iteration) % 3));
}

float comm_reduce_sum(int ranks, size_t j, long iteration)
{
    long full = ranks / 5, part = ranks % 5;
    long ranks_sum = full * 10 + part * (part - 1) / 2; /* sum of r mod 5, r < ranks */
    return (float)(ranks_sum + (long)ranks * (long)((j + (size_t)iteration) % 3));
}

int comm_begin(struct comm_params *p, const char *bench, const char *variant, int argc, char **argv,
               const struct hpcp_sysinfo *si, int min_ranks, const char *why, MPI_Comm *work,
               char *note, size_t notelen)
{
    int rc = comm_params_prepare(p, bench, variant, argc, argv, MPI_COMM_WORLD);
    if (!rc && si->ranks < min_ranks) {
        hpcp_error(MPI_COMM_WORLD,
                   "%s needs at least %d ranks, %d launched (%s; launch %d or "
                   "more)",
                   bench, min_ranks, si->ranks, why, min_ranks);
        rc = HPCP_EXIT_USAGE;
    }
    return rc ? rc : comm_place_apply(&p->place, MPI_COMM_WORLD, work, note, notelen);
}

struct hpcp_bench comm_bench(MPI_Comm work, const struct hpcp_sysinfo *si, void *state,
                             const struct hpcp_kernel *k)
{
    struct hpcp_bench b = {work, 0, 0, si, state, k};
    MPI_Comm_rank(work, &b.rank);
    MPI_Comm_size(work, &b.ranks);
    return b;
}

void comm_record_done(struct hpcp_record *r, MPI_Comm comm, const struct comm_params *p)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    comm_place_record(&p->place, comm, r);
    if (rank == 0 && hpcp_verdict_fails(r->validation.verdict))
        hpcp_error(MPI_COMM_SELF, "validation failed: %s", r->validation.detail);
}
