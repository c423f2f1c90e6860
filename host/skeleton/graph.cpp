// The skeleton's graph: degrees, nodes (end points and clusters of adjacent junction voxels), and
// the branches traced along degree-2 voxels from every node, then the loops left over.
#include <cmath>
#include <iomanip>
#include <map>
#include <set>

#include "portacl/runtime/output_file.hpp"
#include "portacl/skeleton_graph.hpp"

namespace portacl::skeleton {
namespace {

struct Grid {
    const io::BinaryVolume& v;
    bool on(int z, int y, int x) const { return z >= 0 && y >= 0 && x >= 0 && z < v.nz && y < v.ny && x < v.nx && v.at(z, y, x); }
    std::array<int, 3> coords(std::size_t i) const {
        return {int(i / (std::size_t(v.ny) * v.nx)), int(i / std::size_t(v.nx) % std::size_t(v.ny)), int(i % std::size_t(v.nx))};
    }
    std::vector<std::size_t> neighbours(std::size_t i) const {
        const auto c = coords(i);
        std::vector<std::size_t> out;
        for (int a = -1; a <= 1; ++a)
            for (int b = -1; b <= 1; ++b)
                for (int d = -1; d <= 1; ++d)
                    if ((a || b || d) && on(c[0] + a, c[1] + b, c[2] + d)) out.push_back(v.index(c[0] + a, c[1] + b, c[2] + d));
        return out;
    }
    double step(std::size_t i, std::size_t j) const {
        const auto p = coords(i), q = coords(j);
        double s = 0;
        for (int k = 0; k < 3; ++k) s += std::pow((p[k] - q[k]) * v.spacing[k], 2);
        return std::sqrt(s);
    }
};

}  // namespace

double Graph::totalLength() const {
    double s = 0;
    for (const auto& b : branches) s += b.length;
    return s;
}

std::uint64_t Graph::junctions() const {
    std::uint64_t n = 0;
    for (bool j : nodeIsJunction) n += j;
    return n;
}

Graph skeletonGraph(const io::BinaryVolume& s) {
    io::checkBinaryVolume(s, "the skeleton graph");
    const Grid grid{s};
    Graph g;
    std::map<std::size_t, int> degree;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s.mask[i]) degree[i] = int(grid.neighbours(i).size());
    g.voxels = degree.size();
    // Nodes: each end point, and each 26-connected cluster of junction voxels.
    std::map<std::size_t, std::int64_t> nodeOf;
    for (const auto& [i, d] : degree) {
        if (d == 0) ++g.isolated;
        if (d == 1) {
            ++g.endPoints;
            const auto c = grid.coords(i);
            nodeOf[i] = std::int64_t(g.nodes.size());
            g.nodes.push_back({double(c[0]), double(c[1]), double(c[2])});
            g.nodeIsJunction.push_back(false);
        }
        if (d >= 3) ++g.junctionVoxels;
    }
    for (const auto& [i, d] : degree) {
        if (d < 3 || nodeOf.count(i)) continue;
        const std::int64_t id = std::int64_t(g.nodes.size());
        std::array<double, 3> sum{0, 0, 0};
        std::size_t members = 0;
        std::vector<std::size_t> stack{i};
        nodeOf[i] = id;
        while (!stack.empty()) {
            const std::size_t p = stack.back();
            stack.pop_back();
            const auto c = grid.coords(p);
            for (int k = 0; k < 3; ++k) sum[k] += c[k];
            ++members;
            for (std::size_t q : grid.neighbours(p))
                if (degree[q] >= 3 && !nodeOf.count(q)) {
                    nodeOf[q] = id;
                    stack.push_back(q);
                }
        }
        g.nodes.push_back({sum[0] / double(members), sum[1] / double(members), sum[2] / double(members)});
        g.nodeIsJunction.push_back(true);
    }
    // Branches from every node voxel into each neighbour not in its own junction, along degree-2 voxels.
    std::set<std::pair<std::size_t, std::size_t>> used;  // (node voxel, first voxel) steps already traced
    std::set<std::size_t> onBranch;
    for (const auto& [start, node] : nodeOf) {
        for (std::size_t first : grid.neighbours(start)) {
            if (nodeOf.count(first) && nodeOf[first] == node) continue;  // inside one junction
            if (used.count({start, first})) continue;
            Branch b;
            b.from = node;
            b.voxels = 2;
            b.length = grid.step(start, first);
            std::size_t prev = start, cur = first;
            while (!nodeOf.count(cur)) {
                onBranch.insert(cur);
                std::size_t next = prev;
                for (std::size_t q : grid.neighbours(cur))
                    if (q != prev) next = q;
                b.length += grid.step(cur, next);
                ++b.voxels;
                prev = cur;
                cur = next;
            }
            used.insert({start, first});
            used.insert({cur, prev});
            b.to = nodeOf[cur];
            const int junctionsAtEnds = int(g.nodeIsJunction[std::size_t(b.from)]) + int(g.nodeIsJunction[std::size_t(b.to)]);
            b.type = junctionsAtEnds;  // 0 end-end, 1 junction-end, 2 junction-junction
            g.branches.push_back(b);
        }
    }
    // Loops: degree-2 voxels no branch reached.
    for (const auto& [i, d] : degree) {
        if (d != 2 || onBranch.count(i)) continue;
        Branch b;
        b.type = 3;
        std::size_t prev = grid.neighbours(i)[0], cur = i;
        do {
            onBranch.insert(cur);
            ++b.voxels;
            std::size_t next = prev;
            for (std::size_t q : grid.neighbours(cur))
                if (q != prev) next = q;
            b.length += grid.step(cur, next);
            prev = cur;
            cur = next;
        } while (cur != i && !onBranch.count(cur));
        g.branches.push_back(b);
    }
    return g;
}

void writeBranchesCsv(const std::string& path, const Graph& g) {
    writeFileAtomically(path, [&](std::ostream& os) {
        os << std::setprecision(10) << "branch,type,from,to,from_z,from_y,from_x,to_z,to_y,to_x,voxels,length\n";
        for (std::size_t i = 0; i < g.branches.size(); ++i) {
            const auto& b = g.branches[i];
            os << i << ',' << b.type << ',' << b.from << ',' << b.to;
            for (std::int64_t n : {b.from, b.to})
                for (int k = 0; k < 3; ++k) {
                    os << ',';
                    if (n >= 0) os << g.nodes[std::size_t(n)][std::size_t(k)];
                }
            os << ',' << b.voxels << ',' << b.length << '\n';
        }
    });
}

}  // namespace portacl::skeleton
