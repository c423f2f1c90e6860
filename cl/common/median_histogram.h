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

// MEDIAN_HISTOGRAM_BIN on 16 byte counts packed in 4 words (bin i in byte i: little-endian devices), in
// registers: unrolled, every index a constant (a byte array taken by address would live in memory).
inline int median_word_bin(const uint4 h, const int rank, int* below) {
    const uint words[4] = {h.x, h.y, h.z, h.w};
    int bin = -1, acc = *below;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        const int count = (int)((words[i / 4] >> (8 * (i % 4))) & 255u);
        if (bin < 0 && acc + count > rank) bin = i;
        else if (bin < 0) acc += count;
    }
    *below = acc;
    return bin;
}

#endif
