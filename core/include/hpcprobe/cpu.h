/* Facts of the CPU a rank runs on, found at run time (runtime/cpu.c): the
 * instruction sets it has, whether its time-stamp counter is invariant, its
 * clock measured by a chain of dependent adds, and the TSC's rate. What
 * cannot be found stays unknown (0 or -1), never a default: the records say
 * so (docs/kernels/peak.md). */
#ifndef HPCPROBE_CPU_H
#define HPCPROBE_CPU_H
#include <stddef.h>
#include <stdint.h>

/* The instruction sets that matter for a flop rate: 1 when the CPU (and the
 * OS, for the wide registers) has them. */
struct hpcp_cpu_isa {
    int sse2, avx, avx2, fma, avx512f; /* x86-64 */
    int neon, sve;                     /* aarch64: asimd, sve */
    const char *source;                /* "cpuid", "hwcap" or "unknown" */
};

void hpcp_cpu_isa_get(struct hpcp_cpu_isa *isa);

/* "sse2,avx,avx2,fma,avx512f" (those present, in that order; "" when none)
 * into buf. Returns buf. */
const char *hpcp_cpu_isa_text(const struct hpcp_cpu_isa *isa, char *buf, size_t len);

/* 1 when the TSC runs at one rate whatever the core's clock and sleep state
 * (CPUID 0x80000007 EDX bit 8), 0 when not, -1 unknown (not x86-64). */
int hpcp_cpu_tsc_invariant(void);

/* Adds per pass of the chain: each depends on the one before, so a pass
 * takes HPCP_CPU_CHAIN_ADDS cycles on a core that adds in one cycle. */
#define HPCP_CPU_CHAIN_ADDS 64

/* 1 when this build has the add chain (x86-64, aarch64), else 0. */
int hpcp_cpu_has_add_chain(void);

/* Run `passes` passes of the dependent add chain, in inline assembly; the
 * chain's final count (passes x HPCP_CPU_CHAIN_ADDS when it ran right), 0
 * where there is no chain. */
uint64_t hpcp_cpu_add_chain(uint64_t passes);

/* One clock measurement: the rate, and what it rests on (for validation). */
struct hpcp_cpu_clock_run {
    double hz;        /* adds per second of the fastest slice; 0 unknown */
    double seconds;   /* wall time of all slices */
    uint64_t adds;    /* adds asked for, over all slices */
    uint64_t count;   /* what the chains counted, over all slices */
};

/* Measure for about `seconds` (at least 1 ms): a few slices of the chain,
 * each timed with the monotonic clock; the rate is the fastest slice's, so
 * a slice that lost the core to another process does not lower it. 0, or -1
 * where there is no chain (run->hz 0). */
int hpcp_cpu_clock_measure(double seconds, struct hpcp_cpu_clock_run *run);

/* The measured core clock in Hz, 0 unknown (hpcp_cpu_clock_measure). */
double hpcp_cpu_clock(double seconds);

/* TSC ticks per second of monotonic time over about `seconds`, x86-64 only;
 * 0 elsewhere. */
double hpcp_cpu_tsc_rate(double seconds);

/* Seconds of CLOCK_MONOTONIC (what the measurements above time with). */
double hpcp_cpu_now(void);

#endif
