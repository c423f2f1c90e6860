#include "voronoi/vertex_dictionary.hpp"

#include <algorithm>
#include <cstdint>

namespace portacl::voronoi {

std::size_t VertexDictionary::quadHash(const int q[4]) {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 4; ++i) h = (h ^ static_cast<std::uint32_t>(q[i])) * 0xff51afd7ed558ccdull, h ^= h >> 29;
    return static_cast<std::size_t>(h);
}

std::size_t VertexDictionary::slotOfQuad(const int q[4], const std::vector<Vertex>& vertices) const {
    const std::size_t mask = table_.size() - 1;
    for (std::size_t i = quadHash(q) & mask;; i = (i + 1) & mask) {
        const int id = table_[i];
        if (id < 0) return i;
        const int* w = vertices[id].q;
        if (w[0] == q[0] && w[1] == q[1] && w[2] == q[2] && w[3] == q[3]) return i;
    }
}

void VertexDictionary::insert(int id, const std::vector<Vertex>& vertices) { insertAt(kNoSlot, id, vertices); }

void VertexDictionary::insertAt(std::size_t slot, int id, const std::vector<Vertex>& vertices) {
    sameQuad_.resize(vertices.size(), -1);
    if (mustGrow(vertices.size())) {
        // Grow at half load: rehash every first sphere of a quadruple.
        std::vector<int> old(std::max<std::size_t>(1024, 2 * table_.size()), -1);
        old.swap(table_);
        for (int v : old)
            if (v >= 0) table_[slotOfQuad(vertices[v].q, vertices)] = v;
        slot = kNoSlot;
    }
    if (slot == kNoSlot) slot = slotOfQuad(vertices[id].q, vertices);
    if (table_[slot] < 0) {
        table_[slot] = id;
        return;
    }
    int last = table_[slot];
    while (sameQuad_[last] >= 0) last = sameQuad_[last];
    sameQuad_[last] = id;
}

int VertexDictionary::find(const Vertex& v, const std::vector<Vertex>& vertices) const {
    return findAt(slotOf(v.q, vertices), v, vertices);
}

int VertexDictionary::findAt(std::size_t slot, const Vertex& v, const std::vector<Vertex>& vertices) const {
    if (slot == kNoSlot) return -1;
    for (int id = table_[slot]; id >= 0; id = sameQuad_[id]) {
        const Vertex& w = vertices[id];
        const double d2 = (w.x - v.x) * (w.x - v.x) + (w.y - v.y) * (w.y - v.y) + (w.z - v.z) * (w.z - v.z);
        if (d2 < 1e-14 * (1 + v.r * v.r)) return id;
    }
    return -1;
}

}  // namespace portacl::voronoi
