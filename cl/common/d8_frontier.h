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

// The cells a finalised cell puts in the next frontier: at most FRONTIER_OUT (D-infinity's two
// receivers), written by FINALISE into out[0..], -1 where none.
#define FRONTIER_OUT 2
// The local memory of a frontier kernel's loops, declared at the kernel's outermost scope (OpenCL C
// allows __local variables nowhere else): a round's staged cells, for work-groups of at most
// FRONTIER_MAX_GROUP work-items.
#define FRONTIER_MAX_GROUP 256
#define FRONTIER_LOCALS                                          \
    __local int frontier_cells_[FRONTIER_OUT * FRONTIER_MAX_GROUP]; \
    volatile __local int frontier_count_, frontier_first_

// One round's cells of a work-group into level + 1's frontier: counted in local memory, the group's
// place taken with one global atomic (one a cell contended on a CPU device's cores: docs/drainage.md),
// then written. Every work-item of the group calls it.
inline void frontier_stage(__global int* frontier, volatile __global int* state, long capacity, int level, const long* out,
                           __local int* cells, volatile __local int* count, volatile __local int* first) {
    barrier(CLK_LOCAL_MEM_FENCE);  // the round before has read count and first
    if (get_local_id(0) == 0) *count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < FRONTIER_OUT; ++k)
        if (out[k] >= 0) cells[atomic_inc(count)] = (int)out[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) *first = *count > 0 ? atomic_add(state + (level + 1) % 3, *count) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __global int* to = frontier + ((level + 1) & 1) * capacity + *first;
    for (int k = get_local_id(0); k < *count; k += get_local_size(0)) to[k] = cells[k];
}

// Level 0's frontier from the kernels that seed it, one cell a work-item of a one-dimensional
// work-group (after FRONTIER_LOCALS; every work-item runs it, `source` saying whether its cell goes
// in): frontier_stage as the round of a level -1.
#define FRONTIER_SEED(frontier, state, capacity, cell, source)                                         \
    do {                                                                                               \
        const long seed_[FRONTIER_OUT] = {(source) ? (long)(cell) : -1, -1};                           \
        frontier_stage(frontier, state, capacity, -1, seed_, frontier_cells_, &frontier_count_,        \
                       &frontier_first_);                                                              \
    } while (0)

// The loops of a frontier's two kernels. OpenCL C has no templates: a workload defines
// FINALISE(cell, level, out), the call that finalises one cell of level `level` and names the cells it
// completes downstream in out, and writes the bodies of its kernels with these, after FRONTIER_LOCALS.
// The loops run the same number of rounds in every work-item of a group (frontier_stage's barriers).
// FRONTIER_LEVEL: level `level` over the whole device (the host launches one per level while the
// frontier is wide).
#define FRONTIER_LEVEL(frontier, state, capacity, level, FINALISE)                                     \
    do {                                                                                               \
        __global const int* in_ = frontier_in(frontier, capacity, level);                              \
        const long n_ = state[(level) % 3];                                                            \
        for (long base_ = 0; base_ < n_; base_ += get_global_size(0)) {                                \
            long out_[FRONTIER_OUT] = {-1, -1};                                                        \
            const long j_ = base_ + get_global_id(0);                                                  \
            if (j_ < n_) FINALISE(in_[j_], level, out_);                                               \
            frontier_stage(frontier, state, capacity, level, out_, frontier_cells_, &frontier_count_,  \
                           &frontier_first_);                                                          \
        }                                                                                              \
        if (get_global_id(0) == 0) state[((level) + 2) % 3] = 0;                                       \
    } while (0)

// FRONTIER_GROUP: level after level from first_level in one work-group, a barrier between them,
// while the frontier holds at most `limit` cells (the long narrow tail of the flow paths), at most
// FRONTIER_GROUP_LEVELS of them a launch; state[3] says where it stopped, and the host launches it
// again from there. Why the bound: Mesa's llvmpipe (rusticl) lost a level's cells in a work-group
// that had run about a thousand levels (D-infinity's spiral in tests/test_drainage_tiles.cpp, at
// level 1061), and a display GPU's watchdog ends a launch that runs for seconds.
#ifndef FRONTIER_GROUP_LEVELS
#define FRONTIER_GROUP_LEVELS 512
#endif
#define FRONTIER_GROUP(frontier, state, capacity, first_level, limit, FINALISE)                        \
    do {                                                                                               \
        int level_ = first_level;                                                                      \
        for (int run_ = 0; run_ < FRONTIER_GROUP_LEVELS; ++run_) {                                     \
            const int n_ = state[level_ % 3];                                                          \
            if (n_ == 0 || n_ > (limit)) break;                                                        \
            __global const int* in_ = frontier_in(frontier, capacity, level_);                         \
            for (int base_ = 0; base_ < n_; base_ += (int)get_local_size(0)) {                         \
                long out_[FRONTIER_OUT] = {-1, -1};                                                    \
                const int j_ = base_ + (int)get_local_id(0);                                           \
                if (j_ < n_) FINALISE(in_[j_], level_, out_);                                          \
                frontier_stage(frontier, state, capacity, level_, out_, frontier_cells_,               \
                               &frontier_count_, &frontier_first_);                                    \
            }                                                                                          \
            if (get_local_id(0) == 0) state[(level_ + 2) % 3] = 0;                                     \
            barrier(CLK_GLOBAL_MEM_FENCE);                                                             \
            ++level_;                                                                                  \
        }                                                                                              \
        if (get_local_id(0) == 0) state[3] = level_;                                                   \
    } while (0)

#endif
