/* The read+write kernel of paper 002 (mem_rw.c), built at -O0 and -O3. */
#ifndef HPCPROBE_MEM_RW_H
#define HPCPROBE_MEM_RW_H
#include <stddef.h>
#include <stdint.h>

/* One pass: read and write (+1) every `step`-th word of buf[0..n). */
typedef void (*mem_rw_pass_fn)(uint64_t *buf, size_t n, size_t step);

void mem_rw_pass_O0(uint64_t *buf, size_t n, size_t step);
void mem_rw_pass_O3(uint64_t *buf, size_t n, size_t step);
/* The flags each variant was compiled with (recorded). */
extern const char mem_rw_flags_O0[], mem_rw_flags_O3[];

#endif
