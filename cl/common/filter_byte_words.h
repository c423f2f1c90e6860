// Four bytes of an 8-bit plane's row as one word, for the GPU tile kernels that stage rows in local
// memory a word at a time (filter_separable_tile.cl, filter_rotating_tile.cl). Included after
// common/filter_common.h (border_index).
#ifndef PORTACL_FILTER_BYTE_WORDS_H
#define PORTACL_FILTER_BYTE_WORDS_H

// Four bytes of row yi (-1: outside under the constant rule) from column x on, through the border rule.
inline uint gather_word(__global const uchar* src, const int w, const int yi, const int x, const int outside) {
    uchar4 v;
    int xi = border_index(x, w);
    v.s0 = (yi < 0 || xi < 0) ? (uchar)outside : src[yi * w + xi];
    xi = border_index(x + 1, w);
    v.s1 = (yi < 0 || xi < 0) ? (uchar)outside : src[yi * w + xi];
    xi = border_index(x + 2, w);
    v.s2 = (yi < 0 || xi < 0) ? (uchar)outside : src[yi * w + xi];
    xi = border_index(x + 3, w);
    v.s3 = (yi < 0 || xi < 0) ? (uchar)outside : src[yi * w + xi];
    return as_uint(v);
}

#endif
