/*
 * index_sort.c - heap sort of an index array (index_sort.h): O(n log n), no memory
 * beyond the array, async-signal-safe.
 */
#include "core/index_sort.h"

static void sift(uint32_t *a, uint32_t i, uint32_t n, int (*less)(uint32_t, uint32_t))
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && less(a[c], a[c + 1]))
            c++;
        if (!less(a[i], a[c]))
            return;
        uint32_t t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

void fr_index_sort(uint32_t *a, uint32_t n, int (*less)(uint32_t, uint32_t))
{
    if (n < 2)
        return;
    for (uint32_t i = n / 2; i-- > 0;)
        sift(a, i, n, less);
    for (uint32_t end = n - 1; end > 0; end--) {
        uint32_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift(a, 0, end, less);
    }
}
