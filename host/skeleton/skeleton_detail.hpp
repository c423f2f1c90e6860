// Internals the device path and the reference share.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "portacl/skeleton.hpp"

namespace portacl::skeleton::detail {

// A volume with one voxel of background around it, as the serial references walk it.
struct PaddedVolume {
    explicit PaddedVolume(const io::BinaryVolume& v);
    std::size_t index(int z, int y, int x) const { return (std::size_t(z) * py + std::size_t(y)) * px + std::size_t(x); }
    // The volume without its padding, in v's shape and with v's metadata.
    io::BinaryVolume unpadded(const io::BinaryVolume& v) const;

    int pz, py, px;
    std::vector<std::uint8_t> voxels;
};

// The six borders in scikit-image's order: the (dz, dy, dx) of the neighbour that must be background.
constexpr std::array<std::array<int, 3>, 6> kBorders{{{0, -1, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}}};

// thin() with the number of pending earlier neighbours whose assignments a candidate tries before it
// waits (thin uses 6; 0 makes every dependent candidate wait for its predecessors, the plain wavefront)
// and the number of step stamps the state bytes cycle through before they are cleared (1 to 63; thin
// uses 63, the tests fewer). Exported (PORTACL_API) for the tests.
PORTACL_API io::BinaryVolume thinOnDevice(Context& ctx, const io::BinaryVolume& v, Stats* stats, int maxUnknown, int stamps = 63);

// How the device schedules the parallel thinning (the skeleton is the same whatever it is).
struct SubfieldSchedule {
    // The active list's length below which one work-group does every pass still to come in one launch
    // (skel_thin_group): 0 never, SIZE_MAX from the start ([skeleton] group_below of the profile).
    std::size_t groupBelow = 0;
    // A step's subfields in a first round and a one-work-group tail (skel_subfields_first, _tail)
    // rather than a launch per subfield ([skeleton] subfield_rounds).
    bool rounds = false;
    // Pending earlier border voxels whose assignments a voxel tries before it waits, and the step
    // stamps the marks and decisions cycle through before they are cleared (1 to 63). [skeleton]
    // subfield_unknown sets the first.
    int maxUnknown = 8;
    int stamps = 63;
    // The P-simple removal (thinPSimple): per direction, the walk marks P and lists it, and one
    // launch removes every P-simple voxel of P (skel_psimple); rounds and groupBelow are not used.
    bool psimple = false;
};

// thinSubfields (thinPSimple with schedule.psimple) with the given schedule (thinSubfields takes it
// from the tuning profile). Exported
// (PORTACL_API) for the tests.
PORTACL_API io::BinaryVolume thinSubfieldsOnDevice(Context& ctx, const io::BinaryVolume& v, Stats* stats,
                                                   const SubfieldSchedule& schedule);

// Thinning's passes on the device with the host reading each pass's counters (the first `words` of
// `counters`) while the next pass runs: enqueuePass(p) enqueues pass p, and once pass p's counters
// are read, finished(counts, p) says whether to stop (a pass after the last one that removed voxels
// finds nothing to do). Returns the last pass enqueued; every read has completed when it returns.
cl_uint runPasses(Context& ctx, const cl::Buffer& counters, std::size_t words,
                  const std::function<void(cl_uint)>& enqueuePass,
                  const std::function<bool(const std::vector<cl_uint>&, cl_uint)>& finished);

// A voxel's 3x3x3 neighbourhood, index (dz+1)*9 + (dy+1)*3 + (dx+1); the centre (13) is the voxel.
using NeighbourCube = std::array<std::uint8_t, 27>;
// The topological numbers of a set Y of the neighbourhood (the centre never counts): T26, its
// 26-components among the 26 neighbours; T6, its 6-components among the 18 face and edge neighbours
// that hold a face neighbour. Exported (PORTACL_API) for the tests.
PORTACL_API int topologicalNumber26(const NeighbourCube& y);
PORTACL_API int topologicalNumber6(const NeighbourCube& y);
// Simple for a 26-connected object and 6-connected background: T26(object) = T6(background) = 1.
PORTACL_API bool isSimple(const NeighbourCube& object);
// Whether the centre, a voxel of P, is P-simple for the object (Bertrand's local characterisation;
// host/skeleton/psimple_reference.cpp). `inP` marks P's voxels, all of them object voxels.
PORTACL_API bool isPSimple(const NeighbourCube& object, const NeighbourCube& inP);

// The unpadded indices of the object voxels of the padded image `img` (skel_collect), written to
// `list` (room for every object voxel) and read back: the skeleton's voxels, not the whole volume.
// `collect`: skel_collect, fetched before the thinning's first command (so that no build falls
// between its commands).
std::vector<cl_uint> collectSkeleton(Context& ctx, cl::Kernel& collect, const cl::Buffer& img, const cl::Buffer& list, std::size_t padded,
                                     int py, int px);
// The volume of v's shape and metadata whose object is `voxels` (unpadded indices).
io::BinaryVolume volumeOfVoxels(const io::BinaryVolume& v, const std::vector<cl_uint>& voxels);

}  // namespace portacl::skeleton::detail
