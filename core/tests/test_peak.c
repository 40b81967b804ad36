/* The peak family and the CPU facts (peak.h, cpu.h): flops per instruction
 * for each ISA and precision; the clock measured on a known busy loop; the
 * FMA units' rounding; the SMBIOS type 17 parser and the link rates, read
 * from a made-up sysfs tree through HPCPROBE_SYSFS_ROOT; and validation
 * failing when a lane of a hand-made state is wrong. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hpcprobe/cpu.h"
#include "hpcprobe/numa.h"
#include "peak.h"

static void flops_per_instruction_table(void)
{
    /* ISA, double's lanes, flops per instruction double, single */
    static const int want[PEAK_ISAS][3] = {[PEAK_AVX512] = {8, 16, 32},
                                           [PEAK_AVX2] = {4, 8, 16},
                                           [PEAK_SSE2] = {2, 2, 4},
                                           [PEAK_NEON] = {2, 4, 8},
                                           [PEAK_SCALAR] = {1, 1, 1}};
    for (int i = 0; i < PEAK_ISAS; i++) {
        enum peak_isa isa = (enum peak_isa)i;
        CHECK(peak_lanes(isa, PEAK_DOUBLE) == want[i][0]);
        CHECK(peak_lanes(isa, PEAK_SINGLE) == 2 * want[i][0] || isa == PEAK_SCALAR);
        CHECK(peak_flops_per_instruction(isa, PEAK_DOUBLE) == want[i][1]);
        CHECK(peak_flops_per_instruction(isa, PEAK_SINGLE) == want[i][2]);
    }
    CHECK(peak_vector_bits(PEAK_AVX512, PEAK_SINGLE) == 512);
    CHECK(peak_vector_bits(PEAK_SCALAR, PEAK_DOUBLE) == 64);
    CHECK(peak_vector_bits(PEAK_SCALAR, PEAK_SINGLE) == 32);
    CHECK(peak_has_fma(PEAK_AVX2) && !peak_has_fma(PEAK_SSE2) && !peak_has_fma(PEAK_SCALAR));
    CHECK(peak_instructions_per_step(PEAK_SSE2) == 2 && peak_instructions_per_step(PEAK_NEON) == 1);
    CHECK(peak_default_chains(PEAK_AVX512) == 16 && peak_default_chains(PEAK_AVX2) == 12);
    CHECK(strcmp(peak_isa_name(PEAK_AVX512), "avx512") == 0);
    CHECK(peak_loop(PEAK_SCALAR, PEAK_DOUBLE, 0) == NULL);
    CHECK(peak_loop(PEAK_SCALAR, PEAK_DOUBLE, PEAK_MAX_CHAINS + 1) == NULL);
    CHECK(peak_loop(PEAK_SCALAR, PEAK_SINGLE, PEAK_MAX_CHAINS) != NULL);
}

static void fma_units_rounding(void)
{
    CHECK(peak_fma_units(58.9e9, 3.68e9, 16) == 1);  /* Zen 4, AVX-512 double */
    CHECK(peak_fma_units(2.4 * 16 * 3e9, 3e9, 16) == 2);
    CHECK(peak_fma_units(2.6 * 16 * 3e9, 3e9, 16) == 3);
    CHECK(peak_fma_units(0.3 * 8 * 3e9, 3e9, 8) == 1); /* shared core: still one unit */
    CHECK(peak_fma_units(1e9, 0, 8) == 0);             /* clock unknown */
    CHECK(peak_fma_units(0, 3e9, 8) == 0);
    CHECK(peak_fma_units(NAN, 3e9, 8) == 0);
}

