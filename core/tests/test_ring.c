/* The pipeline's single-producer/single-consumer ring between two real
 * threads: every value arrives once, in order, across many wrap-arounds,
 * with pushes that only partly fit; "finished" only after the last value. */
#include <mpi.h>
#include <stdint.h>

#include "check.h"
#include "ra_threads.h"

enum { VALUES = 3000000, CAPACITY = 1024, CHUNK = 37 };

static struct ra_ring ring;
static uint64_t received, out_of_order, sum;

static void producer(void)
{
    uint64_t v[CHUNK], next = 1;
    unsigned spins = 0;
    while (next <= VALUES) {
        size_t n = 0;
        while (n < CHUNK && next + n <= VALUES) {
            v[n] = next + n;
            n++;
        }
        size_t put = ra_ring_push(&ring, v, n);
        next += put;
        if (put < n)
            ra_backoff(&spins);
    }
    ra_ring_close(&ring);
}

static void consumer(void)
{
    uint64_t expect = 1;
    unsigned spins = 0;
    for (;;) {
        const uint64_t *v;
        size_t n = ra_ring_peek(&ring, &v);
        for (size_t i = 0; i < n; i++) {
            out_of_order += v[i] != expect++;
            sum += v[i];
        }
        received += n;
        if (n)
            ra_ring_release(&ring, n);
        else if (ra_ring_finished(&ring))
            return;
        else
            ra_backoff(&spins);
    }
}

static void role(int tid, void *arg)
{
    (void)arg;
    if (tid == 0)
        producer();
    else
        consumer();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ra_team team;
    ra_team_plan(&team, 2, MPI_COMM_SELF);
    CHECK(ra_ring_init(&ring, CAPACITY) == 0);
    for (int round = 0; round < 2; round++) { /* reset makes it reusable */
        received = out_of_order = sum = 0;
        ra_ring_reset(&ring);
        CHECK(!ra_ring_finished(&ring));
        CHECK(ra_team_run(&team, role, NULL) == 0);
        CHECK(received == VALUES);
        CHECK(out_of_order == 0);
        CHECK(sum == (uint64_t)VALUES * (VALUES + 1) / 2);
        CHECK(ra_ring_finished(&ring));
    }
    /* A push into a full ring takes what fits and no more. */
    uint64_t v[CAPACITY + 5] = {0};
    ra_ring_reset(&ring);
    CHECK(ra_ring_push(&ring, v, CAPACITY + 5) == CAPACITY);
    CHECK(ra_ring_push(&ring, v, 1) == 0);
    ra_ring_free(&ring);
    int rc = check_summary("test_ring");
    MPI_Finalize();
    return rc;
}
