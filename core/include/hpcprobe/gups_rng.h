/* HPCC RandomAccess's generator, shared by the host's ra family and the
 * device's gpu ra: the shift register x^64 + x^2 + x + 1 over GF(2) (HPCC's
 * POLY) and its jump-ahead. Written once for both sides: under nvcc the
 * functions are __host__ __device__. */
#ifndef HPCPROBE_GUPS_RNG_H
#define HPCPROBE_GUPS_RNG_H
#include <stdint.h>

#ifdef __CUDACC__
#define HPCP_HOST_DEVICE __host__ __device__
#else
#define HPCP_HOST_DEVICE
#endif

#define HPCP_GUPS_POLY 0x7ULL /* x^64 = x^2 + x + 1 */

/* One step: r * x, reduced. */
static inline HPCP_HOST_DEVICE uint64_t hpcp_gups_next(uint64_t r)
{
    return (r << 1) ^ ((int64_t)r < 0 ? HPCP_GUPS_POLY : 0);
}

/* a * b mod (x^64 + x^2 + x + 1) over GF(2). */
static inline HPCP_HOST_DEVICE uint64_t hpcp_gups_mulmod(uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    for (int i = 63; i >= 0; i--) {
        r = hpcp_gups_next(r);
        if ((b >> i) & 1)
            r ^= a;
    }
    return r;
}

/* The state n steps after 1 (HPCC_starts): x^n by squaring, O(log n). */
static inline HPCP_HOST_DEVICE uint64_t hpcp_gups_starts(uint64_t n)
{
    uint64_t result = 1, base = 2; /* x^0, x^1 */
    for (; n; n >>= 1) {
        if (n & 1)
            result = hpcp_gups_mulmod(result, base);
        base = hpcp_gups_mulmod(base, base);
    }
    return result;
}

#endif
