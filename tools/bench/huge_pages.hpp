// The FFTW bench tools' arrays: 2 MiB-aligned and advised to huge pages, as FFTW's own planner
// measurements would see a large solver's arrays. Exits with a sentence when memory runs out.
#pragma once

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

inline void* hugePages(std::size_t bytes) {
    const std::size_t align = std::size_t(2) << 20, size = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, size);
    if (!p) {
        std::fprintf(stderr, "out of memory for %zu bytes\n", bytes);
        std::exit(1);
    }
    ::madvise(p, size, MADV_HUGEPAGE);
    return p;
}
