/* The dense families' and fft's matrices and vectors on huge pages, and the record
 * parameters they all carry (hpcprobe/dense.h). */
#include "hpcprobe/dense.h"

#include <stdlib.h>
#include <sys/mman.h>

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
    hpcp_record_param_string(r, "size_rule", p->size_rule);
    hpcp_record_param_double(r, "memory_cap", p->run.memory_cap);
    hpcp_record_param_double(r, "memory_fraction", p->fraction);
}
