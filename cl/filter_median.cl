// Medians of K x K windows of 8-bit planes from histograms, for large windows (host/filter/
// median_histogram.cpp says which the profiles send here). The value is found in the window's
// histogram of 16 coarse and 16 x 16 fine bins (common/median_histogram.h): the segment kernel's cost
// per output does not grow with K, the column and tile kernels' grow as K (a selection network's as
// K^2 log K). Three shapes of the same method:
//   median_histogram_segment  CPU devices (Perreault and Hébert 2007): a work-item walks a band of
//       `band` rows over a segment of SEG columns, keeping one histogram per column of the segment and
//       of the window's RX columns either side (private memory: SEG + 2 RX columns of 272 bytes). Each
//       output row first moves every column histogram down a row (one value out, one in), then slides
//       the window's histogram along the row: the coarse bins by one 16-byte vector add and subtract
//       of column histograms per output, the fine bins of a coarse bin only when the median falls in
//       it, brought up to date from the column it was last used at (or summed afresh from the window's
//       K columns when that is further back than RX). (Sliding all 256 fine bins instead, the search
//       without branches, or each column moved down just before the window takes it in were each
//       slower on PoCL: docs/engineering/filter.md.)
//   median_histogram_column   any device (plain OpenCL C; the GPU profiles may choose it): a work-item
//       is one output column, walking down a band of `band` rows, its window's histogram in local
//       memory (GROUP work-items a work-group along the row); each output row takes the window's top
//       row out and its new bottom row in, 2K values.
//   median_histogram_tile     GPUs (Perreault and Hébert's column histograms shared by a work-group):
//       a work-group of GROUP work-items owns GROUP output columns and walks down a band of `band`
//       rows, keeping in local memory one histogram per image column of its tile and of the window's
//       RX columns either side ((GROUP + 2 RX) x 272 bytes; the host checks the 15x15 window's,
//       (GROUP + 14) x 272, against the device's local memory). Each output row first moves every
//       column histogram down a row (one value in, one out: 4 byte updates a column, where the column
//       walk makes 4K), then, after a barrier, each work-item sums its window's K coarse histograms as
//       16-byte vectors, finds the median's coarse bin, sums the K columns' 16 fine bins of that bin
//       and finds the fine bin: 2K vector reads of local memory an output.
// Every read outside the image goes through the border rule (common/filter_common.h), as the serial
// reference's. Defines: KW (= KH, odd, up to 15), RX = KW / 2, BORDER; SEG (segment kernel), GROUP
// (column and tile kernels).
#ifndef KW
#define KW 9
#endif
#ifndef SEG
#define SEG 256
#endif
#ifndef GROUP
#define GROUP 64
#endif
#include "common/filter_common.h"
#include "common/median_histogram.h"

#define MEDIAN_RANK ((KW * KW) / 2)
#define SEG_COLUMNS (SEG + 2 * RX)
#define TILE_COLUMNS (GROUP + 2 * RX)

// The byte at (row, column) through the border rule's indices (-1: the constant border's value).
inline uint median_pixel(const global uchar* src, const int width, const int row, const int column, const uchar outside) {
    return row < 0 || column < 0 ? outside : src[(size_t)row * (size_t)width + column];
}

