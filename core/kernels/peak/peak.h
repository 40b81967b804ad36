/* The peak family (docs/kernels/peak.md): the machine's limits, measured and
 * stated. `peak flops` times FMA chains per instruction set, `peak clock`
 * measures the clock and reads what the system says of its memory and
 * links. Family-private: only core/kernels/peak and its tests include it. */
#ifndef HPCP_PEAK_H
#define HPCP_PEAK_H
#include <stddef.h>
#include <stdint.h>

#include "hpcprobe/cpu.h"
#include "hpcprobe/harness.h"

/* --- instruction sets and precisions ------------------------------------- */

enum peak_isa { PEAK_AVX512, PEAK_AVX2, PEAK_SSE2, PEAK_NEON, PEAK_SCALAR, PEAK_ISAS };
enum peak_precision { PEAK_DOUBLE, PEAK_SINGLE, PEAK_PRECISIONS };

/* "avx512", "avx2", "sse2", "neon", "scalar"; "double", "single". */
const char *peak_isa_name(enum peak_isa isa);
const char *peak_precision_name(enum peak_precision p);
/* 1 when this build has the ISA's loops and the CPU runs them. */
int peak_isa_usable(enum peak_isa isa, const struct hpcp_cpu_isa *cpu);
/* The widest usable ISA (scalar at least). */
enum peak_isa peak_isa_widest(const struct hpcp_cpu_isa *cpu);
/* Bits of one register the loop works on (scalar: the element's). */
int peak_vector_bits(enum peak_isa isa, enum peak_precision p);
/* Elements per register. */
int peak_lanes(enum peak_isa isa, enum peak_precision p);
/* 1 when a chain step is one FMA instruction, 0 when it is a mul and an add. */
int peak_has_fma(enum peak_isa isa);
/* Flops one instruction of the loop does: 2 x lanes with FMA, lanes without. */
int peak_flops_per_instruction(enum peak_isa isa, enum peak_precision p);
/* Instructions of the loop a step of one chain takes (1 FMA, or mul + add). */
int peak_instructions_per_step(enum peak_isa isa);
/* Default independent chains: enough to hide the latency of every unit. */
int peak_default_chains(enum peak_isa isa);
/* Vector FMA (or mul, add) instructions a core retires per cycle, from a
 * measured per-core flop rate and clock: rounded to a whole number, at least
 * 1; 0 (unknown) when the clock or the rate is not positive. */
int peak_fma_units(double flops_per_s, double clock_hz, int flops_per_instruction);

/* --- the chains --------------------------------------------------------- */

#define PEAK_MAX_CHAINS 32
#define PEAK_ROUNDS 8 /* chain steps per loop pass, so the loop's own cost is small */
/* x = x * a + b: a < 1 and b = 1 - a, so every chain goes to 1 from below or
 * above and stays normal; fast enough that a replay of it ends soon (the
 * rounded map is monotone, so a chain stops at a fixed point and the replay
 * can stop there too). */
#define PEAK_A (1.0 - 1.0 / 4096)
#define PEAK_B (1.0 / 4096)

/* One loop: chains x lanes values at x (chain-major, unaligned), `loops`
 * passes of PEAK_ROUNDS steps each, back into x. */
typedef void (*peak_loop_fn)(void *x, uint64_t loops);
/* The loop for the ISA, precision and chains (1..PEAK_MAX_CHAINS), NULL
 * where this build has none. */
peak_loop_fn peak_loop(enum peak_isa isa, enum peak_precision p, int chains);

/* What `peak flops` runs on a rank. */
struct peak_flops_state {
    enum peak_isa isa;
    enum peak_precision precision;
    int chains, lanes;
    uint64_t loops; /* passes per timed repetition */
    void *x;        /* chains x lanes doubles or floats */
    int active;     /* this rank runs the timed part */
    peak_loop_fn loop;
};

/* Element i's start value: 0.5 + i/1024 (i < 512: exact in either precision). */
double peak_start_value(int i);
/* Fill s->x with the start values. */
void peak_flops_reset(struct peak_flops_state *s);
/* One element after `steps` steps of the scalar replay from `start`: fma()
 * (fmaf) where the ISA has FMA, else a rounded mul then a rounded add. */
double peak_replay(enum peak_isa isa, enum peak_precision p, double start, uint64_t steps);
/* Validation: the elements of s->x that differ from the replay of
 * s->loops x PEAK_ROUNDS steps (a NaN differs). */
uint64_t peak_flops_wrong(const struct peak_flops_state *s);
/* Flops of one repetition on one rank. */
double peak_flops_per_rep(const struct peak_flops_state *s);

/* --- what the machine says (peak_machine.c) ------------------------------ */

/* One SMBIOS type 17 entry (Memory Device). */
struct peak_dimm {
    int populated;       /* size not 0 */
    double speed;        /* T/s: configured speed, else speed; 0 unknown */
    int data_width_bits; /* 0 unknown */
};
/* Parse a raw type 17 structure (len bytes). 0, or -1 when it is not one. */
int peak_smbios17_parse(const unsigned char *raw, size_t len, struct peak_dimm *d);

/* The memory's stated bandwidth from <root>/firmware/dmi/entries/17-*./raw. */
struct peak_memory {
    int devices;            /* populated DIMMs */
    double transfer_rate;   /* T/s, the lowest over them; 0 unknown */
    int data_width_bits;    /* the narrowest; 0 unknown */
    double bandwidth;       /* B/s; 0 unknown */
    char source[200];       /* where it came from, or why unknown */
};
void peak_memory_read(const char *root, struct peak_memory *m);

#define PEAK_MAX_LINKS 16
struct peak_link {
    char name[64];
    double rate; /* B/s */
};
/* Ethernet speeds and InfiniBand port rates under root; the count. */
int peak_links_read(const char *root, struct peak_link *links, int max);
/* "100 Gb/sec (4X EDR)" -> 12.5e9 B/s; 0 when not a rate. */
double peak_ib_rate(const char *text);
/* An ethernet speed file's text in Mb/s -> B/s; 0 when unknown (-1, empty). */
double peak_eth_rate(const char *text);

/* --- options and drivers ------------------------------------------------ */

enum peak_flops_option {
    PEAK_OPT_ISA,
    PEAK_OPT_PRECISION,
    PEAK_OPT_CHAINS,
    PEAK_OPT_MIN_TIME,
    PEAK_FLOPS_OPTIONS
};
extern const struct hpcp_cli peak_flops_cli, peak_clock_cli;

/* Parse `context`'s argv on every rank (one error line on rank 0). */
int peak_parse(const struct hpcp_cli *cli, const char *context, int argc, char **argv,
               struct hpcp_optval *own, struct hpcp_common *c);

int peak_flops_driver(const struct hpcp_kernel *k, const struct hpcp_sysinfo *si, int argc,
                      char **argv);

#define PEAK_CLOCK_SECONDS 0.02 /* the clock measured before each flops repetition */

#endif