/* The best of a few pairs: a loaded machine may take the core from one. */
static void clock_on_a_busy_loop(void)
{
    CHECK(hpcp_cpu_add_chain(0) == 0);
    if (!hpcp_cpu_has_add_chain()) {
        CHECK(hpcp_cpu_clock(0.01) == 0);
        return;
    }
    CHECK(hpcp_cpu_add_chain(1000) == 1000 * HPCP_CPU_CHAIN_ADDS);
    struct hpcp_cpu_clock_run run;
    CHECK(hpcp_cpu_clock_measure(0.05, &run) == 0);
    CHECK(run.count == run.adds && run.adds > 0 && run.seconds > 0);
    CHECK(run.hz >= 1e8 && run.hz <= 1e10);
    int agree = 0;
    for (int attempt = 0; attempt < 3 && !agree; attempt++) {
        double a = hpcp_cpu_clock(0.05), b = hpcp_cpu_clock(0.05);
        agree = a > 0 && b > 0 && fabs(a - b) <= 0.2 * (a > b ? a : b);
    }
    CHECK(agree);
}

static void isa_facts(void)
{
    struct hpcp_cpu_isa isa;
    char text[96];
    hpcp_cpu_isa_get(&isa);
#if defined(__x86_64__)
    CHECK(isa.sse2 == 1 && strcmp(isa.source, "cpuid") == 0);
    CHECK(strncmp(hpcp_cpu_isa_text(&isa, text, sizeof text), "sse2", 4) == 0);
    CHECK(hpcp_cpu_tsc_invariant() >= 0);
    CHECK(hpcp_cpu_tsc_rate(0.01) > 1e8);
#elif defined(__aarch64__)
    CHECK(strcmp(isa.source, "hwcap") == 0);
    CHECK(hpcp_cpu_tsc_invariant() == -1 && hpcp_cpu_tsc_rate(0.01) == 0);
#endif
    struct hpcp_cpu_isa made = {1, 1, 0, 1, 0, 0, 0, "cpuid"};
    CHECK(strcmp(hpcp_cpu_isa_text(&made, text, sizeof text), "sse2,avx,fma") == 0);
    CHECK(peak_isa_usable(PEAK_SCALAR, &made) && !peak_isa_usable(PEAK_AVX2, &made));
    CHECK(peak_isa_widest(&made) == (peak_isa_usable(PEAK_SSE2, &made) ? PEAK_SSE2 : PEAK_SCALAR));
}

/* A state filled by the replay itself, then spoilt one lane at a time. */
static void validation_of_a_hand_made_state(void)
{
    double x[2 * 4];
    struct peak_flops_state s = {PEAK_AVX2, PEAK_DOUBLE, 2, 4, 100, x, 1, NULL};
    for (int i = 0; i < 8; i++)
        x[i] = peak_replay(PEAK_AVX2, PEAK_DOUBLE, peak_start_value(i), 100 * PEAK_ROUNDS);
    CHECK(peak_flops_wrong(&s) == 0);
    x[5] = nextafter(x[5], 2.0);
    CHECK(peak_flops_wrong(&s) == 1);
    x[0] = NAN;
    CHECK(peak_flops_wrong(&s) == 2);
    float y[3 * 4];
    struct peak_flops_state f = {PEAK_SSE2, PEAK_SINGLE, 3, 4, 7, y, 1, NULL};
    peak_flops_reset(&f);
    CHECK(peak_flops_wrong(&f) == 12); /* the start values, not the steps' results */
    /* the chains stop moving: many more steps change nothing */
    double late = peak_replay(PEAK_AVX512, PEAK_DOUBLE, 0.5, 1u << 22);
    CHECK(late == peak_replay(PEAK_AVX512, PEAK_DOUBLE, 0.5, 1u << 23) && late > 0.99);
}

/* Every loop this CPU runs, timed part and all, passes its replay. */
static void the_loops_pass_their_replay(void)
{
    struct hpcp_cpu_isa cpu;
    hpcp_cpu_isa_get(&cpu);
    for (int i = 0; i < PEAK_ISAS; i++) {
        for (int p = 0; p < PEAK_PRECISIONS && peak_isa_usable((enum peak_isa)i, &cpu); p++) {
            enum peak_isa isa = (enum peak_isa)i;
            double x[PEAK_MAX_CHAINS * 16];
            struct peak_flops_state s = {isa, (enum peak_precision)p, 3, 0, 3000, x, 1, NULL};
            s.lanes = peak_lanes(isa, s.precision);
            s.loop = peak_loop(isa, s.precision, s.chains);
            CHECK(s.loop != NULL);
            peak_flops_reset(&s);
            s.loop(s.x, s.loops);
            CHECK(peak_flops_wrong(&s) == 0);
            CHECK(peak_flops_per_rep(&s) == 2.0 * 3 * s.lanes * 3000 * PEAK_ROUNDS);
        }
    }
}

