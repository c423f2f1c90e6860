// Internals the device path and the reference share.
#pragma once

#include "portacl/box_count.hpp"

namespace portacl::boxcount::detail {

// Fills the fits and local slopes of a result whose counts are in.
void finish(Result& r, const Options& opt);
bool isPowerOfTwo(int s);
// The checks of validate that need only the shape: positive extents under 2^32 voxels, sizes, fit range.
void checkShapeAndOptions(int nz, int ny, int nx, const Options& opt);

}  // namespace portacl::boxcount::detail
