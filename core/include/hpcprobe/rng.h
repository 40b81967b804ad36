/* The one small generator the kernels share for plans, shuffles and test
 * data: splitmix64 (Steele, Lea and Flood, 2014). RandomAccess keeps HPCC's
 * own generators (kernels/ra/ra.h), which its rules fix. */
#ifndef HPCPROBE_RNG_H
#define HPCPROBE_RNG_H
#include <stdint.h>

#define HPCP_GOLDEN_GAMMA 0x9e3779b97f4a7c15ULL /* 2^64 / golden ratio, odd */

/* splitmix64's output function: a bijection of 64-bit words that mixes every
 * input bit into every output bit. */
static inline uint64_t hpcp_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The next value of the stream whose state is *state (any start value). */
static inline uint64_t hpcp_splitmix64(uint64_t *state)
{
    return hpcp_mix64(*state += HPCP_GOLDEN_GAMMA);
}

/* order[0..n) = a seeded random permutation of 0..n-1 (Fisher-Yates). */
static inline void hpcp_shuffle(int *order, int n, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(hpcp_splitmix64(&state) % (uint64_t)(i + 1));
        int swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
}

#endif
