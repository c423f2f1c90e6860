// Two-phase float/double dispatch (docs/two_phase.md: the model of the Voronoi thesis). Two variants: the
// compaction described here (runTwoPhase, enqueueTwoPhase) and the append list (TwoPhaseList, below).
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
// Phase 2 of Mixed mode runs in double where the device has fp64, and otherwise (or when forced, below)
// in double-float arithmetic (cl/common/double_float.h): the phase-2 kernel is then built with
// -D REAL=float -D PORTACL_DOUBLE_FLOAT=1 (guard it with #if PORTACL_DOUBLE_FLOAT), or, for a
// workload that has no double-float kernel, on the host (the workload's own serial double code).
//
// See docs/two_phase.md for a worked example.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"

namespace portacl {

// Where and in what arithmetic phase 2 ran.
enum class Phase2Arithmetic {
    None,         // no phase 2 (Float mode)
    Double,       // on the device, in double
    DoubleFloat,  // on the device, in double-float (pairs of floats)
    Host,         // on the host, in double (the workload's serial code)
};
PORTACL_API const char* phase2ArithmeticName(Phase2Arithmetic a);  // "none", "double", "double-float", "host"

// Whether Mixed mode's phase 2 must avoid the device's double: the device has no fp64, or the device
// profile's [two_phase] phase2 = double-float or host, or PORTACL_FORCE_DOUBLE_FLOAT=1 (so that the
// double-float kernels and host phase 2 run, and are tested, on a device with fp64).
PORTACL_API bool mixedWithoutDouble(Context& ctx);

// The arithmetic of Mixed mode's phase 2 on this device: Double, else DoubleFloat for a workload with
// double-float kernels (unless the profile says [two_phase] phase2 = host, where the host is measured
// faster), else Host. Other modes: Double (Double mode), None (Float mode).
PORTACL_API Phase2Arithmetic phase2Arithmetic(Context& ctx, Precision mode, bool hasDoubleFloatKernels);

// Argument indices the engine owns in each phase's kernel.
constexpr cl_uint kTwoPhase1FirstArg = 2;  // (n, undecided)
constexpr cl_uint kTwoPhase2FirstArg = 3;  // (count, items, direct)

struct PORTACL_API TwoPhaseKernels {
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
    // The source has a double-float phase 2 (under #if PORTACL_DOUBLE_FLOAT, same name and arguments):
    // Mixed mode then runs on a device without fp64.
    bool doubleFloat = false;
    // Phase 2 on the host (runTwoPhase only): called, after phase 1 has finished, with the flagged
    // items in increasing order; it computes their results in the workload's serial double code and
    // leaves them where the workload wants them. Used where phase 2 is Host (no double-float kernel,
    // or the profile's phase2 = host). Without it, Mixed there is refused in one sentence.
    std::function<void(const std::vector<std::uint32_t>& items)> hostPhase2;
};

struct PORTACL_API TwoPhaseReport {
    Precision mode = Precision::Mixed;
    std::size_t items = 0;        // N
    std::size_t undecided = 0;    // items phase 1 flagged (0 when phase 1 did not run: Double)
    std::size_t phase2Items = 0;  // items phase 2 ran on: 0 (Float), N (Double), undecided (Mixed)
    Phase2Arithmetic phase2 = Phase2Arithmetic::None;  // where and how phase 2 ran (or would have)
    // Items finished on the host: all of phase2Items where phase 2 is Host; with DoubleFloat, those it
    // could not vouch for, which the workload's exact host step finished (filled in by the workload).
    std::size_t hostItems = 0;
    double hostSeconds = 0;       // wall time of that host step (and, for Host, of the items' download)
    double phase1Seconds = 0;     // device time of the phase-1 kernel
    double compactSeconds = 0;    // device time of the compaction kernels and the count's read (append list:
                                  // the counter's reset and the count's read)
    double phase2Seconds = 0;     // device time of the phase-2 kernel
    double totalSeconds() const { return phase1Seconds + compactSeconds + phase2Seconds; }
};

// Runs the two phases on items [0, n) and waits for them. A device without fp64 asked for Double gets
// the engine's one-sentence error (Context::requirePrecision) before anything runs; asked for Mixed, it
// runs phase 2 in double-float (kernels.doubleFloat), or on the host (kernels.hostPhase2), or refuses
// in one sentence.
// n must be below 2^32.
PORTACL_API TwoPhaseReport runTwoPhase(Context& ctx, Precision mode, std::size_t n, const TwoPhaseKernels& kernels);

// Where a dispatch enqueued by enqueueTwoPhase leaves its count: a device buffer and a byte offset
// in it, so that the caller reads it together with its own results (one host sync for both).
struct PORTACL_API TwoPhaseCountSlot {
    cl::Buffer buffer;       // receives one cl_uint: the items phase 1 flagged (Float and Mixed);
    std::size_t offset = 0;  // left untouched in Double mode
};

// runTwoPhase without a host sync: enqueues the two phases and returns at once. As the flagged count
// is not known on the host, Mixed mode launches phase 2 over all n items with the item list padded by
// TWO_PHASE_NO_ITEM (cl/common/two_phase.h): the phase-2 kernel must return for that item (with
// workItemsPerItem > 1, the whole work-group does). The count is copied on the device into `count`.
// Dispatches enqueued one after another share the engine's scratch buffers safely (the queue is in
// order). The returned report has the mode and the item count; the time fields stay 0.
PORTACL_API TwoPhaseReport enqueueTwoPhase(Context& ctx, Precision mode, std::size_t n, const TwoPhaseKernels& kernels,
                                           const TwoPhaseCountSlot& count);

// The append-list variant (docs/two_phase.md, "Two variants"; kernel side in cl/common/two_phase.h):
// phase 1 appends each flagged item to a list through an atomic counter, phase 2 reads the count on
// the device and, in Mixed mode, runs on a bounded grid that loops over the list. No compaction, no
// count copy, no engine scratch: the caller owns the counter and the list (in its own buffers, at its
// own offsets: a workload can keep its input, counter, list and results in one buffer and move them
// with one write and one read), launches the kernels and reads the count with its results. What the
// engine gives is the mode logic: which phases run, `direct`, phase 2's grid, and the report.
struct PORTACL_API TwoPhaseList {
    Precision mode = Precision::Mixed;
    // Mixed: phase 2's grid in work-groups at most (listPhase2Groups); 0 otherwise (no bound: Double
    // covers every item, Float runs no phase 2).
    std::size_t boundedGroups = 0;
    // Where phase 2 runs: Double or DoubleFloat on the device (launched by the caller), Host (the
    // caller redoes the listed items in its serial double code; no phase-2 kernel), None (Float).
    Phase2Arithmetic phase2 = Phase2Arithmetic::None;

