/* Declarative options: values, ranges, choices and suggestions. */
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/options.h"

static const struct hpcp_optspec spec[] = {
    {"--table-log2", HPCP_OPT_INT, 4, 50, 0, 0, 0, NULL},
    {"--memory-fraction", HPCP_OPT_DOUBLE, 0, 0, 0.0, 0.9, 1, NULL},
    {"--rng", HPCP_OPT_CHOICE, 0, 0, 0, 0, 0, "poly|lcg"},
    {"--quiet", HPCP_OPT_FLAG, 0, 0, 0, 0, 0, NULL},
};
enum { N = 4 };

static int parse(int argc, char **argv, struct hpcp_optval *v, char *err)
{
    return hpcp_parse_options(argc, argv, spec, N, v, "ra single", err, 256);
}

int main(int argc0, char **argv0)
{
    MPI_Init(&argc0, &argv0);
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
    const char *names[] = {"single", "star", "mpi"};
    CHECK(strcmp(hpcp_suggest("singel", names, 3), "single") == 0);
    CHECK(hpcp_suggest("xyzzy", names, 3) == NULL);
    MPI_Finalize();
    return check_summary("test_options");
}
