/* The read+write memory kernel of paper 002 sections 4.1-4.2. This file is
 * compiled twice (CMakeLists.txt): MEM_RW_VARIANT names the -O level, so
 * the same source gives mem_rw_pass_O0 and mem_rw_pass_O3. */
#include "mem_rw.h"

#define MEM_RW_CAT2(a, b) a##_##b
#define MEM_RW_CAT(a, b) MEM_RW_CAT2(a, b)

void MEM_RW_CAT(mem_rw_pass, MEM_RW_VARIANT)(uint64_t *buf, size_t n, size_t step)
{
    for (size_t i = 0; i < n; i += step)
        buf[i] = buf[i] + 1;
}

const char MEM_RW_CAT(mem_rw_flags, MEM_RW_VARIANT)[] = MEM_RW_FLAGS;
