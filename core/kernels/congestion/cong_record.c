/* The congestion record (docs/kernels/congestion.md): every canary sample
 * under every condition, the CIF of each canary and congestor, the roles,
 * the congestor traffic per node, and the validation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "congestion.h"
#include "hpcprobe/record.h"
#include "hpcprobe/util.h"

/* GPCNeT refuses to run below this many nodes; hpcprobe runs and says so. */
#define CONG_FULL_SCALE_NODES 10

/* "put-incast" -> "put_incast": metric names take no dashes. */
static const char *condition_name(const struct cong_params *p, int k, char *buf, size_t len)
{
    const char *name = k == 0                        ? "isolated"
                       : p->mode == CONG_MODE_GPCNET ? "gpcnet"
                       : p->ncongestors              ? cong_pattern_names[p->congestor[k - 1]]
                                                     : "none";
    hpcp_copy_truncated(buf, len, name);
    for (char *c = buf; *c; c++)
        *c = *c == '-' ? '_' : *c;
    return buf;
}

static void list_text(char *buf, size_t len, const int *list, int n, const char *const *names)
{
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", names[list[i]]);
}

/* gpcnet mode: the groups (units per congestor, GPCNeT's order) and the
 * timed steps per ring (per test for the Allreduce). */
static void add_gpcnet_parameters(struct hpcp_record *r, const struct cong_state *s)
{
    char text[160] = "";
    for (int g = 0; g < CONG_GPCNET_GROUPS; g++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s:%d", g ? "," : "",
                 cong_pattern_names[cong_gpcnet_group_pattern[g]], s->roles.group_units[g]);
    hpcp_record_param_string(r, "congestor_groups", text);
    for (int c = 0; c < CONG_NCANARIES; c++) {
        char key[48];
        snprintf(key, sizeof key, "%s_steps_per_ring", cong_canary_names[c]);
        hpcp_record_param_int(r, key, s->p.ring_iterations[c]);
    }
}

static void add_parameters(struct hpcp_record *r, const struct cong_state *s,
                           const struct cong_results *R)
{
    const struct cong_params *p = &s->p;
    const struct cong_roles *o = &s->roles;
    char text[160];
    list_text(text, sizeof text, p->canary, p->ncanaries, cong_canary_names);
    hpcp_record_param_string(r, "canaries", text);
    list_text(text, sizeof text, p->congestor, p->ncongestors, cong_pattern_names);
    hpcp_record_param_string(r, "congestors", p->ncongestors ? text : "none");
    hpcp_record_param_int(r, "latency_bytes", 8);
    hpcp_record_param_int(r, "allreduce_bytes", 8);
    hpcp_record_param_int(r, "bandwidth_bytes", (long long)p->bandwidth_bytes);
    hpcp_record_param_int(r, "congestor_bytes", (long long)p->congestor_bytes);
    hpcp_record_param_int(r, "in_flight", p->in_flight);
    hpcp_record_param_int(r, "samples", p->samples);
    hpcp_record_param_int(r, "bandwidth_samples", p->bandwidth_samples);
    for (int i = 0; i < p->ncanaries; i++) {
        char key[48];
        snprintf(key, sizeof key, "%s_samples_kept_per_rank", cong_canary_names[p->canary[i]]);
        hpcp_record_param_int(r, key, R->kept[p->canary[i]]);
    }
    hpcp_record_param_int(r, "warmup", p->run.warmup);
    hpcp_record_param_int(r, "seed", (long long)p->run.seed);
    hpcp_record_param_bool(r, "verify", p->run.verify);
    hpcp_record_param_double(r, "congestor_fraction", p->fraction);
    hpcp_record_param_double(r, "congestor_fraction_used", o->fraction_used);
    hpcp_record_param_string(r, "role_unit", o->per_rank ? "rank" : "node");
    hpcp_record_param_string(r, "mode", cong_mode_names[p->mode]);
    hpcp_record_param_string(r, "canary_placement", cong_placement_names[p->placement]);
    hpcp_record_param_string(r, "idle_wait", cong_idle_names[p->idle_spin]);
    if (p->mode == CONG_MODE_GPCNET)
        add_gpcnet_parameters(r, s);
    hpcp_record_param_int(r, "canary_units", o->canary_units);
    hpcp_record_param_int(r, "congestor_units", o->congestor_units);
    hpcp_record_param_int(r, "canary_ranks", o->canary_ranks);
    hpcp_record_param_int(r, "congestor_ranks", o->congestor_ranks);
}

