/* The comm functions in IMB-MPI1's order, and `comm all`: every function
 * in turn (--functions for some of them). */
#include <string.h>

#include "comm_fn.h"

extern const struct comm_function comm_fn_pingpong, comm_fn_pingping, comm_fn_sendrecv,
    comm_fn_exchange, comm_fn_allreduce, comm_fn_reduce, comm_fn_reduce_scatter, comm_fn_allgather,
    comm_fn_allgatherv, comm_fn_gather, comm_fn_scatter, comm_fn_alltoall, comm_fn_alltoallv,
    comm_fn_bcast, comm_fn_barrier;

const struct comm_function *const comm_functions[] = {
    &comm_fn_pingpong,   &comm_fn_pingping, &comm_fn_sendrecv,       &comm_fn_exchange,
    &comm_fn_allreduce,  &comm_fn_reduce,   &comm_fn_reduce_scatter, &comm_fn_allgather,
    &comm_fn_allgatherv, &comm_fn_gather,   &comm_fn_scatter,        &comm_fn_alltoall,
    &comm_fn_alltoallv,  &comm_fn_bcast,    &comm_fn_barrier,
};
const int comm_nfunctions = (int)(sizeof comm_functions / sizeof comm_functions[0]);

const struct comm_function *comm_function_named(const char *name)
{
    for (int i = 0; i < comm_nfunctions; i++)
        if (strcmp(comm_functions[i]->name, name) == 0)
            return comm_functions[i];
    return NULL;
}

COMM_KERNEL(hpcp_comm_all, "all", "every comm function in turn (--functions F,F,... for some)");
