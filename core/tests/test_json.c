/* JSON writer output, escaping, and the environment array check. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hpcprobe/json.h"

static void nested(void)
{
    struct hpcp_json j;
    hpcp_json_init(&j);
    hpcp_json_begin_object(&j, NULL);
    hpcp_json_string(&j, "s", "a\"b\\c\n\x01");
    hpcp_json_int(&j, "i", -3);
    hpcp_json_double(&j, "d", 2.0);
    hpcp_json_double(&j, "nan", NAN);
    hpcp_json_bool(&j, "t", 1);
    hpcp_json_begin_array(&j, "a");
    hpcp_json_uint(&j, NULL, 18446744073709551615ULL);
    hpcp_json_null(&j, NULL);
    hpcp_json_end_array(&j);
    hpcp_json_end_object(&j);
    const char *want = "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"i\":-3,\"d\":2.0,\"nan\":null,"
                       "\"t\":true,\"a\":[18446744073709551615,null]}";
    CHECK(!j.failed && strcmp(j.buf, want) == 0);
    hpcp_json_free(&j);
}

static void doubles_round_trip(void)
{
    double v[] = {0.1, 1e-300, 123456789.123456789, 6.02214076e23, -0.0};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        struct hpcp_json j;
        hpcp_json_init(&j);
        hpcp_json_double(&j, NULL, v[i]);
        CHECK(strtod(j.buf, NULL) == v[i]);
        hpcp_json_free(&j);
    }
}

static void string_arrays(void)
{
    CHECK(hpcp_json_is_string_array("[]"));
    CHECK(hpcp_json_is_string_array(" [\"hpcprobe\", \"ra\", \"a \\\"q\\\" \\u00e9\"] "));
    CHECK(!hpcp_json_is_string_array("[\"a\",]"));
    CHECK(!hpcp_json_is_string_array("[\"a\"] x"));
    CHECK(!hpcp_json_is_string_array("[1]"));
    CHECK(!hpcp_json_is_string_array("[\"a\\x\"]"));
    CHECK(!hpcp_json_is_string_array("{\"a\":1}"));
    CHECK(!hpcp_json_is_string_array("[\"unterminated]"));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    nested();
    doubles_round_trip();
    string_arrays();
    MPI_Finalize();
    return check_summary("test_json");
}
