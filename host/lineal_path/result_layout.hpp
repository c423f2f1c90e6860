// Internal: the empty result of an image and options (map shape and placements tried per
// displacement), shared by the device path and the serial reference.
#pragma once

#include "portacl/lineal_path.hpp"

namespace portacl::lineal::detail {

// Map shape, zero counts, and `tried` filled: N when periodic, prod(n_i - |d_i|) otherwise.
Result emptyResult(const PhaseImage& img, const Options& opt);

}  // namespace portacl::lineal::detail
