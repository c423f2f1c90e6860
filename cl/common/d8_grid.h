// D8 direction grids shared by the drainage kernels: the codes 0..7 = E, NE, N, NW, W, SW, S, SE, the
// two special codes, each direction's offsets, and the walks' fence.
#ifndef PORTACL_D8_GRID_H
#define PORTACL_D8_GRID_H

#define NO_FLOW 8
#define NO_DATA 255

// The fence between a walker's store and its count (and between the count and its gathering reads).
// Mesa's llvmpipe breaks a mem_fence in divergent control flow (the walk stops); there the host sets
// WALK_FENCES 0 and the atomic's own ordering (a locked instruction on x86) stands in for it.
#ifndef WALK_FENCES
#define WALK_FENCES 1
#endif
#if WALK_FENCES
#define WALK_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#else
#define WALK_FENCE()
#endif

__constant int ROW_OFFSET[8] = {0, -1, -1, -1, 0, 1, 1, 1};
__constant int COL_OFFSET[8] = {1, 1, 0, -1, -1, -1, 0, 1};

#endif
