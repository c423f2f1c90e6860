// Internals the device path and the reference share.
#pragma once

#include <cstddef>

#include "portacl/box_count.hpp"

namespace portacl::boxcount::detail {

// Fills the fits and local slopes of a result whose counts are in.
void finish(Result& r, const Options& opt);
bool isPowerOfTwo(int s);
// The checks of validate that need only the shape: positive extents under 2^32 voxels, sizes, fit range.
void checkShapeAndOptions(int nz, int ny, int nx, const Options& opt);

// Sides that are not powers of two are scanned one work-item per box when they have at least
// `directMinBoxes` boxes, else reduced along x, y and z in turn. boxCount passes
// directScanMinBoxes(device): on a GPU 256 boxes a compute unit, enough to keep it busy; on a CPU 0.
PORTACL_API Result boxCountOnDevice(Context& ctx, const cl::Buffer& mask, int nz, int ny, int nx, const Options& opt,
                                    std::size_t directMinBoxes);
PORTACL_API std::size_t directScanMinBoxes(const DeviceInfo& device);

}  // namespace portacl::boxcount::detail
