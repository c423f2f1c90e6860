// Downstream order on a D8 forest without one work-item ever waiting on another (the accumulation in
// cl/drainage.cl, Strahler order in cl/drainage_network.cl). A frontier holds the cells whose
// upstream contributors are all final. One level finalises the frontier's cells, each pulling its
// contributors' values in the fixed order of k, and counts itself off the cell downstream with
// atomic_dec; the contributor that brings that count to zero puts the cell in the next frontier. A
// value is written in one level and read in a later one, and the levels are separated by kernel
// launches (wide frontiers) or by a work-group barrier (narrow ones, one work-group running level
// after level), so every read sees its value: the order is OpenCL 1.2's, not the implementation's.
// A cell that only one cell drains into needs no count: the work-item that finalises its contributor
// goes on to it at once (no other work-item ever touches it), so a level holds only the confluences
// whose last contributor just finished, and chains of single contributors cost no level.
//
// frontier: two halves of `capacity` cells; level L reads half L % 2 and fills the other.
// state: int[4]; state[L % 3] is level L's frontier size. Level L adds to state[(L + 1) % 3] with
// atomics and clears state[(L + 2) % 3] (level L - 1's size, read by no one after level L - 1) for
// level L + 1. state[3]: the level a work-group's run stopped at.
#ifndef PORTACL_D8_FRONTIER_H
#define PORTACL_D8_FRONTIER_H

inline __global const int* frontier_in(__global const int* frontier, long capacity, int level) {
    return frontier + (level & 1) * capacity;
}

// Puts `cell` in level `level + 1`'s frontier.
inline void frontier_push(__global int* frontier, volatile __global int* state, long capacity, int level, long cell) {
    const int slot = atomic_inc(state + (level + 1) % 3);
    frontier[((level + 1) & 1) * capacity + slot] = (int)cell;
}

// Level 0's frontier from the kernels that seed it, one cell a work-item of a one-dimensional
// work-group: the group's sources are counted in local memory and placed with one global atomic, not
// one each, which on a CPU device's cores contend for one counter's cache line (docs/drainage.md).
// Every work-item of the group calls it (it holds barriers); `source` says whether its cell goes in.
inline void frontier_seed(__global int* frontier, volatile __global int* state, long cell, int source,
                          volatile __local int* count, volatile __local int* first) {
    if (get_local_id(0) == 0) *count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int slot = source ? atomic_inc(count) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) *first = *count > 0 ? atomic_add(state, *count) : 0;  // state[0]: level 0's size
    barrier(CLK_LOCAL_MEM_FENCE);
    if (source) frontier[*first + slot] = (int)cell;  // level 0 fills the first half
}

// The loops of a frontier's two kernels. OpenCL C has no templates: a workload defines
// FINALISE(cell, level), the call that finalises one cell of level `level`, and writes the bodies of
// its kernels with these.
// FRONTIER_LEVEL: level `level` over the whole device (the host launches one per level while the
// frontier is wide).
#define FRONTIER_LEVEL(frontier, state, capacity, level, FINALISE)                 \
    do {                                                                           \
        __global const int* in_ = frontier_in(frontier, capacity, level);          \
        const int n_ = state[(level) % 3];                                         \
        for (long j_ = get_global_id(0); j_ < n_; j_ += get_global_size(0))        \
            FINALISE(in_[j_], level);                                              \
        if (get_global_id(0) == 0) state[((level) + 2) % 3] = 0;                   \
    } while (0)

// FRONTIER_GROUP: level after level from first_level in one work-group, a barrier between them,
// while the frontier holds at most `limit` cells (the long narrow tail of the flow paths);
// state[3] says where it stopped.
#define FRONTIER_GROUP(frontier, state, capacity, first_level, limit, FINALISE)    \
    do {                                                                           \
        int level_ = first_level;                                                  \
        for (;;) {                                                                 \
            const int n_ = state[level_ % 3];                                      \
            if (n_ == 0 || n_ > (limit)) break;                                    \
            __global const int* in_ = frontier_in(frontier, capacity, level_);     \
            for (int j_ = get_local_id(0); j_ < n_; j_ += get_local_size(0))       \
                FINALISE(in_[j_], level_);                                         \
            if (get_local_id(0) == 0) state[(level_ + 2) % 3] = 0;                 \
            barrier(CLK_GLOBAL_MEM_FENCE);                                         \
            ++level_;                                                              \
        }                                                                          \
        if (get_local_id(0) == 0) state[3] = level_;                               \
    } while (0)

#endif
