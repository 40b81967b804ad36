/* Equidistant pairs (paper 004, Figures 12-13): every node paired with the
 * node n hops away along one axis, all pairs at once, one phase per n. */
#include "contention.h"

static int equidistant_setup(struct hpcp_bench *b)
{
    return cont_setup(b, cont_plan_equidistant);
}

const struct hpcp_kernel hpcp_contention_equidistant = {
    "contention",       "equidistant",
    "exchange",         "paper 004 Fig. 12: all pairs n hops apart along one axis, one curve per n",
    cont_driver,        equidistant_setup,
    cont_exchange_run,  cont_verify,
    cont_teardown,      NULL,
    &cont_options_desc, &cont_equidistant_records};