__kernel void median_histogram_segment(const global uchar* restrict src, global uchar* restrict dst, const int width, const int height,
                                       const int outsideValue, const int band) {
    const uchar outside = (uchar)outsideValue;
    const int xs = (int)get_global_id(0) * SEG, y0 = (int)get_global_id(1) * band;
    if (xs >= width || y0 >= height) return;
    const int xe = min(xs + SEG, width), ye = min(y0 + band, height), columns = xe - xs + 2 * RX;
    // Column c of the histograms is image column xs - RX + c.
    uchar16 fine[SEG_COLUMNS * 16];  // column c's fine bins of coarse bin b: fine[c * 16 + b]
    uchar16 coarse[SEG_COLUMNS];
    int index[SEG_COLUMNS];          // the image column it reads (the border rule's)
    uchar* fineBytes = (uchar*)fine;
    uchar* coarseBytes = (uchar*)coarse;
    for (int c = 0; c < columns; ++c) {
        index[c] = border_index(xs - RX + c, width);
        coarse[c] = (uchar16)(0);
        for (int b = 0; b < 16; ++b) fine[c * 16 + b] = (uchar16)(0);
    }
    // The first output row's window, but its last row (the row loop adds that).
    for (int r = y0 - RX; r < y0 + RX; ++r) {
        const int row = border_index(r, height);
        for (int c = 0; c < columns; ++c) {
            const uint v = median_pixel(src, width, row, index[c], outside);
            ++fineBytes[c * 256 + v];
            ++coarseBytes[c * 16 + (v >> 4)];
        }
    }
    for (int y = y0; y < ye; ++y) {
        // Every column histogram down one row: row y + RX in, row y - RX - 1 out (from the second row on).
        const int rowIn = border_index(y + RX, height), rowOut = border_index(y - RX - 1, height);
        for (int c = 0; c < columns; ++c) {
            const uint v = median_pixel(src, width, rowIn, index[c], outside);
            ++fineBytes[c * 256 + v];
            ++coarseBytes[c * 16 + (v >> 4)];
            if (y > y0) {
                const uint o = median_pixel(src, width, rowOut, index[c], outside);
                --fineBytes[c * 256 + o];
                --coarseBytes[c * 16 + (o >> 4)];
            }
        }
        // The window's histogram along the row: output x = xs + i covers columns i .. i + 2 RX.
        uchar16 hc = coarse[0];
        for (int c = 1; c <= 2 * RX; ++c) hc += coarse[c];
        uchar16 hf[16];    // the window's fine bins of coarse bin b, as of output `last[b]`
        int last[16];
        for (int b = 0; b < 16; ++b) last[b] = -SEG_COLUMNS;
        const uchar* hcBytes = (const uchar*)&hc;
        global uchar* out = dst + (size_t)y * (size_t)width + xs;
        for (int i = 0; i < xe - xs; ++i) {
            if (i > 0) hc += coarse[i + 2 * RX] - coarse[i - 1];
            int below = 0, b, f;
            MEDIAN_HISTOGRAM_BIN(hcBytes, MEDIAN_RANK, below, b);
            if (i - last[b] > RX) {
                uchar16 s = fine[i * 16 + b];
                for (int c = i + 1; c <= i + 2 * RX; ++c) s += fine[c * 16 + b];
                hf[b] = s;
            } else {
                uchar16 s = hf[b];
                for (int j = last[b] + 1; j <= i; ++j) s += fine[(j + 2 * RX) * 16 + b] - fine[(j - 1) * 16 + b];
                hf[b] = s;
            }
            last[b] = i;
            const uchar* hfBytes = (const uchar*)&hf[b];
            MEDIAN_HISTOGRAM_BIN(hfBytes, MEDIAN_RANK, below, f);
            out[i] = (uchar)(b * 16 + f);
        }
    }
}

__kernel void median_histogram_column(const global uchar* restrict src, global uchar* restrict dst, const int width, const int height,
                                      const int outsideValue, const int band) {
    // 272 bytes a work-item (16 x 17 vectors): 16 coarse bins after 256 fine ones.
    local uchar histograms[GROUP * 272];
    const uchar outside = (uchar)outsideValue;
    const int x = (int)get_global_id(0), y0 = (int)get_global_id(1) * band;
    if (x >= width || y0 >= height) return;  // (no barrier below: each work-item keeps to its own bytes)
    local uchar* fineBins = histograms + get_local_id(0) * 272;
    local uchar* coarseBins = fineBins + 256;
    for (int i = 0; i < 17; ++i) vstore16((uchar16)(0), i, fineBins);
    int index[KW];
    for (int dx = 0; dx < KW; ++dx) index[dx] = border_index(x - RX + dx, width);
    const int ye = min(y0 + band, height);
    for (int r = y0 - RX; r < y0 + RX; ++r) {
        const int row = border_index(r, height);
        for (int dx = 0; dx < KW; ++dx) {
            const uint v = median_pixel(src, width, row, index[dx], outside);
            ++fineBins[v];
            ++coarseBins[v >> 4];
        }
    }
    for (int y = y0; y < ye; ++y) {
        const int rowIn = border_index(y + RX, height), rowOut = border_index(y - RX - 1, height);
        for (int dx = 0; dx < KW; ++dx) {
            const uint v = median_pixel(src, width, rowIn, index[dx], outside);
            ++fineBins[v];
            ++coarseBins[v >> 4];
            if (y > y0) {
                const uint o = median_pixel(src, width, rowOut, index[dx], outside);
                --fineBins[o];
                --coarseBins[o >> 4];
            }
        }
        int below = 0, b, f;
        MEDIAN_HISTOGRAM_BIN(coarseBins, MEDIAN_RANK, below, b);
        MEDIAN_HISTOGRAM_BIN(fineBins + b * 16, MEDIAN_RANK, below, f);
        dst[(size_t)y * (size_t)width + x] = (uchar)(b * 16 + f);
    }
}

