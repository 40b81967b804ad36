/* Running one comm function's plan (comm_run.c) and its record
 * (comm_record.c). */
#ifndef HPCPROBE_COMM_RUN_H
#define HPCPROBE_COMM_RUN_H
#include "comm_measure.h"

#define COMM_MAX_GROUPS 32

/* One function: its sizes (after rounding and the memory check) and the
 * group sizes it runs on. */
struct comm_plan {
    const struct comm_function *fn;
    size_t sizes[COMM_MAX_SIZES];
    int nsizes, trimmed;
    int groups[COMM_MAX_GROUPS];
    int ngroups;
};

/* Collective over `work`: every group of the plan, a record each, through
 * the harness with k's phases. The exit status (the worst). */
int comm_run_plan(const struct hpcp_kernel *k, const struct comm_plan *pl,
                  const struct comm_params *p, MPI_Comm work, const struct hpcp_sysinfo *si,
                  const char *note);

/* What the record of one group holds besides the points. */
struct comm_group_info {
    int ranks, launched, nodes, ranks_per_node_max;
    const char *note;
    const struct comm_plan *plan;  /* for the table */
    const struct comm_point *points;
};

/* Rank 0 of the group: the record of `pl` from its points. */
void comm_build_record(struct hpcp_record *r, const struct comm_plan *pl,
                       const struct comm_params *p, const struct hpcp_sysinfo *si,
                       const struct comm_point *pts, const struct comm_group_info *g);
/* The table on stdout (a comm_print_fn; ctx: the struct comm_group_info). */
void comm_print(const struct hpcp_record *r, const void *ctx);

#endif
