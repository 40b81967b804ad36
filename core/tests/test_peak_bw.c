/* peak bandwidth: the working sets the sizing layer gives each level (made-up
 * nodes: private l1/l2, an l3 shared by 8 cores with 1 and 8 ranks, a level
 * too small to be measured apart, a level the node lacks, the memory cap),
 * the bytes each kernel counts, every ISA's kernels against their check
 * (a spoilt element must fail it), and the refusals of the options. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "peak_bw.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)

static void node(const char *spec, struct hpcp_node *n)
{
    char err[512];
    CHECK(hpcp_node_parse(spec, n, err, sizeof err) == 0);
}

static void sizes_of_a_shared_l3(void)
{
    struct hpcp_node n;
    struct hpcp_sized s;
    node("cores=16,l1=32K,l2=1MiB,l3=32MiB,l3-shared-by=8,memory=64GiB", &n);
    hpcp_size_peak_level(&n, 1, 1, 0.9, &s);
    CHECK(s.value == 16 * KIB && strstr(s.rule, "half of the l1") != NULL);
    hpcp_size_peak_level(&n, 8, 2, 0.9, &s); /* private: 8 ranks change nothing */
    CHECK(s.value == 512 * KIB);
    hpcp_size_peak_level(&n, 1, 3, 0.9, &s); /* one rank reaches all of it */
    CHECK(s.value == 16 * MIB);
    hpcp_size_peak_level(&n, 8, 3, 0.9, &s); /* 8 ranks: an eighth each, halved */
    CHECK(s.value == 2 * MIB && strstr(s.rule, "1/8 share") != NULL);
    hpcp_size_peak_level(&n, 16, 3, 0.9, &s); /* two instances: still 8 per instance */
    CHECK(s.value == 2 * MIB);
    hpcp_size_peak_level(&n, 1, HPCP_PEAK_LEVEL_MEMORY, 0.9, &s);
    struct hpcp_sized stream;
    hpcp_size_stream(&n, 1, 0.9, &stream);
    CHECK(s.value == 3 * stream.value && s.value >= 2 * 32 * MIB);
    CHECK(strstr(s.rule, "STREAM") != NULL);
}

static void sizes_skipped(void)
{
    struct hpcp_node n;
    struct hpcp_sized s;
    /* 16 MiB over 8 ranks is 2 MiB each, halved 1 MiB: under 2x the 2 MiB l2 */
    node("cores=16,l1=32K,l2=2MiB,l3=16MiB,l3-shared-by=8,memory=64GiB", &n);
    hpcp_size_peak_level(&n, 8, 3, 0.9, &s);
    CHECK(s.value == 0 && strncmp(s.rule, "skipped", 7) == 0 && strstr(s.rule, "l2") != NULL);
    hpcp_size_peak_level(&n, 1, 3, 0.9, &s); /* alone, the whole l3: measured */
    CHECK(s.value == 8 * MIB);
    node("cores=4,l1=32K,l2=1MiB,memory=8GiB", &n); /* no l3 */
    hpcp_size_peak_level(&n, 1, 3, 0.9, &s);
    CHECK(s.value == 0 && strstr(s.rule, "no l3") != NULL);
    /* the cap: 16 ranks' memory working sets stay under it */
    node("cores=16,l1=32K,l2=1MiB,l3=256MiB,memory=1GiB", &n);
    hpcp_size_peak_level(&n, 16, HPCP_PEAK_LEVEL_MEMORY, 0.25, &s);
    CHECK(s.value == 0 || (double)s.value * 16 <= hpcp_node_cap_bytes(&n, 0.25));
    CHECK(s.capped || s.value == 0);
}

