/* The dense families of HPCC (dgemm, hpl, ptrans): the 2-D block-cyclic grid and the
 * BLAS threads; their options, generator and record parts shared with fft are in
 * hpcprobe/dense.h. docs/kernels/hpl.md, dgemm.md, ptrans.md. */
#ifndef HPCP_DENSE_H
#define HPCP_DENSE_H
#include "hpcprobe/dense.h"
#include "hpcprobe/record.h"

/* --- the 2-D block-cyclic distribution (rank = prow * Q + pcol) ------------------- */
/* Rows (or columns) of a dimension of n in blocks of nb that process `me` of `np` holds. */
long long grid_local_count(long long n, int nb, int me, int np);
/* How many of process me's rows (of np) have a global index below g. */
long long grid_local_before(long long g, int nb, int me, int np);
/* Global index of local index l of process me. */
long long grid_global(long long l, int nb, int me, int np);

/* The BLAS threads of this rank (dgemm, hpl): set, and named in the record. */
void dense_blas_setup(struct hpcp_record *r, int threads, const char *how);

#endif
