/* WICON (paper 004, Figures 7-8): every rank in a pair, all pairs at once;
 * partners differ by one (nn), are neighbours on the grid (nn-torus), or
 * form a seeded random perfect matching (rnd). */
#include "contention.h"

static int wicon_setup(struct hpcp_bench *b)
{
    return cont_setup(b, cont_plan_wicon);
}

const struct hpcp_kernel hpcp_contention_wicon = {
    "contention",       "wicon",
    "exchange",         "paper 004 WICON: every rank paired (nn, nn-torus, rnd), all pairs at once",
    cont_driver,        wicon_setup,
    cont_exchange_run,  cont_verify,
    cont_teardown,      NULL,
    &cont_options_desc, &cont_wocon_records};