static void add_metrics(struct hpcp_record *r, const struct cong_state *s,
                        const struct cong_results *R)
{
    const struct cong_params *p = &s->p;
    int conditions = cong_conditions(p), n = s->roles.canary_ranks;
    for (int i = 0; i < p->ncanaries; i++) {
        int c = p->canary[i], rate = c == CONG_BANDWIDTH, count = R->kept[c] * n;
        for (int k = 0; k < conditions; k++) {
            char name[64], cond[32];
            condition_name(p, k, cond, sizeof cond);
            snprintf(name, sizeof name, "%s_%s", cong_canary_names[c], cond);
            hpcp_record_metric(r, name, rate ? "B/s" : "s", R->samples[c][k], count, rate);
        }
    }
    /* The CIFs after the samples, so a record that is full keeps the samples. */
    for (int i = 0; i < p->ncanaries; i++) {
        int c = p->canary[i], rate = c == CONG_BANDWIDTH, count = R->kept[c] * n;
        for (int k = 1; k < conditions; k++) {
            char name[64], cond[32];
            double cif = cong_cif(R->samples[c][0], count, R->samples[c][k], count, rate);
            snprintf(name, sizeof name, "cif_%s_%s", cong_canary_names[c],
                     condition_name(p, k, cond, sizeof cond));
            struct hpcp_metric *m = hpcp_record_metric(r, name, "1", &cif, 1, 0);
            /* the bandwidth canary's CIF under the first congestor, as GPCNeT leads */
            if (m && (!r->headline_metric || (rate && k == 1)))
                r->headline_metric = m->name;
        }
    }
}

static void add_counters(struct hpcp_record *r, const struct cong_state *s,
                         const struct cong_results *R, int ranks)
{
    long long *v = malloc((size_t)ranks * sizeof *v);
    for (int i = 0; v && i < ranks; i++)
        v[i] = s->roles.rank_node[i];
    if (v)
        hpcp_record_counter_array(r, "rank_node", v, ranks);
    for (int i = 0; v && i < ranks; i++)
        v[i] = s->roles.rank_congestor[i];
    if (v)
        hpcp_record_counter_array(r, "rank_congestor", v, ranks);
    for (int i = 0; v && s->roles.rank_group && i < ranks; i++)
        v[i] = s->roles.rank_group[i];
    if (v && s->roles.rank_group)
        hpcp_record_counter_array(r, "rank_group", v, ranks);
    free(v);
    for (int c = 0; c < s->p.ncongestors; c++) {
        int pat = s->p.congestor[c];
        char key[64], cond[32];
        hpcp_copy_truncated(cond, sizeof cond, cong_pattern_names[pat]);
        for (char *ch = cond; *ch; ch++)
            *ch = *ch == '-' ? '_' : *ch;
        snprintf(key, sizeof key, "congestor_bytes_%s", cond);
        hpcp_record_counter_array(r, key, R->node_bytes[pat], R->nodes);
        snprintf(key, sizeof key, "congestor_rounds_%s", cond);
        hpcp_record_counter_int(r, key, R->rounds[pat]);
    }
    hpcp_record_counter_int(r, "canary_wrong_messages", R->canary_wrong);
    hpcp_record_counter_int(r, "congestor_wrong_messages", R->congestor_wrong);
}

