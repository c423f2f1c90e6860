// What a two-phase workload's kernels share with the engine (include/portacl/runtime/two_phase.hpp). Two
// variants (docs/two_phase.md, "Two variants"):
//
// Compaction (runTwoPhase, enqueueTwoPhase): phase 1 writes a flag per item, the engine compacts them.
//   phase 1: __kernel void f1(const uint n, __global uchar* undecided, ...)
//   phase 2: __kernel void f2(const uint count, __global const uint* items, const uint direct, ...)
//
// Append list (TwoPhaseList): phase 1 appends each flagged item to a list through an atomic counter,
// both in the caller's buffers (the counter zeroed before phase 1); phase 2 reads the count on the
// device and, in mixed mode, runs on a bounded grid (listPhase2Groups) that loops over the list. The
// caller launches both kernels and sets all their arguments; a shape that works:
//
//   __kernel void f1(const uint n, __global uint* listCount, __global uint* list, ...) {
//       const uint i = get_global_id(0);
//       if (i >= n) return;
//       if (/* float cannot be trusted with item i */) two_phase_append(listCount, list, i);
//   }
//   __kernel void f2(const uint direct, const uint n, __global const uint* listCount,
//                    __global const uint* list, ...) {
//       const uint count = two_phase_list_count(direct, n, listCount);
//       for (uint k = get_global_id(0); k < count; k += get_global_size(0))
//           /* the double computation of item */ two_phase_list_item(direct, list, k);
//   }
//
// With a work-group per item, the loop runs over k = get_group_id(0), step get_num_groups(0), and
// ends its body with barrier(CLK_LOCAL_MEM_FENCE) when the next item reuses local memory (the count
// is the same for the whole work-group, so every work-item takes the same number of turns). The
// list's order is not the items' order (whichever work-item appends first): each item must write
// its own result only.
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

// Append list, phase 1: puts `item` on the list of items float cannot be trusted with.
static inline void two_phase_append(__global uint* listCount, __global uint* list, const uint item) {
    list[atomic_inc(listCount)] = item;
}

// Append list, phase 2: how many items it runs on: all n when `direct` (double mode), else the
// listed ones (mixed mode; read after phase 1 has finished: the queue is in order).
static inline uint two_phase_list_count(const uint direct, const uint n, __global const uint* listCount) {
    return direct ? n : *listCount;
}

// Append list, phase 2: the item of its k-th turn (k < two_phase_list_count): k itself when `direct`,
// else the k-th listed item.
static inline uint two_phase_list_item(const uint direct, __global const uint* list, const uint k) {
    return direct ? k : list[k];
}

#endif