/* --- what the machine says, from a made-up tree ------------------------ */

static char root[256];

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v & 0xFF), p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, unsigned long v)
{
    put16(p, (unsigned)(v & 0xFFFF)), put16(p + 2, (unsigned)(v >> 16));
}

/* A type 17 structure of `len` formatted bytes (0x5C: SMBIOS 3.3; 0x22: 2.7),
 * then the strings' double NUL. Returns its size. */
static size_t t17(unsigned char *raw, int len, unsigned size, unsigned width, unsigned speed,
                  unsigned configured, unsigned long ext_speed, unsigned long ext_configured)
{
    memset(raw, 0, 0x60);
    raw[0] = 17, raw[1] = (unsigned char)len;
    put16(raw + 0x0A, width), put16(raw + 0x0C, size), put16(raw + 0x15, speed);
    if (len >= 0x22)
        put16(raw + 0x20, configured);
    if (len >= 0x5C)
        put32(raw + 0x54, ext_speed), put32(raw + 0x58, ext_configured);
    return (size_t)len + 2;
}

static void make_dirs(const char *rel)
{
    char path[512], *p;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    mkdir(path, 0700);
}

static void write_bytes(const char *rel, const void *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

static void write_text(const char *dir, const char *file, const char *text)
{
    char rel[300];
    make_dirs(dir);
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    write_bytes(rel, text, strlen(text));
}

static void write_dimm(const char *entry, const unsigned char *raw, size_t n)
{
    char dir[128], rel[160];
    snprintf(dir, sizeof dir, "firmware/dmi/entries/%s", entry);
    make_dirs(dir);
    snprintf(rel, sizeof rel, "%s/raw", dir);
    write_bytes(rel, raw, n);
}

static void smbios_parser(void)
{
    unsigned char raw[0x60];
    struct peak_dimm d;
    CHECK(peak_smbios17_parse(raw, t17(raw, 0x5C, 0x4000, 64, 4800, 4400, 0, 0), &d) == 0);
    CHECK(d.populated && d.speed == 4400e6 && d.data_width_bits == 64); /* configured first */
    CHECK(peak_smbios17_parse(raw, t17(raw, 0x5C, 0, 0xFFFF, 0, 0, 0, 0), &d) == 0);
    CHECK(!d.populated && d.speed == 0 && d.data_width_bits == 0); /* an empty slot */
    CHECK(peak_smbios17_parse(raw, t17(raw, 0x5C, 0x4000, 64, 0xFFFF, 0xFFFF, 0, 0), &d) == 0);
    CHECK(d.populated && d.speed == 0); /* 0xFFFF with no extension: unknown */
    CHECK(peak_smbios17_parse(raw, t17(raw, 0x5C, 0x7FFF, 64, 0xFFFF, 0xFFFF, 8800, 8000), &d) ==
          0);
    CHECK(d.speed == 8000e6); /* the extended configured speed */
    CHECK(peak_smbios17_parse(raw, t17(raw, 0x5C, 0x4000, 64, 0xFFFF, 0, 8800, 0), &d) == 0);
    CHECK(d.speed == 8800e6); /* configured unknown: the extended speed */
    CHECK(peak_smbios17_parse(raw, t17(raw, 0x22, 0x2000, 72, 2666, 0, 0, 0), &d) == 0);
    CHECK(d.speed == 2666e6 && d.data_width_bits == 72);
    CHECK(peak_smbios17_parse(raw, t17(raw, 0x1B, 0x2000, 64, 2133, 0, 0, 0), &d) == 0);
    CHECK(d.speed == 2133e6); /* SMBIOS 2.3: no configured speed */
    raw[0] = 16;
    CHECK(peak_smbios17_parse(raw, 0x5C, &d) == -1);
    CHECK(peak_smbios17_parse(raw, 3, &d) == -1);
}

static void memory_from_the_tree(void)
{
    unsigned char raw[0x60];
    struct peak_memory m;
    peak_memory_read(hpcp_sysfs_root(), &m); /* nothing there yet */
    CHECK(m.bandwidth == 0 && m.devices == 0 && strncmp(m.source, "unknown: no SMBIOS", 18) == 0);
    write_dimm("17-0", raw, t17(raw, 0x5C, 0x4000, 64, 4800, 4400, 0, 0));
    write_dimm("17-1", raw, t17(raw, 0x5C, 0, 0xFFFF, 0, 0, 0, 0));
    write_dimm("17-2", raw, t17(raw, 0x5C, 0x4000, 64, 4800, 0, 0, 0));
    write_dimm("16-0", raw, t17(raw, 0x5C, 0x4000, 64, 1000, 0, 0, 0));
    peak_memory_read(hpcp_sysfs_root(), &m);
    CHECK(m.devices == 2 && m.transfer_rate == 4400e6 && m.data_width_bits == 64);
    CHECK(m.bandwidth == 2 * 4400e6 * 8);
    CHECK(strncmp(m.source, "SMBIOS type 17", 14) == 0 && strstr(m.source, "one DIMM per channel"));
    write_dimm("17-3", raw, t17(raw, 0x5C, 0x4000, 64, 0, 0, 0, 0)); /* speed unknown */
    peak_memory_read(hpcp_sysfs_root(), &m);
    CHECK(m.devices == 3 && m.bandwidth == 0 && strncmp(m.source, "unknown:", 8) == 0);
}

static void links_from_the_tree(void)
{
    struct peak_link l[PEAK_MAX_LINKS];
    CHECK(peak_links_read(hpcp_sysfs_root(), l, PEAK_MAX_LINKS) == 0);
    write_text("class/net/eth0", "speed", "25000\n");
    write_text("class/net/lo", "speed", "10000\n");
    write_text("class/net/eth1", "speed", "-1\n");
    write_text("class/net/wlan-0", "speed", "1000\n");
    write_text("class/net/veth7", "speed", "10000\n");
    make_dirs("devices/virtual/net/veth7");
    make_dirs("class/net/dummy0"); /* no speed file */
    write_text("class/infiniband/mlx5_0/ports/1", "rate", "100 Gb/sec (4X EDR)\n");
    write_text("class/infiniband/mlx5_0/ports/2", "rate", "bad\n");
    int n = peak_links_read(hpcp_sysfs_root(), l, PEAK_MAX_LINKS);
    CHECK(n == 3);
    CHECK(n == 3 && strcmp(l[0].name, "eth0") == 0 && l[0].rate == 25000e6 / 8);
    CHECK(n == 3 && strcmp(l[1].name, "mlx5_0_port1") == 0 && l[1].rate == 100e9 / 8);
    CHECK(n == 3 && strcmp(l[2].name, "wlan_0") == 0 && l[2].rate == 1000e6 / 8);
    CHECK(peak_ib_rate("2.5 Gb/sec (1X SDR)") == 2.5e9 / 8);
    CHECK(peak_ib_rate("") == 0 && peak_ib_rate("100 Mb/sec") == 0);
    CHECK(peak_eth_rate("-1") == 0 && peak_eth_rate("") == 0 && peak_eth_rate("100x") == 0);
    CHECK(peak_eth_rate("100000") == 100000e6 / 8);
}

static void peak_machine_tests(void)
{
    snprintf(root, sizeof root, "%s/hpcp_peak_XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(root) != NULL);
    setenv(HPCP_SYSFS_ROOT_ENV, root, 1);
    smbios_parser();
    memory_from_the_tree();
    links_from_the_tree();
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    unsetenv(HPCP_SYSFS_ROOT_ENV);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    flops_per_instruction_table();
    fma_units_rounding();
    clock_on_a_busy_loop();
    isa_facts();
    validation_of_a_hand_made_state();
    the_loops_pass_their_replay();
    peak_machine_tests();
    int rc = check_summary("test_peak");
    MPI_Finalize();
    return rc;
}
