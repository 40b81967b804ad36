/* The block-cyclic grid arithmetic and the record parts the dense families share. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "blas.h"
#include "dense.h"
#include "hpcprobe/util.h"

long long grid_local_count(long long n, int nb, int me, int np)
{
    long long blocks = n / nb, count = (blocks / np) * nb;
    long long extra = blocks % np;
    if (me < extra)
        count += nb;
    else if (me == extra)
        count += n % nb;
    return count;
}

long long grid_local_before(long long g, int nb, int me, int np)
{
    long long block = g / nb, count = (block / np) * nb;
    int owner = (int)(block % np);
    if (me < owner)
        count += nb;
    else if (me == owner)
        count += g % nb;
    return count;
}

long long grid_global(long long l, int nb, int me, int np)
{
    long long lb = l / nb;
    return (lb * np + me) * nb + l % nb;
}

void *dense_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    size_t padded = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, padded ? padded : huge);
    if (p)
        madvise(p, padded ? padded : huge, MADV_HUGEPAGE); /* advice: refused is fine */
    return p;
}

void dense_record_common(struct hpcp_record *r, const struct dense_params *p)
{
    hpcp_record_param_int(r, "repeat", p->run.repeat);
    hpcp_record_param_int(r, "seed", (long long)p->run.seed);
    hpcp_record_param_string(r, "size_rule", p->size_from_option ? "option" : "memory_fraction");
    hpcp_record_param_double(r, "memory_fraction", p->fraction);
}

void dense_blas_setup(struct hpcp_record *r, int threads, const char *how)
{
    hpcp_record_param_int(r, "blas_threads", threads);
    hpcp_record_param_string(r, "blas_threads_set_by", how);
    hpcp_record_param_string(r, "blas", blas_build_name());
    hpcp_record_param_string(r, "blas_library", blas_library());
}
