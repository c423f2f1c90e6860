// TF32, the tensor cores' 19-bit float (8 exponent bits, 10 fraction bits), held in a float: the
// rounding of cl/gemm_mma.cl's 3xTF32 kernel (cvt.rna.tf32.f32) and its split of an operand.
#pragma once

#include "portacl/export.hpp"

namespace portacl {

// x rounded to 10 fraction bits, to nearest with ties away from zero (a carry rounds into the
// exponent, to infinity beyond the largest float); infinities and NaNs are returned as they are.
// (Exported, PORTACL_API, for the tests.)
PORTACL_API float roundToTf32(float x);

// x as big + small: big = roundToTf32(x), small = roundToTf32(x - big) (x - big is exact). For finite
// x below the largest float's rounding, |x - big - small| <= 2^-23 |x|.
struct Tf32Split {
    float big, small;
};
inline Tf32Split splitTf32(float x) {
    const float big = roundToTf32(x);
    return {big, roundToTf32(x - big)};
}

}  // namespace portacl
