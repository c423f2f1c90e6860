// The graph of a 3-D skeleton, in the terms skan uses for its branch summary: skeleton voxels are
// 26-connected; a voxel's degree is its number of skeleton neighbours. End points have degree 1,
// junction voxels degree 3 or more, and 26-adjacent junction voxels form one junction. A branch is
// the path of degree-2 voxels between two nodes (end points or junctions), or a closed loop of
// degree-2 voxels. Branch types as skan numbers them: 0 end point to end point, 1 junction to end
// point, 2 junction to junction, 3 closed loop. Lengths are sums of the Euclidean steps between
// voxel centres, scaled by the voxel spacing (z, y, x).
#pragma once

#include "portacl/export.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "portacl/io/binary_volume.hpp"

namespace portacl::skeleton {

struct PORTACL_API Branch {
    int type = 0;             // 0, 1, 2 or 3, as above
    std::int64_t from = -1, to = -1;  // node indices (-1 for a loop)
    std::uint64_t voxels = 0; // voxels on the branch, both nodes' end voxels included
    double length = 0;        // Euclidean length between the end voxels' centres, along the branch
};

struct PORTACL_API Graph {
    std::uint64_t voxels = 0;
    std::uint64_t endPoints = 0;       // voxels of degree 1
    std::uint64_t junctionVoxels = 0;  // voxels of degree >= 3
    std::uint64_t isolated = 0;        // voxels of degree 0
    // Nodes: end points, then junctions (clusters of adjacent junction voxels), as (z, y, x) centres.
    std::vector<std::array<double, 3>> nodes;
    std::vector<bool> nodeIsJunction;
    std::vector<Branch> branches;
    double totalLength() const;
    std::uint64_t junctions() const;  // junction clusters
};

// The graph of a skeleton (a 0/1 mask). Serial; linear in the skeleton's voxels.
PORTACL_API Graph skeletonGraph(const io::BinaryVolume& skeleton);

// Writes one row per branch (type, nodes, their coordinates, voxels, length) as CSV, atomically.
PORTACL_API void writeBranchesCsv(const std::string& path, const Graph& g);

}  // namespace portacl::skeleton
