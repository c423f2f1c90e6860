// Precision modes. Kernels are built for one element type (float or double); "mixed" is a
// workload-level mode that runs the float variant first and the double variant where float cannot
// decide (see two_phase.hpp).
#pragma once

#include "portacl/export.hpp"

#include <string>

namespace portacl {

enum class Precision { Float, Double, Mixed };

// "float"/"single", "double", "mixed"; throws portacl::Error naming the accepted words otherwise.
PORTACL_API Precision parsePrecision(const std::string& text);
PORTACL_API const char* precisionName(Precision p);
// The OpenCL C type name of an element precision ("float" or "double"); Mixed is not an element type.
PORTACL_API const char* realTypeName(Precision p);

template <typename T>
constexpr Precision precisionOf();
template <>
constexpr Precision precisionOf<float>() { return Precision::Float; }
template <>
constexpr Precision precisionOf<double>() { return Precision::Double; }

}  // namespace portacl
