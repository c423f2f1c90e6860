// The median of a window of 8-bit values from its histogram in two levels, as Perreault and Hébert
// (2007) and OpenCV keep it: 16 coarse bins (the value's top four bits) and 16 fine bins within each
// (the low four). Counts are bytes: a window holds at most 15 x 15 = 225 values, and counts kept by
// adding and subtracting column histograms wrap modulo 256 without harm, since each true count is
// below 256. The median of N values is the least value v with more than N / 2 values <= v (the
// element N / 2 of the sorted window, the serial reference's nth_element). Shared by the kernels of
// cl/filter_median.cl, so that the search is written once.
#ifndef PORTACL_MEDIAN_HISTOGRAM_H
#define PORTACL_MEDIAN_HISTOGRAM_H

// The first bin of `counts` (16 bins) at which the running count, from `*below` on, passes `rank`;
// *below becomes the count of the bins before it. The address space is the caller's (a macro, so that
// private and local histograms take the same code).
#define MEDIAN_HISTOGRAM_BIN(counts, rank, below, bin)         \
    do {                                                       \
        bin = 0;                                               \
        while ((below) + (int)(counts)[bin] <= (rank)) {       \
            (below) += (int)(counts)[bin];                     \
            ++bin;                                             \
        }                                                      \
    } while (0)

#endif