static void bytes_counted(void)
{
    CHECK(peak_bw_bytes_per_element[PEAK_BW_LOAD] == 8);
    CHECK(peak_bw_bytes_per_element[PEAK_BW_COPY] == 16); /* read + write, as likwid-bench */
    CHECK(peak_bw_bytes_per_element[PEAK_BW_TRIAD] == 24); /* STREAM's */
    CHECK(peak_bw_elements(PEAK_BW_LOAD, 16 * KIB) == 2048);
    CHECK(peak_bw_elements(PEAK_BW_COPY, 16 * KIB) == 1024);
    CHECK(peak_bw_elements(PEAK_BW_TRIAD, 16 * KIB) == 680); /* 682, whole vectors of 8 */
    CHECK(peak_bw_bytes(PEAK_BW_LOAD, 2048, 10) == 8.0 * 2048 * 10);
    CHECK(peak_bw_bytes(PEAK_BW_COPY, 1024, 10) == 16.0 * 1024 * 10);
    CHECK(peak_bw_bytes(PEAK_BW_TRIAD, 680, 3) == 24.0 * 680 * 3);
    for (int k = 0; k < PEAK_BW_KERNELS; k++) {
        uint64_t moved = peak_bw_elements(k, 100000) * (uint64_t)peak_bw_bytes_per_element[k];
        CHECK(moved <= 100000 && moved + 8 * 24 > 100000);
    }
}

/* Kernel k of one ISA on n elements, with its plain or non-temporal stores:
 * right, then wrong with one element spoilt. */
static void kernel_checked(const struct peak_bw_isa *isa, int k, double *x[3], size_t n, int stores)
{
    struct peak_bw_state s;
    memset(&s, 0, sizeof s);
    struct peak_bw_params p = {.isa = isa, .stores = stores};
    s.p = p, s.kernel = k, s.n = n;
    memcpy(s.x, x, sizeof s.x);
    peak_bw_fill(k, s.x, n);
    peak_bw_sweep(&s, 3);
    CHECK(peak_bw_check(k, s.x, n, s.sum) == 0);
    if (k == PEAK_BW_LOAD) {
        x[0][n - 1] += 1; /* the last element: the loop's tail must read it too */
        peak_bw_sweep(&s, 1);
        CHECK(peak_bw_check(k, s.x, n, s.sum) == 1);
        CHECK(peak_bw_check(k, s.x, n, NAN) == 1);
        return;
    }
    double *out = k == PEAK_BW_COPY ? x[1] : x[0];
    out[n / 2] += 1;
    CHECK(peak_bw_check(k, s.x, n, 0) == 1);
    out[n / 3] = NAN;
    CHECK(peak_bw_check(k, s.x, n, 0) == 2);
}

/* Non-temporal stores: copy and triad at the memory level under auto, at
 * every level under nontemporal, never under plain, never for load, and
 * only where the ISA has them. */
static void stores_chosen(void)
{
    const struct peak_bw_isa *scalar = &peak_bw_isas[peak_bw_nisas - 1];
    for (int i = 0; i < peak_bw_nisas; i++) {
        const struct peak_bw_isa *isa = &peak_bw_isas[i];
        int has = isa->copy_nt != NULL;
        CHECK(peak_bw_uses_nt(isa, PEAK_BW_STORES_AUTO, PEAK_BW_MEMORY, PEAK_BW_COPY) == has);
        CHECK(peak_bw_uses_nt(isa, PEAK_BW_STORES_AUTO, PEAK_BW_MEMORY, PEAK_BW_TRIAD) == has);
        CHECK(!peak_bw_uses_nt(isa, PEAK_BW_STORES_AUTO, PEAK_BW_L2, PEAK_BW_COPY));
        CHECK(!peak_bw_uses_nt(isa, PEAK_BW_STORES_AUTO, PEAK_BW_CUSTOM, PEAK_BW_COPY));
        CHECK(peak_bw_uses_nt(isa, PEAK_BW_STORES_NT, PEAK_BW_L1, PEAK_BW_TRIAD) == has);
        CHECK(!peak_bw_uses_nt(isa, PEAK_BW_STORES_PLAIN, PEAK_BW_MEMORY, PEAK_BW_COPY));
        CHECK(!peak_bw_uses_nt(isa, PEAK_BW_STORES_NT, PEAK_BW_MEMORY, PEAK_BW_LOAD));
    }
    CHECK(scalar->copy_nt == NULL); /* plain C has no non-temporal store */
}

