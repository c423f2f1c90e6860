// The canonical order of a diagram's output (canonicalize in portacl/voronoi.hpp), in two steps, so
// that the order can be worked out from a diagram that is still being traced and applied later.
#pragma once

#include <vector>

#include "portacl/voronoi.hpp"

namespace portacl::voronoi {

// Vertices by quadruple, then sphere; edges by their lower vertex in that order (the edges with no
// vertex last), then upper vertex and generators. Entry i is the old index of what goes to place i.
struct CanonicalOrder {
    std::vector<int> vertices, edges;
};

CanonicalOrder canonicalOrder(const std::vector<Vertex>& vertices, const std::vector<Edge>& edges);
// Reorders `d` by an order worked out from the same vertices and edges, renumbering the edges' ends
// (lower first).
void applyOrder(Diagram& d, const CanonicalOrder& order);

}  // namespace portacl::voronoi