/* Wrong canary or congestor messages, and asked congestors that moved nothing. */
static void add_validation(struct hpcp_record *r, const struct cong_state *s,
                           const struct cong_results *R)
{
    if (!s->p.run.verify) {
        hpcp_record_validation_skipped(r, "--no-verify");
        return;
    }
    double errors = (double)(R->canary_wrong + R->congestor_wrong);
    char idle[128] = "";
    for (int c = 0; c < s->p.ncongestors; c++) {
        int pat = s->p.congestor[c];
        long long moved = 0;
        for (int n = 0; n < R->nodes; n++)
            moved += R->node_bytes[pat][n];
        if (moved == 0) {
            errors += 1;
            snprintf(idle + strlen(idle), sizeof idle - strlen(idle), "%s%s", idle[0] ? ", " : "",
                     cong_pattern_names[pat]);
        }
    }
    hpcp_record_validation(r,
                           "every canary message checked by its receiver (stamp and payload; "
                           "Allreduce sums exact), congestor stamps (incast, alltoall, Put "
                           "slots, Get copies), and every asked congestor moved bytes; error = "
                           "wrong messages + congestors that moved nothing",
                           "1", &errors, 1, 0);
    if (idle[0])
        hpcp_record_validation_detail(r, "congestor(s) asked for moved 0 bytes: %s", idle);
    else if (errors > 0)
        hpcp_record_validation_detail(r, "%lld wrong canary and %lld wrong congestor message(s)",
                                      R->canary_wrong, R->congestor_wrong);
}

static void add_notes(struct hpcp_record *r, const struct cong_state *s)
{
    const struct cong_roles *o = &s->roles;
    if (o->per_rank)
        hpcp_record_note(r, "one node: roles are split per rank, so canaries and congestors share "
                            "the node's memory and cores, not a network");
    else if (o->units < CONG_FULL_SCALE_NODES)
        hpcp_record_note(r,
                         "small scale: %d nodes (GPCNeT asks for %d or more); the CIF says what "
                         "these nodes' links do under load",
                         o->units, CONG_FULL_SCALE_NODES);
    if (fabs(o->fraction_used - s->p.fraction) > 1e-9 &&
        o->congestor_units != (int)floor(s->p.fraction * o->units + 1e-9))
        hpcp_record_note(r, "--congestor-fraction %g moved to %.3g so that each role has 2 ranks",
                         s->p.fraction, o->fraction_used);
    if (s->p.ncongestors == 0)
        hpcp_record_note(r, "--congestor none: the explicit baseline; the canaries ran twice "
                            "alone and the CIF says how far two quiet runs differ");
    if (s->p.mode == CONG_MODE_GPCNET)
        hpcp_record_note(
            r,
            "gpcnet mode: GPCNeT's network_load_test layout (canaries placed %s, its four "
            "congestor groups at once, its canary definitions: RR Two-sided Lat is half a "
            "step to and from both neighbours, BW+Sync ends with a barrier, Allreduce is "
            "blocking); hpcprobe's mode spreads the canaries so they cross shared links, "
            "runs one congestor at a time and times one message per latency sample",
            cong_placement_names[s->p.placement]);
    if (o->canary_ranks < 3)
        hpcp_record_note(r, "a ring of 2 canary ranks: each sends to and receives from the other");
}

static void print_summary(const struct hpcp_record *r)
{
    printf("hpcprobe-bench congestion load: CIF (congested/isolated for times, "
           "isolated/congested for bandwidth; mean of the samples)\n");
    for (int i = 0; i < r->nmetrics; i++)
        if (!strncmp(r->metrics[i].name, "cif_", 4))
            printf("  %-28s %8.3f\n", r->metrics[i].name + 4, r->metrics[i].samples[0]);
    printf("  validation: %s\n", hpcp_verdict_word(r->validation.verdict));
}

void cong_build_record(struct hpcp_record *r, const struct hpcp_bench *b,
                       const struct cong_results *R)
{
    const struct cong_state *s = b->state;
    hpcp_record_init(r, "congestion", b->kernel->variant, b->kernel->algorithm, b->si);
    add_parameters(r, s, R);
    add_metrics(r, s, R);
    add_counters(r, s, R, b->ranks);
    add_validation(r, s, R);
    add_notes(r, s);
}

void cong_print(const struct hpcp_record *r)
{
    print_summary(r);
}
