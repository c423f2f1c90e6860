#include "voronoi/vertex_dictionary.hpp"

#include "voronoi/prefetch.hpp"

#include <algorithm>
#include <cstdint>

namespace portacl::voronoi {

std::size_t VertexDictionary::quadHash(const int q[4]) {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 4; ++i) h = (h ^ static_cast<std::uint32_t>(q[i])) * 0xff51afd7ed558ccdull, h ^= h >> 29;
    return static_cast<std::size_t>(h);
}

std::size_t VertexDictionary::slotOfQuad(const int q[4], const std::vector<Vertex>& vertices) const {
    const std::size_t mask = table_.size() - 1, hash = quadHash(q);
    const std::uint32_t tag = tagOf(hash);
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
        const Slot& s = table_[i];
        if (s.id < 0) return i;
        if (s.tag != tag) continue;
        const int* w = vertices[s.id].q;
        if (w[0] == q[0] && w[1] == q[1] && w[2] == q[2] && w[3] == q[3]) return i;
    }
}

void VertexDictionary::rehash(std::size_t size, const std::vector<Vertex>& vertices) {
    std::vector<Slot> old(size, Slot{-1, 0});
    old.swap(table_);
    for (const Slot& s : old)
        if (s.id >= 0) table_[slotOfQuad(vertices[s.id].q, vertices)] = s;
}

void VertexDictionary::reserve(std::size_t count, const std::vector<Vertex>& vertices) {
    std::size_t size = std::max<std::size_t>(1024, table_.size());
    while (2 * (count + 1) > size) size *= 2;
    if (size > table_.size()) rehash(size, vertices);
    sameQuad_.reserve(count);
}

void VertexDictionary::prefetch() const { prefetchBytes(table_.data(), table_.size() * sizeof(Slot)); }

void VertexDictionary::insert(int id, const std::vector<Vertex>& vertices) { insertAt(kNoSlot, id, vertices); }

void VertexDictionary::insertAt(std::size_t slot, int id, const std::vector<Vertex>& vertices) {
    sameQuad_.resize(vertices.size(), -1);
    if (mustGrow(vertices.size())) {
        // Grow at half load: rehash every first sphere of a quadruple.
        rehash(std::max<std::size_t>(1024, 2 * table_.size()), vertices);
        slot = kNoSlot;
    }
    if (slot == kNoSlot) slot = slotOfQuad(vertices[id].q, vertices);
    Slot& s = table_[slot];
    if (s.id < 0) {
        s = Slot{id, tagOf(quadHash(vertices[id].q))};
        return;
    }
    int last = s.id;
    while (sameQuad_[last] >= 0) last = sameQuad_[last];
    sameQuad_[last] = id;
}

int VertexDictionary::find(const Vertex& v, const std::vector<Vertex>& vertices) const {
    return findAt(slotOf(v.q, vertices), v, vertices);
}

int VertexDictionary::findAt(std::size_t slot, const Vertex& v, const std::vector<Vertex>& vertices) const {
    if (slot == kNoSlot) return -1;
    for (int id = table_[slot].id; id >= 0; id = sameQuad_[id]) {
        const Vertex& w = vertices[id];
        const double d2 = (w.x - v.x) * (w.x - v.x) + (w.y - v.y) * (w.y - v.y) + (w.z - v.z) * (w.z - v.z);
        if (d2 < 1e-14 * (1 + v.r * v.r)) return id;
    }
    return -1;
}

}  // namespace portacl::voronoi
