/* Pending-update buckets, one per destination, in a shared pool of
 * `capacity` slots, with a max-heap on bucket size so the fullest bucket is
 * found in O(log P), as HPCC's reference algorithm does. */
#include <stdlib.h>
#include <string.h>

#include "ra.h"

int ra_buckets_init(struct ra_buckets *b, int nbuckets, int capacity)
{
    memset(b, 0, sizeof *b);
    b->nbuckets = nbuckets;
    b->capacity = capacity;
    size_t nb = (size_t)(nbuckets > 0 ? nbuckets : 1), cap = (size_t)capacity;
    b->head = malloc(nb * sizeof *b->head);
    b->count = calloc(nb, sizeof *b->count);
    b->heap = malloc(nb * sizeof *b->heap);
    b->pos = malloc(nb * sizeof *b->pos);
    b->next = malloc(cap * sizeof *b->next);
    b->value = malloc(cap * sizeof *b->value);
    if (!b->head || !b->count || !b->heap || !b->pos || !b->next || !b->value) {
        ra_buckets_free(b);
        return -1;
    }
    for (size_t i = 0; i < nb; i++) {
        b->head[i] = -1;
        b->pos[i] = -1;
    }
    for (int i = 0; i < capacity; i++)
        b->next[i] = i + 1 < capacity ? i + 1 : -1;
    b->free_head = capacity ? 0 : -1;
    return 0;
}

void ra_buckets_free(struct ra_buckets *b)
{
    free(b->head);
    free(b->count);
    free(b->heap);
    free(b->pos);
    free(b->next);
    free(b->value);
    memset(b, 0, sizeof *b);
}

static void heap_swap(struct ra_buckets *b, int i, int j)
{
    int t = b->heap[i];
    b->heap[i] = b->heap[j];
    b->heap[j] = t;
    b->pos[b->heap[i]] = i;
    b->pos[b->heap[j]] = j;
}

static void sift_up(struct ra_buckets *b, int i)
{
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (b->count[b->heap[parent]] >= b->count[b->heap[i]])
            break;
        heap_swap(b, i, parent);
        i = parent;
    }
}

static void sift_down(struct ra_buckets *b, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, big = i;
        if (l < b->heap_n && b->count[b->heap[l]] > b->count[b->heap[big]])
            big = l;
        if (r < b->heap_n && b->count[b->heap[r]] > b->count[b->heap[big]])
            big = r;
        if (big == i)
            return;
        heap_swap(b, i, big);
        i = big;
    }
}

void ra_buckets_insert(struct ra_buckets *b, int dest, uint64_t v)
{
    int slot = b->free_head;
    b->free_head = b->next[slot];
    b->value[slot] = v;
    b->next[slot] = b->head[dest];
    b->head[dest] = slot;
    b->count[dest]++;
    b->pending++;
    if (b->pos[dest] < 0) {
        b->pos[dest] = b->heap_n;
        b->heap[b->heap_n++] = dest;
    }
    sift_up(b, b->pos[dest]);
}

int ra_buckets_pop_largest(struct ra_buckets *b, uint64_t *out, int *n)
{
    if (b->heap_n == 0) {
        *n = 0;
        return -1;
    }
    int dest = b->heap[0], k = 0;
    for (int s = b->head[dest]; s >= 0;) {
        int nxt = b->next[s];
        out[k++] = b->value[s];
        b->next[s] = b->free_head;
        b->free_head = s;
        s = nxt;
    }
    b->head[dest] = -1;
    b->count[dest] = 0;
    b->pending -= k;
    b->pos[dest] = -1;
    b->heap_n--;
    if (b->heap_n > 0) {
        b->heap[0] = b->heap[b->heap_n];
        b->pos[b->heap[0]] = 0;
        sift_down(b, 0);
    }
    *n = k;
    return dest;
}
