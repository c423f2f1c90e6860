// The tracer's vertex dictionary: which vertex ids a sorted quadruple of balls has, so that a vertex
// reached along another edge is found, not added twice. Open addressing over vertex ids, keyed by the
// sorted quadruple; a quadruple's other tangent spheres (degenerate input) are chained behind its
// first. The vertices themselves stay in the diagram: each call is given them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "portacl/voronoi.hpp"

namespace portacl::voronoi {

class VertexDictionary {
public:
    // The id of the vertex among `vertices` with v's quadruple and (up to rounding) v's sphere, or -1.
    int find(const Vertex& v, const std::vector<Vertex>& vertices) const;
    // Adds vertices[id], the last vertex, which find() did not know.
    void insert(int id, const std::vector<Vertex>& vertices);

    // The same in steps, so that several spheres of one quadruple take one probe of the table: the
    // slot of a quadruple (valid until the next insert), find there, insert there.
    static constexpr std::size_t kNoSlot = ~std::size_t(0);  // an empty table
    std::size_t slotOf(const int q[4], const std::vector<Vertex>& vertices) const {
        return table_.empty() ? kNoSlot : slotOfQuad(q, vertices);
    }
    int findAt(std::size_t slot, const Vertex& v, const std::vector<Vertex>& vertices) const;
    void insertAt(std::size_t slot, int id, const std::vector<Vertex>& vertices);
    // Asks the cache for the table (Tracer::prefetchTables).
    void prefetch() const;
    // Room for `count` vertices without growing (a tracer knows about how many its balls make).
    void reserve(std::size_t count, const std::vector<Vertex>& vertices);

private:
    static std::size_t quadHash(const int q[4]);
    // The table slot of quadruple q: where its first vertex is, or the empty slot where it would go.
    std::size_t slotOfQuad(const int q[4], const std::vector<Vertex>& vertices) const;
    bool mustGrow(std::size_t vertices) const { return 2 * (vertices + 1) > table_.size(); }
    void rehash(std::size_t size, const std::vector<Vertex>& vertices);

    // A slot: the vertex id of the first sphere of a quadruple (or -1) and the quadruple's hash bits
    // above the table's, so that a probe reads a vertex only where the quadruple most likely matches.
    struct Slot {
        int id;
        std::uint32_t tag;
    };
    static std::uint32_t tagOf(std::size_t hash) { return static_cast<std::uint32_t>(hash >> 32); }
    std::vector<Slot> table_;
    std::vector<int> sameQuad_;  // per vertex: the next vertex with the same quadruple, or -1
};

}  // namespace portacl::voronoi
