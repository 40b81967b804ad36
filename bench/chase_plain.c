/* The peer of `hpcprobe mem latency` in bench/memory_vs_hpcc: the plainest
 * dependent-load loop over a random cycle of 64-byte lines, malloc'd (base
 * pages under THP "madvise"), timed with clock_gettime.
 * Usage: chase_plain BYTES LOADS; prints nanoseconds per load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: chase_plain BYTES LOADS\n");
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10) / 64;
    long loads = atol(argv[2]);
    char *lines = malloc(n * 64);
    size_t *order = malloc(n * sizeof *order);
    if (!lines || !order || n < 2 || loads < 1)
        return 1;
    uint64_t s = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = next(&s) % (i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        *(void **)(lines + order[i] * 64) = lines + order[(i + 1) % n] * 64;
    void **p = (void **)(lines + order[0] * 64);
    for (size_t i = 0; i < n && i < (size_t)loads; i++) /* warm the TLB and caches a little */
        p = *p;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < loads; i++)
        p = *p;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    printf("%.3f %p\n", ns / (double)loads, (void *)p);
    return 0;
}
