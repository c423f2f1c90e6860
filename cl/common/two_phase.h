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
// caller launches both kernels and sets all their arguments (two_phase_append_group appends with one
// atomic per work-group where the flagged items are few among many); a shape that works:
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

// Append list, phase 1, one global atomic per work-group instead of one per item (for a kernel whose
// flagged items are rare and whose items are many: the predicates' batch). Every work-item of the
// (1-D) work-group calls it, those past the last item too (it holds barriers), with `flagged` whether
// `item` goes on the list. `slots`: local memory for 2 + the work-group's size uints. With keepItems
// 0, only the counter grows (the list is not written: a float-only run that just counts).
static inline void two_phase_append_group(__global uint* listCount, __global uint* list, const uint keepItems,
                                          const uint item, const int flagged, __local uint* slots) {
    const uint lid = get_local_id(0);
    if (lid == 0) slots[0] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (flagged) slots[2 + atomic_inc(&slots[0])] = item;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint count = slots[0];  // the same for every work-item of the group
    if (count == 0) return;
    if (lid == 0) slots[1] = atomic_add(listCount, count);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (keepItems)
        for (uint k = lid; k < count; k += get_local_size(0)) list[slots[1] + k] = slots[2 + k];
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
