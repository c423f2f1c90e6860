// The solvers' choices of kernel path and launch shape: the device profile's [kwave] keys, each
// overridable per run through RunOptions::profileKeys (tests run every path on one device).
#pragma once

#include <string>

#include "portacl/kwave.hpp"

namespace portacl::kwave {

// [kwave] `name` of the device profile, or the value options.profileKeys gives it; `fallback` when
// neither sets it. A value outside [lo, hi] is refused with one sentence.
long profileKey(const Context& ctx, const RunOptions& options, const std::string& name, long fallback, long lo = 0, long hi = 1);

}  // namespace portacl::kwave
