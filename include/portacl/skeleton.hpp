// 3-D thinning of a binary volume to its skeleton (curve skeleton, 26-connected object, 6-connected
// background), identical voxel for voxel to scikit-image's skeletonize_3d and Fiji's Skeletonize3D:
// the algorithm of Lee, Kashyap and Chu (Building skeleton models via 3-D medial surface/axis
// thinning algorithms, CVGIP: Graphical Models and Image Processing 56(6), 462-478, 1994).
//
// The volume is padded with background. Each iteration visits the six borders in scikit-image's
// order (y-1, y+1, x+1, x-1, z+1, z-1 being background); for each border it collects, over the
// volume as it stands, the candidates: object voxels on that border that are not end points
// (exactly one object neighbour), whose removal keeps the Euler characteristic of their 3x3x3
// neighbourhood and leaves its other object voxels one 26-connected piece. It then rechecks the
// candidates one after another in raster order (z, y, x), removing each that is still simple
// (its 26 neighbours, as they stand then, form at most one 26-connected piece). Thinning stops after
// an iteration in which no border removed a voxel.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>

#include "portacl/io/binary_volume.hpp"
#include "portacl/runtime/context.hpp"

namespace portacl::skeleton {

struct PORTACL_API Stats {
    int iterations = 0;            // passes over the six borders, the last one removing nothing
    std::uint64_t candidates = 0;  // candidates collected, summed over every border of every pass
    std::uint64_t rounds = 0;      // device only: rounds of the ordered recheck, summed over every border
};

// Throws one sentence for a malformed mask or a volume with no object voxel.
PORTACL_API void validate(const io::BinaryVolume& v);

// On the device: candidates in parallel, then the recheck resolved in rounds that keep the raster
// order's outcome (cl/skeleton.cl says how). Identical to thinReference on every volume.
PORTACL_API io::BinaryVolume thin(Context& ctx, const io::BinaryVolume& v, Stats* stats = nullptr);
// Serial C++ reference.
PORTACL_API io::BinaryVolume thinReference(const io::BinaryVolume& v, Stats* stats = nullptr);

// A fully parallel, topology-preserving curve thinning: Lee's six border directions, each split into
// 8 subfields (the subfield principle of Bertrand and Aktouf, 1994; the 8 subfields of Németh, Kardos
// and Palágyi, Topology preserving 3D thinning algorithms using four and eight subfields, ICIAR 2010,
// LNCS 6111, 316-325). Each pass visits the six directions in Lee's order; each direction marks the
// object voxels on its border as it starts, then visits the subfields of the voxels whose (z, y, x)
// parities are (0,0,0), (0,0,1), ..., (1,1,1), removing, all at once, every marked voxel of the
// subfield that is simple (Lee's two conditions above) and not a curve end point. No two voxels of a
// subfield are 26-adjacent, so the removal keeps the object's components, cavities and tunnels.
// Thinning stops after a pass that removes nothing. Every removal is proven to keep the topology, and
// no ordered recheck is needed; its skeleton is its own (close to Lee's, with more side branches),
// neither Lee's nor scikit-image's. Stats::candidates counts the removed voxels.
PORTACL_API io::BinaryVolume thinSubfields(Context& ctx, const io::BinaryVolume& v, Stats* stats = nullptr);
PORTACL_API io::BinaryVolume thinSubfieldsReference(const io::BinaryVolume& v, Stats* stats = nullptr);

// A fully parallel directional curve thinning on P-simple points (G. Bertrand, On P-simple points, C. R.
// Acad. Sci. Paris 321, 1995; C. Lohou and G. Bertrand, A 3D 6-subiteration curve thinning algorithm
// based on P-simple points, Discrete Applied Mathematics 151, 2005, 198-228). Each pass visits Lee's six
// border directions in Lee's order; for each, P is the set of object voxels on that border that are
// simple, not curve end points (exactly one object neighbour) and not under an overhang (a face
// neighbour across the direction background, its neighbour in the direction object: Lohou and
// Bertrand's masks), as the direction starts, and every
// voxel of P that is P-simple (simple for X \ S whatever the subset S of P it loses with it; Bertrand's
// local characterisation decides it on the 3x3x3 neighbourhood and P's marks) is removed at once,
// which keeps the object's components, cavities and tunnels. Thinning stops after a pass that removes
// nothing. One removal launch per direction instead of the subfield method's eight; its skeleton is
// its own. Stats::candidates counts the removed voxels.
PORTACL_API io::BinaryVolume thinPSimple(Context& ctx, const io::BinaryVolume& v, Stats* stats = nullptr);
PORTACL_API io::BinaryVolume thinPSimpleReference(const io::BinaryVolume& v, Stats* stats = nullptr);

}  // namespace portacl::skeleton