// One value into (d = 1) or out of (d = -1) column c's counts of the tile.
inline void tile_count(local uchar* coarse, local uchar* fine, const int c, const uint v, const int d) {
    coarse[c * 16 + (v >> 4)] += d;
    fine[((v >> 4) * TILE_COLUMNS + c) * 16 + (v & 15)] += d;
}

__kernel void median_histogram_tile(const global uchar* restrict src, global uchar* restrict dst, const int width, const int height,
                                    const int outsideValue, const int band) {
    // Column c of the tile (image column x0 - RX + c) keeps its 16 coarse counts at coarse[c * 16] and
    // the 16 fine counts of coarse bin b at fine[(b * TILE_COLUMNS + c) * 16]: neighbouring work-items
    // read neighbouring 16-byte vectors, and no two work-items write to one word.
    // The counts are written as bytes and summed as words: a window's count of a bin is at most
    // KW * KW < 256, so adding 4 bytes packed in a uint never carries from one to the next.
    local uint coarseWords[TILE_COLUMNS * 4];
    local uint fineWords[16 * TILE_COLUMNS * 4];
    local uchar* coarse = (local uchar*)coarseWords;
    local uchar* fine = (local uchar*)fineWords;
    const uchar outside = (uchar)outsideValue;
    const int lid = (int)get_local_id(0), x0 = (int)get_group_id(0) * GROUP, x = x0 + lid;
    const int y0 = (int)get_global_id(1) * band;
    if (y0 >= height) return;  // the whole work-group (its work-items share y0)
    const int ye = min(y0 + band, height);
    for (int i = lid; i < TILE_COLUMNS; i += GROUP) vstore4((uint4)(0), i, coarseWords);
    for (int i = lid; i < 16 * TILE_COLUMNS; i += GROUP) vstore4((uint4)(0), i, fineWords);
    barrier(CLK_LOCAL_MEM_FENCE);
    // The columns this work-item moves down (lid, lid + GROUP, ...; those left of the image's width only).
    for (int r = y0 - RX; r < y0 + RX; ++r) {
        const int row = border_index(r, height);
        for (int c = lid; c < TILE_COLUMNS; c += GROUP) {
            const int column = x0 - RX + c;
            if (column >= width + RX) break;
            tile_count(coarse, fine, c, median_pixel(src, width, row, border_index(column, width), outside), 1);
        }
    }
    for (int y = y0; y < ye; ++y) {
        // Every column histogram down one row: row y + RX in, row y - RX - 1 out (from the second row on).
        const int rowIn = border_index(y + RX, height), rowOut = border_index(y - RX - 1, height);
        for (int c = lid; c < TILE_COLUMNS; c += GROUP) {
            const int column = x0 - RX + c;
            if (column >= width + RX) break;
            const int index = border_index(column, width);
            tile_count(coarse, fine, c, median_pixel(src, width, rowIn, index, outside), 1);
            if (y > y0) tile_count(coarse, fine, c, median_pixel(src, width, rowOut, index, outside), -1);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (x < width) {
            // The window's coarse counts, the sum of its KW columns', then the fine counts of the
            // median's coarse bin.
            uint4 hc = vload4(lid, coarseWords);
            for (int c = 1; c < KW; ++c) hc += vload4(lid + c, coarseWords);
            int below = 0;
            const int b = median_word_bin(hc, MEDIAN_RANK, &below);
            uint4 hf = vload4(b * TILE_COLUMNS + lid, fineWords);
            for (int c = 1; c < KW; ++c) hf += vload4(b * TILE_COLUMNS + lid + c, fineWords);
            const int f = median_word_bin(hf, MEDIAN_RANK, &below);
            dst[(size_t)y * (size_t)width + x] = (uchar)(b * 16 + f);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