    bool runsPhase1() const { return mode != Precision::Double; }  // float, on every item
    // A phase-2 kernel runs on the device: on the list (Mixed) or every item (Double).
    bool runsPhase2() const { return phase2 == Phase2Arithmetic::Double || phase2 == Phase2Arithmetic::DoubleFloat; }
    // Mixed mode's flagged items are redone on the host.
    bool phase2OnHost() const { return phase2 == Phase2Arithmetic::Host; }
    // Phase 2's `direct` argument: 1 in Double mode (item k is k, every item), 0 in Mixed (the list).
    cl_uint direct() const { return mode == Precision::Double ? 1u : 0u; }
    // Work-groups to launch phase 2 with, given the work-groups that would cover all n items.
    std::size_t phase2Groups(std::size_t groupsForAllItems) const {
        return boundedGroups > 0 && boundedGroups < groupsForAllItems ? boundedGroups : groupsForAllItems;
    }
    // The report of a dispatch of n items whose phase 1 listed `flagged` (the count the caller read;
    // ignored in Double mode). The time fields stay 0: the caller's kernels, the caller's events.
    TwoPhaseReport report(std::size_t n, std::size_t flagged) const;
};

// The append-list variant's plan for this mode on this context's device. A device without fp64 asked
// for Double gets the engine's one-sentence error (Context::requirePrecision); for Mixed, phase 2 runs
// in double-float (hasDoubleFloatKernels) or on the host (phase2OnHost).
PORTACL_API TwoPhaseList twoPhaseList(Context& ctx, Precision mode, bool hasDoubleFloatKernels = false);

// Work-groups of phase 2's bounded grid in Mixed mode: list_phase2_groups_per_cu (profile section
// [two_phase], default 32: a full H200 with work-groups of 64) times the device's compute units.
PORTACL_API std::size_t listPhase2Groups(Context& ctx);

// Stream compaction on the device: writes the indices i < n with flags[i] != 0 (uchar flags), in
// increasing order, to `indices` (room for n uints) and returns how many there are. Work-group
// prefix sums per tile, one scan of the tile counts, then a scatter.
PORTACL_API std::size_t compactFlags(Context& ctx, const cl::Buffer& flags, std::size_t n, const cl::Buffer& indices);
// Counts the flags without writing indices (what Float mode reports).
PORTACL_API std::size_t countFlags(Context& ctx, const cl::Buffer& flags, std::size_t n);

// Serial reference of compactFlags.
PORTACL_API std::vector<std::uint32_t> compactFlagsReference(const std::vector<std::uint8_t>& flags);

}  // namespace portacl
