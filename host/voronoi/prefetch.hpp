// A hint to the cache: the lines of [data, data + bytes), for reading soon. A batch's tracers take
// turns wave by wave, so each finds its tables evicted by the others; asking for them ahead of use
// turns random misses into a stream the memory system overlaps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace portacl::voronoi {

inline void prefetchBytes(const void* data, std::size_t bytes) {
    const char* p = static_cast<const char*>(data);
    for (std::size_t at = 0; at < bytes; at += 64) __builtin_prefetch(p + at, 0, 3);
}

// The same for writing: the room past a vector's end that appends will fill (within its capacity).
template <typename T>
void prefetchAppends(const std::vector<T>& v, std::size_t count) {
    const std::size_t room = std::min(count, v.capacity() - v.size());
    const char* p = reinterpret_cast<const char*>(v.data() + v.size());
    for (std::size_t at = 0; at < room * sizeof(T); at += 64) __builtin_prefetch(p + at, 1, 3);
}

}  // namespace portacl::voronoi