static void kernels_checked(void)
{
    size_t n = 1000; /* 15 unrolled steps and a tail */
    double *x[3];
    for (int a = 0; a < 3; a++)
        CHECK(posix_memalign((void **)&x[a], 64, n * sizeof(double)) == 0);
    int ran = 0;
    for (int i = 0; i < peak_bw_nisas; i++) {
        if (!peak_bw_isas[i].available())
            continue;
        ran++;
        for (int k = 0; k < PEAK_BW_KERNELS; k++) {
            kernel_checked(&peak_bw_isas[i], k, x, n - n % 8, PEAK_BW_STORES_PLAIN);
            kernel_checked(&peak_bw_isas[i], k, x, n - n % 8, PEAK_BW_STORES_NT);
        }
    }
    CHECK(ran >= 1); /* scalar at least */
    for (int a = 0; a < 3; a++)
        free(x[a]);
}

static void isa_refused(void)
{
    char err[256] = "";
    char here[64];
    peak_bw_isa_flags(here, sizeof here);
    const char *lacking = strstr(here, "sse2") ? "neon" : "avx512";
    CHECK(peak_bw_isa_pick(lacking, err, sizeof err) == NULL);
    CHECK(strstr(err, "lacks") != NULL && strchr(err, '\n') == NULL);
    CHECK(strstr(err, "allowed here: auto") != NULL);
    CHECK(peak_bw_isa_pick("mmx", err, sizeof err) == NULL && strstr(err, "unknown") != NULL);
    const struct peak_bw_isa *widest = peak_bw_isa_pick("auto", err, sizeof err);
    CHECK(widest != NULL && widest->available());
    CHECK(peak_bw_isa_pick("scalar", err, sizeof err) == &peak_bw_isas[peak_bw_nisas - 1]);
}

static int parse(const char *variant, int argc, char **argv, struct peak_bw_params *p, char *err)
{
    return peak_bw_params_parse(p, variant, argc, argv, err, 512);
}

static void options(void)
{
    struct peak_bw_params p;
    char err[512];
    char *ok[] = {"--levels", "memory,l1", "--kernels", "triad,load", "--min-time", "0.5"};
    CHECK(parse("bandwidth-star", 6, ok, &p, err) == 0);
    CHECK(p.star && p.nlevels == 2 && p.levels[0] == PEAK_BW_L1 && p.levels[1] == PEAK_BW_MEMORY);
    CHECK(p.nkernels == 2 && p.kernels[0] == PEAK_BW_TRIAD && p.min_time == 0.5);
    CHECK(parse("bandwidth-single", 0, NULL, &p, err) == 0);
    CHECK(!p.star && p.nlevels == 4 && p.nkernels == 3 && p.min_time == 0.1);
    char *both[] = {"--levels", "l1", "--working-set", "64K"};
    CHECK(parse("bandwidth-single", 4, both, &p, err) == -1 && strstr(err, "exclude") != NULL);
    char *custom[] = {"--working-set", "64K"};
    CHECK(parse("bandwidth-single", 2, custom, &p, err) == 0);
    CHECK(p.nlevels == 1 && p.levels[0] == PEAK_BW_CUSTOM && p.ws[PEAK_BW_CUSTOM] == 64 * KIB);
    char *zero[] = {"--min-time", "0"};
    CHECK(parse("bandwidth-single", 2, zero, &p, err) == -1);
    char *level[] = {"--levels", "l5"};
    CHECK(parse("bandwidth-single", 2, level, &p, err) == -1 && strchr(err, '\n') == NULL);
    /* levels on a node without l3: l3 skipped, the rest run */
    struct hpcp_node n;
    node("cores=4,l1=32K,l2=1MiB,memory=8GiB", &n);
    CHECK(parse("bandwidth-single", 0, NULL, &p, err) == 0);
    CHECK(peak_bw_levels(&p, &n, 1, err, sizeof err) == 0);
    CHECK(p.nlevels == 3 && p.levels[2] == PEAK_BW_MEMORY && p.skipped[PEAK_BW_L3][0]);
    char *l3[] = {"--levels", "l3"};
    CHECK(parse("bandwidth-single", 2, l3, &p, err) == 0);
    CHECK(peak_bw_levels(&p, &n, 1, err, sizeof err) == -1 && strstr(err, "no l3") != NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    sizes_of_a_shared_l3();
    sizes_skipped();
    bytes_counted();
    kernels_checked();
    stores_chosen();
    isa_refused();
    options();
    int rc = check_summary("test_peak_bw");
    MPI_Finalize();
    return rc;
}
