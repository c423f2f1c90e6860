// Dot products of four bytes packed in a word (and of two 16-bit lanes with two bytes, below), c + sum of a's bytes times b's: one instruction on
// NVIDIA GPUs (dp4a, compute capability 6.1 and up) where the kernel is built with DP4A = 1, else the
// products spelt out (the same sums). a's bytes are unsigned; b's unsigned (byte_dot_unsigned) or
// signed (byte_dot_signed, for mask weights). Used by filter_strip.cl and filter_rotating_tile.cl.
#ifndef PORTACL_BYTE_DOT_H
#define PORTACL_BYTE_DOT_H

#ifndef DP4A
#define DP4A 0
#endif

inline uint byte_dot_unsigned(const uint a, const uint b, const uint c) {
#if DP4A
    uint r;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return c + (a & 0xffu) * (b & 0xffu) + ((a >> 8) & 0xffu) * ((b >> 8) & 0xffu) + ((a >> 16) & 0xffu) * ((b >> 16) & 0xffu) +
           (a >> 24) * (b >> 24);
#endif
}

inline int byte_dot_signed(const uint a, const uint b, const int c) {
#if DP4A
    int r;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return c + (int)(a & 0xffu) * (int)(char)(b & 0xffu) + (int)((a >> 8) & 0xffu) * (int)(char)((b >> 8) & 0xffu) +
           (int)((a >> 16) & 0xffu) * (int)(char)((b >> 16) & 0xffu) + (int)(a >> 24) * (int)(char)(b >> 24);
#endif
}

#ifndef DP2A
#define DP2A 0
#endif

// c + a's low 16-bit lane times b's byte 0 + a's high lane times b's byte 1 (all unsigned): one
// instruction on NVIDIA GPUs (dp2a, compute capability 6.1 and up) where the kernel is built with
// DP2A = 1, else spelt out (the same sums). Used by filter_strip.cl's column lanes.
inline uint lane_dot_unsigned(const uint a, const uint b, const uint c) {
#if DP2A
    uint r;
    asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
#endif
}

#endif
