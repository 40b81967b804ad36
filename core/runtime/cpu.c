/* The CPU's facts at run time (cpu.h): instruction sets, the invariant TSC,
 * the clock measured by a dependent add chain, and the TSC's rate. */
#include "hpcprobe/cpu.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1UL << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#endif

/* Slices of one clock measurement: the fastest counts (cpu.h). */
#define CLOCK_SLICES 10

double hpcp_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void hpcp_cpu_isa_get(struct hpcp_cpu_isa *isa)
{
    memset(isa, 0, sizeof *isa);
    isa->source = "unknown";
#if defined(__x86_64__)
    /* libgcc's checks include the OS's (XGETBV) for the AVX registers. */
    __builtin_cpu_init();
    isa->sse2 = __builtin_cpu_supports("sse2") != 0;
    isa->avx = __builtin_cpu_supports("avx") != 0;
    isa->avx2 = __builtin_cpu_supports("avx2") != 0;
    isa->fma = __builtin_cpu_supports("fma") != 0;
    isa->avx512f = __builtin_cpu_supports("avx512f") != 0;
    isa->source = "cpuid";
#elif defined(__aarch64__)
    unsigned long hw = getauxval(AT_HWCAP);
    isa->neon = (hw & HWCAP_ASIMD) != 0;
    isa->sve = (hw & HWCAP_SVE) != 0;
    isa->source = "hwcap";
#endif
}

const char *hpcp_cpu_isa_text(const struct hpcp_cpu_isa *isa, char *buf, size_t len)
{
    const struct {
        int on;
        const char *name;
    } flags[] = {{isa->sse2, "sse2"}, {isa->avx, "avx"},         {isa->avx2, "avx2"},
                 {isa->fma, "fma"},   {isa->avx512f, "avx512f"}, {isa->neon, "neon"},
                 {isa->sve, "sve"}};
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof flags / sizeof flags[0] && len; i++) {
        if (!flags[i].on)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", flags[i].name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

int hpcp_cpu_tsc_invariant(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return 0; /* the leaf is absent: no invariant TSC is advertised */
    return (d >> 8) & 1u;
#else
    return -1;
#endif
}

#define ADD4(x) x x x x
#define ADD16(x) ADD4(ADD4(x))
#define ADD64(x) ADD4(ADD16(x))

int hpcp_cpu_has_add_chain(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

/* A register-to-register add: some cores fold an add of an immediate at
 * rename time, which would run the chain faster than the clock. */
uint64_t hpcp_cpu_add_chain(uint64_t passes)
{
    uint64_t count = 0, one = 1, n = passes;
    if (passes == 0)
        return 0;
#if defined(__x86_64__)
    __asm__ volatile("1:\n\t" ADD64("add %[one], %[c]\n\t") "dec %[n]\n\t"
                                                            "jnz 1b\n\t"
                     : [c] "+r"(count), [n] "+r"(n)
                     : [one] "r"(one)
                     : "cc");
#elif defined(__aarch64__)
    __asm__ volatile("1:\n\t" ADD64("add %[c], %[c], %[one]\n\t") "subs %[n], %[n], #1\n\t"
                                                                  "b.ne 1b\n\t"
                     : [c] "+r"(count), [n] "+r"(n)
                     : [one] "r"(one)
                     : "cc");
#else
    (void)one, (void)n;
#endif
    return count;
}

static double timed_chain(uint64_t passes, uint64_t *count)
{
    double t0 = hpcp_cpu_now();
    *count = hpcp_cpu_add_chain(passes);
    return hpcp_cpu_now() - t0;
}

int hpcp_cpu_clock_measure(double seconds, struct hpcp_cpu_clock_run *run)
{
    memset(run, 0, sizeof *run);
    if (!hpcp_cpu_has_add_chain())
        return -1;
    double slice = (seconds > 1e-3 ? seconds : 1e-3) / CLOCK_SLICES, t = 0;
    uint64_t passes = 256, count = 0;
    /* Grow until a slice is a quarter of its length, then size it. */
    while ((t = timed_chain(passes, &count)) < slice / 4 && passes < (1ULL << 40))
        passes *= 2;
    if (t > 0)
        passes = (uint64_t)((double)passes * slice / t) + 1;
    for (int i = 0; i < CLOCK_SLICES; i++) {
        t = timed_chain(passes, &count);
        run->seconds += t;
        run->adds += passes * HPCP_CPU_CHAIN_ADDS;
        run->count += count;
        double hz = t > 0 ? (double)(passes * HPCP_CPU_CHAIN_ADDS) / t : 0;
        if (hz > run->hz)
            run->hz = hz;
    }
    return 0;
}

double hpcp_cpu_clock(double seconds)
{
    struct hpcp_cpu_clock_run run;
    return hpcp_cpu_clock_measure(seconds, &run) ? 0 : run.hz;
}

double hpcp_cpu_tsc_rate(double seconds)
{
#if defined(__x86_64__)
    double t0 = hpcp_cpu_now(), t1;
    unsigned long long c0 = __rdtsc(), c1;
    do {
        t1 = hpcp_cpu_now();
        c1 = __rdtsc();
    } while (t1 - t0 < (seconds > 1e-3 ? seconds : 1e-3));
    return (double)(c1 - c0) / (t1 - t0);
#else
    (void)seconds;
    return 0;
#endif
}
