/* The record of `pairs` (docs/kernels/comm.md): the matrices (median, least
 * and greatest sample per pair; null where a pair was not measured), which
 * pairs share a node, the coverage of a sampled run, the validation, and the
 * summary lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs.h"
#include "hpcprobe/link.h"
#include "hpcprobe/util.h"

/* The measured off-diagonal bandwidths: all of them, those within a node,
 * those across. */
static void add_metrics(struct hpcp_record *r, const struct pairs_result *R, int ranks)
{
    size_t cells = (size_t)ranks * ranks;
    double *all = malloc(cells * sizeof *all), *in = malloc(cells * sizeof *in);
    double *out = malloc(cells * sizeof *out);
    int n = 0, nin = 0, nout = 0;
    for (size_t c = 0; all && in && out && c < cells; c++) {
        if (c / (size_t)ranks == c % (size_t)ranks || !isfinite(R->bw[c]))
            continue;
        all[n++] = R->bw[c];
        if (R->same[c])
            in[nin++] = R->bw[c];
        else
            out[nout++] = R->bw[c];
    }
    hpcp_record_metric(r, "pair_bandwidth", "B/s", all, n, 1);
    if (nin)
        hpcp_record_metric(r, "intra_node_bandwidth", "B/s", in, nin, 1);
    if (nout)
        hpcp_record_metric(r, "inter_node_bandwidth", "B/s", out, nout, 1);
    r->headline_metric = "pair_bandwidth";
    r->headline_statistic = "min";
    free(all), free(in), free(out);
}

/* The fastest pair across nodes against HPCPROBE_LINK_LIMIT: its transfer
 * had to cross a link at least that slow, so a faster one did not cross it. */
static void check_link(struct hpcp_record *r, const struct comm_params *p,
                       const struct hpcp_sysinfo *si, const struct pairs_result *R, int ranks)
{
    size_t cells = (size_t)ranks * ranks, worst = cells;
    for (size_t c = 0; c < cells; c++)
        if (!R->same[c] && isfinite(R->bw[c]) && (worst == cells || R->bw[c] > R->bw[worst]))
            worst = c;
    if (worst == cells)
        return;
    char what[64];
    snprintf(what, sizeof what, "pairs, rank %d to %d", (int)(worst / (size_t)ranks),
             (int)(worst % (size_t)ranks));
    hpcp_link_check(r, &si->link_limit, what, R->bw[worst], (double)p->size * R->msgs[worst]);
}

/* What was measured of the whole matrix, and how the rounds were chosen. */
static void add_coverage(struct hpcp_record *r, const struct comm_params *p,
                         const struct pairs_result *R)
{
    const struct pairs_cover *c = &R->cover;
    int sampled = c->rounds < c->rounds_total;
    hpcp_record_param_int(r, "rounds", c->rounds_total);
    hpcp_record_param_int(r, "rounds_measured", c->rounds);
    hpcp_record_param_int(r, "pairs_total", c->pairs_total);
    hpcp_record_param_int(r, "pairs_measured", c->pairs);
    hpcp_record_param_int(r, "node_pairs_total", c->node_pairs_total);
    hpcp_record_param_int(r, "node_pairs_measured", c->node_pairs);
    hpcp_record_param_bool(r, "sampled", sampled);
    hpcp_record_param_bool(r, "covers_every_rank", c->ranks_covered == c->ranks);
    hpcp_record_param_bool(r, "covers_every_node_pair", c->node_pairs == c->node_pairs_total);
    char how[256];
    snprintf(how, sizeof how,
             "rounds in a seeded random order (seed %llu), first the %d that cover every rank "
             "and node pair, then as many as the %g s budget allowed: %d of %d",
             (unsigned long long)p->run.seed, R->covering, p->matrix_time, c->rounds,
             c->rounds_total);
    hpcp_record_param_string(r, "sampling", sampled ? how : "every round");
    hpcp_record_param_int(r, "seed", (long long)p->run.seed);
    hpcp_record_param_double(r, "matrix_time_s", p->matrix_time);
    hpcp_record_param_double(r, "measured_time_s", R->seconds);
    /* Coverage comes first: many nodes of few ranks each can need more rounds than fit. */
    if (c->rounds <= R->covering && R->seconds > p->matrix_time)
        hpcp_record_note(r,
                         "covering every rank and node pair took %d rounds (%.1f s), past the "
                         "%g s budget",
                         c->rounds, R->seconds, p->matrix_time);
    if (sampled)
        hpcp_record_note(r,
                         "sampled: %lld of %lld ordered pairs (%d of %d rounds)%s; the other "
                         "cells are null",
                         c->pairs, c->pairs_total, c->rounds, c->rounds_total,
                         c->ranks_covered == c->ranks && c->node_pairs == c->node_pairs_total
                             ? ", every rank and node pair"
                             : "");
}

