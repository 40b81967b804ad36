/* The block-cyclic grid arithmetic, and the BLAS threads in the record. */
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

void dense_blas_setup(struct hpcp_record *r, int threads, const char *how)
{
    hpcp_record_param_int(r, "blas_threads", threads);
    hpcp_record_param_string(r, "blas_threads_set_by", how);
    hpcp_record_param_string(r, "blas", blas_build_name());
    hpcp_record_param_string(r, "blas_library", blas_library());
}
