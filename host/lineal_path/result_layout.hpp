// Internal: the empty result of an image and options (map shape and placements tried per
// displacement), shared by the device path and the serial reference.
#pragma once

#include "portacl/lineal_path.hpp"

namespace portacl::lineal::detail {

// Map shape, zero counts, and `tried` filled: N when periodic, prod(n_i - |d_i|) otherwise.
Result emptyResult(const PhaseImage& img, const Options& opt);

}  // namespace portacl::lineal::detail

namespace portacl::lineal::detail {

// The serial reference's counts for a chosen list of displacements (the bench times a sample;
// exported, PORTACL_API, for it).
PORTACL_API std::vector<std::uint64_t> referenceCounts(const PhaseImage& img, const Options& opt, const std::vector<Offset>& displacements);

}  // namespace portacl::lineal::detail
