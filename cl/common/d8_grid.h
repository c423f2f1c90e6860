// D8 direction grids shared by the drainage kernels: the codes 0..7 = E, NE, N, NW, W, SW, S, SE, the
// two special codes and each direction's offsets.
#ifndef PORTACL_D8_GRID_H
#define PORTACL_D8_GRID_H

#define NO_FLOW 8
#define NO_DATA 255

__constant int ROW_OFFSET[8] = {0, -1, -1, -1, 0, 1, 1, 1};
__constant int COL_OFFSET[8] = {1, 1, 0, -1, -1, -1, 0, 1};

#endif
