/* What each ISA's loop does per instruction, and the chains' replay that
 * validates them (peak.h). */
#include <math.h>
#include <string.h>

#include "peak.h"

static const char *const isa_names[PEAK_ISAS] = {"avx512", "avx2", "sse2", "neon", "scalar"};
/* Register bits, and whether one instruction is a fused multiply-add. */
static const int isa_bits[PEAK_ISAS] = {512, 256, 128, 128, 0};
static const int isa_fma[PEAK_ISAS] = {1, 1, 0, 1, 0};
/* latency (4 cycles on the cores we know) x FMA units, with room to spare:
 * AVX-512 and NEON cores have up to 2 and 4 units, AVX2 ones 2. */
static const int isa_chains[PEAK_ISAS] = {16, 12, 12, 16, 12};

const char *peak_isa_name(enum peak_isa isa)
{
    return isa >= 0 && isa < PEAK_ISAS ? isa_names[isa] : "unknown";
}

const char *peak_precision_name(enum peak_precision p)
{
    return p == PEAK_SINGLE ? "single" : "double";
}

int peak_isa_usable(enum peak_isa isa, const struct hpcp_cpu_isa *cpu)
{
    int cpu_has = 0;
    switch (isa) {
    case PEAK_AVX512: cpu_has = cpu->avx512f; break;
    case PEAK_AVX2: cpu_has = cpu->avx2 && cpu->fma; break;
    case PEAK_SSE2: cpu_has = cpu->sse2; break;
    case PEAK_NEON: cpu_has = cpu->neon; break;
    case PEAK_SCALAR: cpu_has = 1; break;
    default: return 0;
    }
    return cpu_has && peak_loop(isa, PEAK_DOUBLE, 1) != NULL;
}

enum peak_isa peak_isa_widest(const struct hpcp_cpu_isa *cpu)
{
    for (int i = 0; i < PEAK_ISAS; i++)
        if (peak_isa_usable((enum peak_isa)i, cpu))
            return (enum peak_isa)i;
    return PEAK_SCALAR;
}

int peak_vector_bits(enum peak_isa isa, enum peak_precision p)
{
    if (isa < 0 || isa >= PEAK_ISAS)
        return 0;
    return isa_bits[isa] ? isa_bits[isa] : (p == PEAK_DOUBLE ? 64 : 32);
}

int peak_lanes(enum peak_isa isa, enum peak_precision p)
{
    return peak_vector_bits(isa, p) / (p == PEAK_DOUBLE ? 64 : 32);
}

int peak_has_fma(enum peak_isa isa)
{
    return isa >= 0 && isa < PEAK_ISAS && isa_fma[isa];
}

int peak_flops_per_instruction(enum peak_isa isa, enum peak_precision p)
{
    return (peak_has_fma(isa) ? 2 : 1) * peak_lanes(isa, p);
}

int peak_instructions_per_step(enum peak_isa isa)
{
    return peak_has_fma(isa) ? 1 : 2;
}

int peak_default_chains(enum peak_isa isa)
{
    return isa >= 0 && isa < PEAK_ISAS ? isa_chains[isa] : 12;
}

int peak_fma_units(double flops_per_s, double clock_hz, int flops_per_instruction)
{
    if (!(flops_per_s > 0) || !(clock_hz > 0) || flops_per_instruction <= 0)
        return 0;
    long units = lround(flops_per_s / (clock_hz * flops_per_instruction));
    return units < 1 ? 1 : (int)units;
}

double peak_start_value(int i)
{
    return 0.5 + i / 1024.0;
}

void peak_flops_reset(struct peak_flops_state *s)
{
    int n = s->chains * s->lanes;
    for (int i = 0; i < n; i++) {
        if (s->precision == PEAK_DOUBLE)
            ((double *)s->x)[i] = peak_start_value(i);
        else
            ((float *)s->x)[i] = (float)peak_start_value(i);
    }
}

/* The rounded map is monotone, so the chain stops at a fixed point: the
 * replay stops there as well. Volatile keeps the mul and the add rounded
 * apart where the compiler would fuse them. */
static double replay_double(int fused, double x, uint64_t steps)
{
    const double a = PEAK_A, b = PEAK_B;
    for (uint64_t i = 0; i < steps; i++) {
        double next;
        if (fused) {
            next = fma(x, a, b);
        } else {
            volatile double product = x * a;
            next = product + b;
        }
        if (next == x)
            break;
        x = next;
    }
    return x;
}

static float replay_float(int fused, float x, uint64_t steps)
{
    const float a = (float)PEAK_A, b = (float)PEAK_B;
    for (uint64_t i = 0; i < steps; i++) {
        float next;
        if (fused) {
            next = fmaf(x, a, b);
        } else {
            volatile float product = x * a;
            next = product + b;
        }
        if (next == x)
            break;
        x = next;
    }
    return x;
}

double peak_replay(enum peak_isa isa, enum peak_precision p, double start, uint64_t steps)
{
    if (p == PEAK_DOUBLE)
        return replay_double(peak_has_fma(isa), start, steps);
    return replay_float(peak_has_fma(isa), (float)start, steps);
}

uint64_t peak_flops_wrong(const struct peak_flops_state *s)
{
    uint64_t wrong = 0, steps = s->loops * PEAK_ROUNDS;
    int n = s->chains * s->lanes;
    for (int i = 0; i < n; i++) {
        double want = peak_replay(s->isa, s->precision, peak_start_value(i), steps);
        double got = s->precision == PEAK_DOUBLE ? ((const double *)s->x)[i]
                                                 : (double)((const float *)s->x)[i];
        /* bitwise: FMA, and a mul then an add, are exactly rounded */
        wrong += !(got == want);
    }
    return wrong;
}

double peak_flops_per_rep(const struct peak_flops_state *s)
{
    return 2.0 * (double)s->chains * s->lanes * (double)s->loops * PEAK_ROUNDS;
}
