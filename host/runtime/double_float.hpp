// The serial C++ reference of the double-float arithmetic (cl/common/double_float.h) and of the
// predicates' double-float phase 2 (cl/common/predicates_double_float.h): the same code, compiled for
// the host, whose float operations round once each (ISO C++ mode: no contraction). Both the fma and
// the split variants are here (df_two_prod_fma / df_two_prod_dekker, df_mul_fma / df_mul_dekker);
// df_two_prod and df_mul are the split ones unless the host defines FP_FAST_FMAF.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace portacl::df {

using std::fabs;
using std::fma;
using std::fmax;
using std::ilogb;
using std::ldexp;

struct float3 {
    float x, y, z;
};

#include "../../cl/common/double_float.h"
#include "../../cl/common/predicates_double_float.h"

}  // namespace portacl::df
