/* HPCPROBE_LINK_LIMIT (link.h): the strict parser, the judgement of a
 * stream against the limit, the failed record it leaves, the rates as
 * written. */
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/link.h"
#include "hpcprobe/record.h"

static int parse(const char *text, struct hpcp_link_limit *l)
{
    char err[256] = "";
    int rc = hpcp_link_limit_parse(text, l, err, sizeof err);
    CHECK((rc < 0) == (err[0] != '\0'));
    return rc;
}

static void parses_the_launchers_form(void)
{
    struct hpcp_link_limit l;
    CHECK(parse("50000000 h0-fabric", &l) == 1);
    CHECK(l.bytes_per_s == 50e6 && strcmp(l.name, "h0-fabric") == 0);
    CHECK(parse("1000 test-link", &l) == 1 && l.bytes_per_s == 1000);
    CHECK(parse("1e12 big", &l) == 1 && l.bytes_per_s == 1e12);
    CHECK(parse("2.5E+7 leaf0-root", &l) == 1 && l.bytes_per_s == 2.5e7);
    CHECK(parse("12.5 c1-h2-c1-h3", &l) == 1 && l.bytes_per_s == 12.5);
    char name[HPCP_LINK_NAME_MAX + 8] = "7 ";
    memset(name + 2, 'x', HPCP_LINK_NAME_MAX);
    CHECK(parse(name, &l) == 1 && strlen(l.name) == HPCP_LINK_NAME_MAX);
}

static void no_limit(void)
{
    struct hpcp_link_limit l = {1, "stale"};
    CHECK(parse(NULL, &l) == 0 && l.bytes_per_s == 0 && l.name[0] == '\0');
    CHECK(parse("", &l) == 0 && l.bytes_per_s == 0);
    CHECK(parse("0 h0-sw", &l) == 0 && l.bytes_per_s == 0);
    CHECK(parse("-5 h0-sw", &l) == 0 && l.bytes_per_s == 0);
    CHECK(parse("0.0 h0-sw", &l) == 0);
}

static void refuses_anything_else(void)
{
    static const char *const bad[] = {
        "abc",
        "50000000",
        "50000000 ",
        " 50000000 h0",
        "50000000  h0",
        "50000000\th0",
        "50000000 h0 extra",
        "50000000 h0\n",
        "5e h0",
        "5e+ h0",
        "0x10 h0",
        "inf h0",
        "nan h0",
        "1e999 h0",
        ".5 h0",
        "- h0",
        "50MB/s h0",
        "5,0 h0",
        "50000000 h0/sw",
        "50000000 h\x01",
        "+50 h0",
        "50000000 h0-sw ",
        "1..2 h0",
        "1.5.2 h0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct hpcp_link_limit l = {1, "stale"};
        CHECK(parse(bad[i], &l) == -1 && l.bytes_per_s == 0 && l.name[0] == '\0');
    }
    char name[HPCP_LINK_NAME_MAX + 8] = "7 ";
    memset(name + 2, 'x', HPCP_LINK_NAME_MAX + 1);
    struct hpcp_link_limit l;
    CHECK(parse(name, &l) == -1);
    char err[256];
    CHECK(hpcp_link_limit_parse("5 a\x1b[2J", &l, err, sizeof err) == -1);
    CHECK(strchr(err, '\x1b') == NULL);      /* the value is echoed printable only */
    CHECK(strstr(err, "50000000 h0-fabric") != NULL); /* and the form it should take */
}

static void judges_long_streams_above_the_margin(void)
{
    struct hpcp_link_limit l = {50e6, "h0-fabric"}, none = {0, ""};
    double mib = 1 << 20;
    CHECK(hpcp_link_exceeded(&l, 7.9e9, mib));
    CHECK(hpcp_link_exceeded(&l, 1.11 * 50e6, 4 * mib));
    CHECK(!hpcp_link_exceeded(&l, 1.09 * 50e6, 4 * mib)); /* within the margin */
    CHECK(!hpcp_link_exceeded(&l, 48.1e6, mib));
    CHECK(!hpcp_link_exceeded(&l, 7.9e9, mib / 2)); /* too short to judge */
    CHECK(!hpcp_link_exceeded(&none, 7.9e9, mib));
    CHECK(!hpcp_link_exceeded(NULL, 7.9e9, mib));
    CHECK(!hpcp_link_exceeded(&l, NAN, mib));
}

static void fails_the_record_and_names_the_link(void)
{
    struct hpcp_sysinfo si;
    memset(&si, 0, sizeof si);
    struct hpcp_record r;
    hpcp_record_init(&r, "pairs", "bandwidth", "tournament", &si);
    double zero = 0;
    hpcp_record_validation(&r, "patterns", "1", &zero, 1, 0);
    struct hpcp_link_limit l = {50e6, "h0-fabric"};
    CHECK(hpcp_link_check(&r, &l, "pairs, rank 0 to 1", 40e6, 16 << 20) == 0);
    CHECK(r.validation.verdict == HPCP_PASSED && r.nnotes == 0);
    CHECK(hpcp_link_check(&r, &l, "pairs, rank 0 to 1", 7.9e9, 16 << 20) == 1);
    CHECK(r.validation.verdict == HPCP_FAILED && r.nnotes == 1);
    CHECK(strcmp(r.validation.detail, r.notes[0]) == 0);
    CHECK(strstr(r.notes[0], "pairs, rank 0 to 1: inter-node bandwidth 7.9 GB/s is faster than "
                             "the link it crossed (h0-fabric, 50 MB/s)") == r.notes[0]);
    hpcp_record_free(&r);
    /* A wrong-data detail stays: the link's line goes to the notes. */
    hpcp_record_init(&r, "pairs", "bandwidth", "tournament", &si);
    hpcp_record_validation(&r, "patterns", "1", &zero, 1, 0);
    hpcp_record_validation_detail(&r, "rank 1 received wrong data");
    CHECK(hpcp_link_check(&r, &l, "x", 7.9e9, 16 << 20) == 1);
    CHECK(strcmp(r.validation.detail, "rank 1 received wrong data") == 0);
    CHECK(r.nnotes == 1 && strstr(r.notes[0], "h0-fabric") != NULL);
    hpcp_record_free(&r);
}

static void rates_in_decimal_units(void)
{
    char b[32];
    CHECK(strcmp(hpcp_format_rate(7.9e9, b, sizeof b), "7.9 GB/s") == 0);
    CHECK(strcmp(hpcp_format_rate(50e6, b, sizeof b), "50 MB/s") == 0);
    CHECK(strcmp(hpcp_format_rate(48.1e6, b, sizeof b), "48.1 MB/s") == 0);
    CHECK(strcmp(hpcp_format_rate(1000, b, sizeof b), "1 kB/s") == 0);
    CHECK(strcmp(hpcp_format_rate(12, b, sizeof b), "12 B/s") == 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    parses_the_launchers_form();
    no_limit();
    refuses_anything_else();
    judges_long_streams_above_the_margin();
    fails_the_record_and_names_the_link();
    rates_in_decimal_units();
    MPI_Finalize();
    return check_summary("test_link");
}