static void add_validation(struct hpcp_record *r, const struct comm_params *p,
                           const struct pairs_result *R)
{
    double error = (double)(R->wrong + R->missing);
    hpcp_record_validation(r,
                           "the last message of every sample carries a pattern of (source, "
                           "destination, transfer) in every byte, compared on receipt; every "
                           "pair of the rounds measured must have a figure; error = samples "
                           "with wrong data + measured pairs without a figure",
                           "1", &error, 1, 0);
    if (R->wrong)
        hpcp_record_validation_detail(r,
                                      "pairs: rank %d received wrong data from rank %d at "
                                      "%zu B (%ld sample(s) wrong in all)",
                                      R->bad_rank, R->bad_from, p->size, R->wrong);
    else if (R->missing)
        hpcp_record_validation_detail(r, "pairs: %ld measured pair(s) without a figure",
                                      R->missing);
}

void pairs_build_record(struct hpcp_record *r, const struct hpcp_kernel *k,
                        const struct comm_params *p, const struct hpcp_sysinfo *si,
                        const struct pairs_result *R, int ranks, const char *note)
{
    hpcp_record_init(r, "pairs", k->variant, k->algorithm, si);
    hpcp_record_param_int(r, "message_bytes", (long long)p->size);
    hpcp_record_param_int(r, "messages_per_transfer", p->messages);
    hpcp_record_param_int(r, "repetitions", p->run.repeat);
    hpcp_record_param_int(r, "samples_per_pair", p->run.repeat);
    hpcp_record_param_double(r, "sample_time_s", p->sample_time);
    hpcp_record_param_string(r, "statistic", "median over samples");
    add_coverage(r, p, R);
    comm_device_record(r, &p->dev);
    hpcp_record_matrix(r, "bandwidth", "src_rank", "dst_rank", "B/s", "median", R->bw, ranks,
                       ranks);
    hpcp_record_matrix(r, "same_node", "rank", "rank", "1", "last", R->same, ranks, ranks);
    hpcp_record_matrix(r, "bandwidth_min", "src_rank", "dst_rank", "B/s", "min", R->lo, ranks,
                       ranks);
    hpcp_record_matrix(r, "bandwidth_max", "src_rank", "dst_rank", "B/s", "max", R->hi, ranks,
                       ranks);
    add_metrics(r, R, ranks);
    add_validation(r, p, R);
    check_link(r, p, si, R, ranks);
    if (note[0])
        hpcp_record_note(r, "%s", note);
}

static void summary_line(const char *what, const struct hpcp_record *r, const char *metric)
{
    for (int m = 0; m < r->nmetrics; m++) {
        const struct hpcp_metric *x = &r->metrics[m];
        if (strcmp(x->name, metric) != 0 || x->nsamples == 0)
            continue;
        double lo = INFINITY, hi = 0, sum = 0;
        for (int i = 0; i < x->nsamples; i++)
            lo = fmin(lo, x->samples[i]), hi = fmax(hi, x->samples[i]), sum += x->samples[i];
        printf("  %-11s %5d pairs  min %9.3f  mean %9.3f  max %9.3f GB/s\n", what, x->nsamples,
               lo / 1e9, sum / x->nsamples / 1e9, hi / 1e9);
    }
}

/* One matrix cell: "-" on the diagonal, "?" where not measured. */
static void print_cell(const struct pairs_result *R, int ranks, int i, int j)
{
    size_t c = (size_t)i * ranks + j;
    if (i == j)
        printf(" %8s", "-");
    else if (!isfinite(R->bw[c]))
        printf(" %8s", "?");
    else
        printf(" %7.2f%c", R->bw[c] / 1e9, R->same[c] ? '*' : ' ');
}

void pairs_print_results(const struct hpcp_record *r, const struct pairs_result *R)
{
    int ranks = r->ranks;
    const struct pairs_cover *c = &R->cover;
    printf("pairs: %d ranks, %d node(s), %lld B messages: validation %s\n", ranks, r->nodes,
           (long long)r->params[0].i, hpcp_verdict_word(r->validation.verdict));
    if (c->rounds < c->rounds_total)
        printf("  sampled: %lld of %lld ordered pairs (%d of %d rounds), ranks %d of %d, "
               "node pairs %lld of %lld\n",
               c->pairs, c->pairs_total, c->rounds, c->rounds_total, c->ranks_covered, c->ranks,
               c->node_pairs, c->node_pairs_total);
    summary_line("intra-node", r, "intra_node_bandwidth");
    summary_line("inter-node", r, "inter_node_bandwidth");
    if (ranks > 16)
        return;
    printf("  GB/s, median of the samples, row = source rank, column = destination rank "
           "(* = same node, ? = not measured)\n      ");
    for (int j = 0; j < ranks; j++)
        printf(" %8d", j);
    printf("\n");
    for (int i = 0; i < ranks; i++) {
        printf("  %4d", i);
        for (int j = 0; j < ranks; j++)
            print_cell(R, ranks, i, j);
        printf("\n");
    }
    fflush(stdout);
}
