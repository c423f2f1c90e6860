// What a two-phase workload's kernels share with the engine (include/portacl/two_phase.hpp).
//   phase 1: __kernel void f1(const uint n, __global uchar* undecided, ...)
//   phase 2: __kernel void f2(const uint count, __global const uint* items, const uint direct, ...)
#ifndef PORTACL_TWO_PHASE_H
#define PORTACL_TWO_PHASE_H

// In phase 2 of a dispatch enqueued without a host sync (enqueueTwoPhase), the items past the flagged
// count: the kernel returns for them.
#define TWO_PHASE_NO_ITEM 0xffffffffu

// The item the k-th work-item of phase 2 works on: the k-th compacted (flagged) index, or k itself
// when the engine runs phase 2 on every item (Double mode).
inline uint two_phase_item(__global const uint* items, const uint direct, const uint k) {
    return direct ? k : items[k];
}

#endif
