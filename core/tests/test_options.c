/* Declarative options: values, ranges, choices and suggestions, and each
 * value grammar's edge cases once (option_grammars.c). */
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/options.h"

static const struct hpcp_optspec spec[] = {
    {"--table-log2", HPCP_OPT_INT, 4, 50, 0, 0, 0, NULL, 0, "h", NULL},
    {"--memory-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL, 0, "h", "0.5"},
    {"--rng", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "poly|lcg", 0, "h", "poly"},
    {"--quiet", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL, 0, "h", NULL},
    {"--bytes", HPCP_OPT_BYTES, 8, 1 << 20, 0, 0, 0, NULL, 0, "h", "4K"},
    {"--sizes", HPCP_OPT_SIZES, 0, 1 << 30, 0, 0, 0, NULL, 64, "h", "0..4M"},
    {"--list", HPCP_OPT_LIST, 0, 0, 0, 0, 0, "a|bb|c", 3, "h", "all"},
    {"--grid", HPCP_OPT_GRID, 1, 1 << 24, 0, 0, 0, NULL, 3, "h", NULL},
};
enum { N = 8 };
static const struct hpcp_optspec *const sizes_spec = &spec[5];

static int parse(int argc, char **argv, struct hpcp_optval *v, char *err)
{
    return hpcp_parse_options(argc, argv, spec, N, v, "ra single", err, 256);
}

static void options(void)
{
    struct hpcp_optval v[N];
    char err[256];
    char *good[] = {"--table-log2", "20", "--rng=lcg", "--quiet", "--memory-fraction", "0.25"};
    CHECK(parse(6, good, v, err) == 0);
    CHECK(v[0].set && v[0].i == 20 && strcmp(v[2].s, "lcg") == 0 && v[3].set && v[1].d == 0.25);
    char *range[] = {"--table-log2", "60"};
    CHECK(parse(2, range, v, err) == -1 && strstr(err, "from 4 to 50"));
    char *open_low[] = {"--memory-fraction", "0"};
    CHECK(parse(2, open_low, v, err) == -1 && strstr(err, "> 0"));
    char *choice[] = {"--rng", "mt"};
    CHECK(parse(2, choice, v, err) == -1 && strstr(err, "poly|lcg"));
    char *typo[] = {"--tabel-log2", "5"};
    CHECK(parse(2, typo, v, err) == -1 && strstr(err, "did you mean '--table-log2'"));
    char *far[] = {"--zzzzzzzz"};
    CHECK(parse(1, far, v, err) == -1 && !strstr(err, "did you mean"));
    char *missing[] = {"--table-log2"};
    CHECK(parse(1, missing, v, err) == -1 && strstr(err, "needs a value"));
    char *flagval[] = {"--quiet=1"};
    CHECK(parse(1, flagval, v, err) == -1 && strstr(err, "takes no value"));
    char *notint[] = {"--table-log2", "2x"};
    CHECK(parse(2, notint, v, err) == -1);
    /* the grammars through the option parser: checked, counted, bytes in .i */
    char *kinds[] = {"--bytes", "2KiB", "--sizes", "0..1K", "--list", "c,a", "--grid", "2x3"};
    CHECK(parse(8, kinds, v, err) == 0);
    CHECK(v[4].i == 2048 && v[5].i == 12 && v[6].i == 2 && v[7].i == 2);
    char *small[] = {"--bytes", "4"};
    CHECK(parse(2, small, v, err) == -1 && strstr(err, "--bytes must be a positive size"));
    const char *names[] = {"single", "star", "mpi"};
    CHECK(strcmp(hpcp_suggest("singel", names, 3), "single") == 0);
    CHECK(hpcp_suggest("xyzzy", names, 3) == NULL);
}

static void bytes(void)
{
    uint64_t b = 0;
    CHECK(hpcp_parse_bytes("4096", &b) == 0 && b == 4096);
    CHECK(hpcp_parse_bytes("64K", &b) == 0 && b == 65536);
    CHECK(hpcp_parse_bytes("64k", &b) == 0 && b == 65536);
    CHECK(hpcp_parse_bytes("64KB", &b) == 0 && b == 65536);
    CHECK(hpcp_parse_bytes("64kib", &b) == 0 && b == 65536);
    CHECK(hpcp_parse_bytes("64KiB", &b) == 0 && b == 65536);
    CHECK(hpcp_parse_bytes("2G", &b) == 0 && b == (uint64_t)2 << 30);
    CHECK(hpcp_parse_bytes("1T", &b) == 0 && b == (uint64_t)1 << 40);
    CHECK(hpcp_parse_bytes("", &b) != 0);
    CHECK(hpcp_parse_bytes("0", &b) != 0);
    CHECK(hpcp_parse_bytes("-5M", &b) != 0);
    CHECK(hpcp_parse_bytes("12Q", &b) != 0);
    CHECK(hpcp_parse_bytes("4KiBx", &b) != 0);
    CHECK(hpcp_parse_bytes("18446744073709551616", &b) != 0); /* 2^64: strtoull saturates */
    CHECK(hpcp_parse_bytes("16777216T", &b) != 0);            /* 2^64 bytes */
    CHECK(hpcp_parse_bytes("16777215T", &b) == 0);
    char err[256];
    CHECK(hpcp_parse_size(&spec[4], "0", &b, err, sizeof err) != 0);
    CHECK(hpcp_parse_size(&spec[4], "2M", &b, err, sizeof err) != 0 && strstr(err, "not '2M'"));
    CHECK(hpcp_parse_size(&spec[4], "1M", &b, err, sizeof err) == 0 && b == 1 << 20);
}

static void sizes(void)
{
    uint64_t s[64];
    int n;
    char err[256];
    CHECK(hpcp_parse_sizes(sizes_spec, "0..4M", s, &n, err, sizeof err) == 0);
    CHECK(n == 24 && s[0] == 0 && s[1] == 1 && s[23] == ((uint64_t)4 << 20));
    CHECK(hpcp_parse_sizes(sizes_spec, "0,8,1k,64KiB", s, &n, err, sizeof err) == 0);
    CHECK(n == 4 && s[2] == 1024 && s[3] == 65536);
    CHECK(hpcp_parse_sizes(sizes_spec, "3..24", s, &n, err, sizeof err) == 0);
    CHECK(n == 4 && s[0] == 3 && s[3] == 24);
    CHECK(hpcp_parse_sizes(sizes_spec, "8,1K..4K", s, &n, err, sizeof err) == 0 && n == 4);
    CHECK(hpcp_parse_sizes(sizes_spec, "0..0", s, &n, err, sizeof err) == 0 && n == 1);
    CHECK(hpcp_parse_sizes(sizes_spec, "8,4", s, &n, err, sizeof err) != 0);
    CHECK(strstr(err, "--sizes must increase: 4 after 8") != NULL);
    CHECK(hpcp_parse_sizes(sizes_spec, "", s, &n, err, sizeof err) != 0 && strstr(err, "empty"));
    CHECK(hpcp_parse_sizes(sizes_spec, "8,", s, &n, err, sizeof err) != 0 && strstr(err, "empty"));
    CHECK(hpcp_parse_sizes(sizes_spec, ",8", s, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_sizes(sizes_spec, "8,,16", s, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_sizes(sizes_spec, "-1", s, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_sizes(sizes_spec, "2G", s, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_sizes(sizes_spec, "64..8", s, &n, err, sizeof err) != 0); /* reversed */
    CHECK(hpcp_parse_sizes(sizes_spec, "8..", s, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_sizes(sizes_spec, "99999999999999999999", s, &n, err, sizeof err) != 0);
    struct hpcp_optspec few = *sizes_spec;
    few.count_max = 8;
    CHECK(hpcp_parse_sizes(&few, "1..1G", s, &n, err, sizeof err) != 0);
    CHECK(strstr(err, "more than 8") != NULL);
    few.int_min = 1; /* contention's limits: no 0 */
    CHECK(hpcp_parse_sizes(&few, "0,8", s, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_sizes(&few, "16,1K..4K", NULL, &n, err, sizeof err) == 0 && n == 4);
}

static void lists(void)
{
    int items[3], n;
    char err[256];
    const struct hpcp_optspec *l = &spec[6];
    CHECK(hpcp_parse_list(l, "c,a", items, &n, err, sizeof err) == 0);
    CHECK(n == 2 && items[0] == 2 && items[1] == 0);
    CHECK(hpcp_parse_list(l, "all", items, &n, err, sizeof err) == 0 && n == 3 && items[2] == 2);
    CHECK(hpcp_parse_list(l, "none", items, &n, err, sizeof err) == 0 && n == 0);
    CHECK(hpcp_parse_list(l, "", items, &n, err, sizeof err) != 0 && strstr(err, "empty"));
    CHECK(hpcp_parse_list(l, "a,", items, &n, err, sizeof err) != 0 && strstr(err, "empty"));
    CHECK(hpcp_parse_list(l, "a,a", items, &n, err, sizeof err) != 0 && strstr(err, "repeated"));
    CHECK(hpcp_parse_list(l, "b", items, &n, err, sizeof err) != 0 && strstr(err, "unknown"));
    CHECK(hpcp_parse_list(l, "A", items, &n, err, sizeof err) != 0); /* names are exact */
    struct hpcp_optspec one = *l;
    one.int_min = 1; /* at least one: "none" is not a choice */
    CHECK(hpcp_parse_list(&one, "none", items, &n, err, sizeof err) != 0);
    one.count_max = 1;
    CHECK(hpcp_parse_list(&one, "a,c", items, &n, err, sizeof err) != 0 && strstr(err, "too many"));
}

static void grids(void)
{
    int dims[3], n;
    char err[256];
    const struct hpcp_optspec *g = &spec[7];
    CHECK(hpcp_parse_grid(g, "2x2x2", dims, &n, err, sizeof err) == 0 && n == 3 && dims[2] == 2);
    CHECK(hpcp_parse_grid(g, "7", dims, &n, err, sizeof err) == 0 && n == 1 && dims[0] == 7);
    CHECK(hpcp_parse_grid(g, "2x0", dims, &n, err, sizeof err) != 0 && strstr(err, "not a grid"));
    CHECK(hpcp_parse_grid(g, "2xa", dims, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_grid(g, "2x", dims, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_grid(g, "x2", dims, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_grid(g, "", dims, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_grid(g, "2x-2", dims, &n, err, sizeof err) != 0);
    CHECK(hpcp_parse_grid(g, "2x2x2x2", dims, &n, err, sizeof err) != 0); /* count limit */
    CHECK(hpcp_parse_grid(g, "99999999999999999999", dims, &n, err, sizeof err) != 0);
}

int main(int argc0, char **argv0)
{
    MPI_Init(&argc0, &argv0);
    options();
    bytes();
    sizes();
    lists();
    grids();
    MPI_Finalize();
    return check_summary("test_options");
}
