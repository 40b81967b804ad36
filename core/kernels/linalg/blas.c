/* Which BLAS runs and with how many threads (blas.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"

#ifndef HPCP_BLAS_NAME
#define HPCP_BLAS_NAME "unknown"
#endif

#ifdef HPCP_BLAS_SCIPY
void scipy_openblas_set_num_threads(int n);
char *scipy_openblas_get_config(void);
#else
/* Weak: present only when the linked BLAS exports them. */
void openblas_set_num_threads(int n) __attribute__((weak));
char *openblas_get_config(void) __attribute__((weak));
void MKL_Set_Num_Threads(int n) __attribute__((weak));
void bli_thread_set_num_threads(long n) __attribute__((weak));
#endif

/* A threaded OpenBLAS starts its thread pool (one per core) when it is loaded, and the
 * threads spin until a time-out: every family would run beside them. Unless the user
 * asked for more through OPENBLAS_NUM_THREADS (which hpcprobe's launches set to 1), keep
 * one thread from the start; dgemm and hpl set their --threads again. */
__attribute__((constructor)) static void blas_one_thread_at_start(void)
{
    const char *env = getenv("OPENBLAS_NUM_THREADS");
    if (!env || atoi(env) <= 1)
        blas_set_threads(1);
}

const char *blas_build_name(void)
{
    return HPCP_BLAS_NAME;
}

const char *blas_set_threads(int threads)
{
#ifdef HPCP_BLAS_SCIPY
    scipy_openblas_set_num_threads(threads);
    return "scipy_openblas_set_num_threads";
#else
    if (openblas_set_num_threads) {
        openblas_set_num_threads(threads);
        return "openblas_set_num_threads";
    }
    if (MKL_Set_Num_Threads) {
        MKL_Set_Num_Threads(threads);
        return "MKL_Set_Num_Threads";
    }
    if (bli_thread_set_num_threads) {
        bli_thread_set_num_threads(threads);
        return "bli_thread_set_num_threads";
    }
    return "not settable";
#endif
}

const char *blas_library(void)
{
    static char name[160];
    Dl_info info;
    const char *file = "unknown";
    if (dladdr((void *)&HPCP_F77(dgemm), &info) && info.dli_fname)
        file = info.dli_fname;
    const char *slash = strrchr(file, '/');
    const char *config = NULL;
#ifdef HPCP_BLAS_SCIPY
    config = scipy_openblas_get_config();
#else
    if (openblas_get_config)
        config = openblas_get_config();
#endif
    snprintf(name, sizeof name, "%s%s%s", slash ? slash + 1 : file, config ? ": " : "",
             config ? config : "");
    return name;
}
