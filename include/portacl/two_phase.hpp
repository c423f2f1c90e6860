// Two-phase float/double dispatch (DESIGN.md, "the model of the Voronoi thesis").
//
// Phase 1 runs a workload's float kernel on all N items; it writes each item's result and a
// per-item "undecided" flag (1 where float cannot be trusted: an error bound or a near-tie). The
// engine compacts the flagged item indices on the device (a parallel, order-preserving stream
// compaction) and phase 2 runs the workload's double kernel on those items alone.
//
//   Precision::Float   phase 1 only; the flagged items are still counted (report.undecided)
//   Precision::Double  phase 2 on every item (phase 1 does not run)
//   Precision::Mixed   phase 1 on all items, phase 2 on the flagged ones
//
// Kernel contract (both kernels live in one cl/<source>, built twice: phase 1 with -D REAL=float
// -D PORTACL_DOUBLE=0, phase 2 with -D REAL=double -D PORTACL_DOUBLE=1; guard double code with
// #if PORTACL_DOUBLE). The engine owns the leading arguments; the workload's own arguments follow,
// the same list for both kernels, set by TwoPhaseKernels::setArgs from index `firstArg` on:
//
//   __kernel void my_phase1(const uint n, __global uchar* undecided, ...workload args)
//       item i = get_global_id(0); return if i >= n; write the float result and
//       undecided[i] = 0 or 1 (every i < n must be written).
//   __kernel void my_phase2(const uint count, __global const uint* items, const uint direct, ...)
//       k = get_global_id(0); return if k >= count; item i = direct ? k : items[k]
//       (two_phase_item() in cl/common/two_phase.h); write the double result of item i.
//
// See docs/two_phase.md for a worked example.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "portacl/context.hpp"
#include "portacl/precision.hpp"

namespace portacl {

// Argument indices the engine owns in each phase's kernel.
constexpr cl_uint kTwoPhase1FirstArg = 2;  // (n, undecided)
constexpr cl_uint kTwoPhase2FirstArg = 3;  // (count, items, direct)

struct TwoPhaseKernels {
    std::string source;        // "predicates.cl": cl/<source>
    std::string phase1;        // float kernel name
    std::string phase2;        // double kernel name
    std::string options;       // extra build options for both phases ("" for none)
    // Sets the workload's own arguments of either kernel, from index firstArg on.
    std::function<void(cl::Kernel& kernel, cl_uint firstArg)> setArgs;
    // Work-items per item: 1 (default) runs one work-item per item, as above. W > 1 runs one
    // work-group of W work-items per item (global size items x W, local size W): the kernels take
    // their item from get_group_id(0) (phase 1: group g is item g; phase 2: group k is the k-th item
    // as two_phase_item() gives it), and one of them writes undecided[item] in phase 1. For items
    // whose work is large enough to share (a reduction in local memory). W must not exceed what the
    // kernels allow on the device.
    std::size_t workItemsPerItem = 1;
    // With workItemsPerItem = W > 1: items per work-group (a work-group of W x itemsPerGroup
    // work-items; items g*itemsPerGroup ... of group g, W consecutive work-items each). A group may
    // run past n (phase 1) or the count (phase 2): the kernel skips those items and keeps its
    // barriers. For items too small for a whole work-group (a warp of W = 8 items x 4).
    std::size_t itemsPerGroup = 1;
    // Phase 2's own shape (0: as phase 1): a workload whose phase-2 items are few (the flagged ones
    // of Mixed mode) may give each a larger work-group. Applies to phase 2 in every mode.
    std::size_t phase2WorkItemsPerItem = 0;
    std::size_t phase2ItemsPerGroup = 0;
};

struct TwoPhaseReport {
    Precision mode = Precision::Mixed;
    std::size_t items = 0;        // N
    std::size_t undecided = 0;    // items phase 1 flagged (0 when phase 1 did not run: Double)
    std::size_t phase2Items = 0;  // items phase 2 ran on: 0 (Float), N (Double), undecided (Mixed)
    double phase1Seconds = 0;     // device time of the phase-1 kernel
    double compactSeconds = 0;    // device time of the compaction kernels (and the count's read)
    double phase2Seconds = 0;     // device time of the phase-2 kernel
    double totalSeconds() const { return phase1Seconds + compactSeconds + phase2Seconds; }
};

// Runs the two phases on items [0, n) and waits for them. A device without fp64 asked for Double
// or Mixed gets the engine's one-sentence error (Context::requirePrecision) before anything runs.
// n must be below 2^32.
TwoPhaseReport runTwoPhase(Context& ctx, Precision mode, std::size_t n, const TwoPhaseKernels& kernels);

// Where a dispatch enqueued by enqueueTwoPhase leaves its count: a device buffer and a byte offset
// in it, so that the caller reads it together with its own results (one host sync for both).
struct TwoPhaseCountSlot {
    cl::Buffer buffer;       // receives one cl_uint: the items phase 1 flagged (Float and Mixed);
    std::size_t offset = 0;  // left untouched in Double mode
};

// runTwoPhase without a host sync: enqueues the two phases and returns at once. As the flagged count
// is not known on the host, Mixed mode launches phase 2 over all n items with the item list padded by
// TWO_PHASE_NO_ITEM (cl/common/two_phase.h): the phase-2 kernel must return for that item (with
// workItemsPerItem > 1, the whole work-group does). The count is copied on the device into `count`.
// Dispatches enqueued one after another share the engine's scratch buffers safely (the queue is in
// order). The returned report has the mode and the item count; the time fields stay 0.
TwoPhaseReport enqueueTwoPhase(Context& ctx, Precision mode, std::size_t n, const TwoPhaseKernels& kernels,
                               const TwoPhaseCountSlot& count);

// Stream compaction on the device: writes the indices i < n with flags[i] != 0 (uchar flags), in
// increasing order, to `indices` (room for n uints) and returns how many there are. Work-group
// prefix sums per tile, one scan of the tile counts, then a scatter.
std::size_t compactFlags(Context& ctx, const cl::Buffer& flags, std::size_t n, const cl::Buffer& indices);
// Counts the flags without writing indices (what Float mode reports).
std::size_t countFlags(Context& ctx, const cl::Buffer& flags, std::size_t n);

// Serial reference of compactFlags.
std::vector<std::uint32_t> compactFlagsReference(const std::vector<std::uint8_t>& flags);

}  // namespace portacl
