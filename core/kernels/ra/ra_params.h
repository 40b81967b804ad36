/* RandomAccess options and sizing (ra_params.c). */
#ifndef HPCPROBE_RA_PARAMS_H
#define HPCPROBE_RA_PARAMS_H
#include <stddef.h>

#include "hpcprobe/harness.h"
#include "hpcprobe/options.h"
#include "hpcprobe/sysinfo.h"
#include "ra.h"

#define RA_MIN_LOG2 4
#define RA_MAX_LOG2 50
#define RA_DEFAULT_MEMORY_FRACTION 0.5 /* HPCC: half of the memory */

/* RandomAccess's own options; --repeat, --warmup, --no-verify, --out and
 * --quiet are the harness's common ones. */
enum {
    RA_OPT_LOG2,
    RA_OPT_FRACTION,
    RA_OPT_RNG,
    RA_OPT_LOOKAHEAD,
    RA_OPT_NONCOMPLIANT,
    RA_OPT_TIME_LIMIT,
    RA_OPT_HUGEPAGES,
    RA_OPT_DUMP,
    RA_OPT_OWNER,
    RA_OPT_GRID,
    RA_OPT_DIMS,
    RA_OPT_MODS,
    RA_OPT_THREADS,
    RA_OPT_MODE,
    RA_OPT_SYNC,
    RA_OPT_ROLES,
    RA_OPT_OVERSUBSCRIBE,
    RA_OPT_UPDATES_PER_WORD,
    RA_OPT_OVERLAP,
    RA_OPT_LOOP,
    RA_OPT_SIZE_RULE,
    RA_OPT_COUNT
};
/* The command line: ra's options and the common ones it takes. */
extern const struct hpcp_cli ra_cli;

/* Options into params (no sizing yet), the common ones already parsed into
 * c; -1 and one line in err if invalid. */
int ra_params_from_options(struct ra_params *p, const struct hpcp_optval *v,
                           const struct hpcp_common *c, char *err, size_t errlen);
/* Choose table_log2/table_words when no --table-log2 (the sizing layer's
 * rule --size-rule names, for `copies` tables on a node; distributed: one
 * table over every rank). */
int ra_params_size(struct ra_params *p, int distributed, int copies, const struct hpcp_sysinfo *si,
                   char *err, size_t errlen);
/* Options that only some algorithms take, the torus grid against the rank
 * count, and the owner rule's range: -1 and one line in err if invalid. */
int ra_params_check_algorithm(struct ra_params *p, const struct hpcp_kernel *k, int ranks,
                              char *err, size_t errlen);
/* Threads against the cores this rank may use and its node holds: -1 and
 * one line in err (on every rank) when oversubscribed without
 * --oversubscribe. Collective. */
int ra_params_check_threads(const struct ra_params *p, const struct hpcp_sysinfo *si, char *err,
                            size_t errlen);
/* Collective memory check before allocation. */
int ra_params_check_memory(const struct ra_params *p, int distributed, int active,
                           const struct hpcp_sysinfo *si, char *err, size_t errlen);

#endif
