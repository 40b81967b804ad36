/* Stressing a link (paper 004, Figures 10-11): on one line of the grid, the
 * middle pair alone, then with 1, 2, ... pairs around it whose messages
 * cross the middle link too; the middle pair's time is the result. */
#include "contention.h"

static int stress_setup(struct hpcp_bench *b)
{
    return cont_setup(b, cont_plan_stress);
}

const struct hpcp_kernel hpcp_contention_stress_link = {
    "contention",
    "stress-link",
    "exchange",
    "paper 004 Fig. 10: the middle pair of an axis with 0, 1, 2 ... pairs around it",
    cont_driver,
    stress_setup,
    cont_exchange_run,
    cont_verify,
    cont_teardown,
    NULL,
    &cont_options_desc,
    &cont_stress_records};
