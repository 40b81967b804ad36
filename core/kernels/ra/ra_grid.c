/* Routing table and send-buffer pool of the grid algorithms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcprobe/record.h"
#include "ra_grid.h"
#include "ra_mpi.h"

static void coords_of(const struct ra_routes *rt, int r, int *c)
{
    for (int k = rt->nd - 1; k >= 0; k--) {
        c[k] = r % rt->dims[k];
        r /= rt->dims[k];
    }
}

/* Computed once, so routing an update costs one owner computation and one
 * lookup. */
int ra_routes_plan(struct ra_routes *rt, const int *dims, int nd, int me, int ranks)
{
    int mine[RA_MAX_DIMS], oc[RA_MAX_DIMS], base[RA_MAX_DIMS], stride[RA_MAX_DIMS];
    rt->nd = nd;
    rt->nbuckets = 0;
    for (int k = 0; k < nd; k++)
        rt->dims[k] = dims[k];
    for (int k = nd - 1, s = 1; k >= 0; k--) {
        stride[k] = s;
        s *= dims[k];
    }
    for (int k = 0; k < nd; k++) {
        base[k] = rt->nbuckets;
        rt->nbuckets += dims[k] - 1;
    }
    rt->bucket_of = malloc((size_t)ranks * sizeof *rt->bucket_of);
    rt->bucket_rank = malloc(((size_t)rt->nbuckets + 1) * sizeof *rt->bucket_rank);
    rt->bucket_axis = malloc(((size_t)rt->nbuckets + 1) * sizeof *rt->bucket_axis);
    if (!rt->bucket_of || !rt->bucket_rank || !rt->bucket_axis)
        return -1;
    coords_of(rt, me, mine);
    for (int o = 0; o < ranks; o++) {
        coords_of(rt, o, oc);
        int k = 0;
        while (k < nd && oc[k] == mine[k])
            k++;
        if (k == nd) {
            rt->bucket_of[o] = -1;
            continue;
        }
        int b = base[k] + (oc[k] < mine[k] ? oc[k] : oc[k] - 1);
        rt->bucket_of[o] = b;
        rt->bucket_rank[b] = me + (oc[k] - mine[k]) * stride[k];
        rt->bucket_axis[b] = k;
    }
    return 0;
}

void ra_routes_free(struct ra_routes *rt)
{
    free(rt->bucket_of);
    free(rt->bucket_rank);
    free(rt->bucket_axis);
    rt->bucket_of = rt->bucket_rank = rt->bucket_axis = NULL;
}

long long ra_sendpool_reap(struct ra_sendpool *sp)
{
    long long released = 0;
    for (int i = 0; i < sp->nslots; i++) {
        int done = sp->sreq[i] == MPI_REQUEST_NULL;
        if (!done)
            MPI_Test(&sp->sreq[i], &done, MPI_STATUS_IGNORE);
        if (done) {
            released += sp->slot_n[i];
            sp->own_released += sp->slot_own[i];
            sp->slot_n[i] = sp->slot_own[i] = 0;
        }
    }
    return released;
}

int ra_sendpool_take(struct ra_sendpool *sp, long long *released)
{
    *released = ra_sendpool_reap(sp);
    for (int i = 0; i < sp->nslots; i++)
        if (sp->sreq[i] == MPI_REQUEST_NULL)
            return i;
    int n = sp->nslots + 1;
    uint64_t **slot = realloc(sp->slot, (size_t)n * sizeof *slot);
    if (slot)
        sp->slot = slot;
    int *slot_n = slot ? realloc(sp->slot_n, (size_t)n * sizeof *slot_n) : NULL;
    if (slot_n)
        sp->slot_n = slot_n;
    int *slot_own = slot_n ? realloc(sp->slot_own, (size_t)n * sizeof *slot_own) : NULL;
    if (slot_own)
        sp->slot_own = slot_own;
    MPI_Request *sreq = slot_own ? realloc(sp->sreq, (size_t)n * sizeof *sreq) : NULL;
    if (sreq)
        sp->sreq = sreq;
    uint64_t *buf = sreq ? malloc((size_t)sp->capacity * sizeof *buf) : NULL;
    if (!buf)
        ra_mpi_out_of_memory("the send buffers");
    sp->slot[sp->nslots] = buf;
    sp->slot_n[sp->nslots] = sp->slot_own[sp->nslots] = 0;
    sp->sreq[sp->nslots] = MPI_REQUEST_NULL;
    return sp->nslots++;
}

long long ra_sendpool_wait(struct ra_sendpool *sp)
{
    MPI_Waitall(sp->nslots, sp->sreq, MPI_STATUSES_IGNORE);
    return ra_sendpool_reap(sp);
}

void ra_sendpool_free(struct ra_sendpool *sp)
{
    for (int i = 0; i < sp->nslots; i++)
        free(sp->slot[i]);
    free(sp->slot);
    free(sp->slot_n);
    free(sp->slot_own);
    free(sp->sreq);
    sp->slot = NULL;
    sp->slot_n = sp->slot_own = NULL;
    sp->sreq = NULL;
    sp->nslots = 0;
}

/* The record names the grid the ranks were arranged in ("4x2"). */
void ra_grid_record_params(struct hpcp_record *r, const struct ra_params *p)
{
    char text[128] = "";
    for (int i = 0; i < p->ndims; i++) {
        size_t u = strlen(text);
        snprintf(text + u, sizeof text - u, "%s%d", i ? "x" : "", p->grid[i]);
    }
    hpcp_record_param_string(r, "grid", text);
}
