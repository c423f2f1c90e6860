// How far a float matrix product is from the exact one: the inputs that show it and the measures,
// for the 3xTF32 kernel beside the FMA kernel (the bench's gemm/tensor-3xtf32 row,
// tests/test_gemm_3xtf32.cpp). (Exported, PORTACL_API, for the bench and the tests.)
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <vector>

namespace portacl {

enum class GemmInputs {
    Random,           // uniform in [-1, 1]
    WideAlternating,  // m * 2^e, m uniform in [1, 2), e whole and uniform in [-10, 9]; A's signs
                      // alternate along K: products spanning 2^40 of magnitude, partly cancelling
    Cancelling        // uniform in [-1, 1], the second half of A's columns repeating the first and the
                      // second half of B's rows minus the first times 1 + d, d uniform in +-2^-10:
                      // every element of C a sum that cancels to about 2^-10 of its terms
};
PORTACL_API const char* gemmInputsName(GemmInputs kind);  // "random", "wide, alternating", "cancelling"

struct GemmOperands {
    std::vector<float> A, B;  // M x K and K x N, row-major
};
PORTACL_API GemmOperands gemmOperands(GemmInputs kind, std::size_t M, std::size_t N, std::size_t K, unsigned seed);

// Rows of the product in double: each element a K-term sum of exact products, within K * 2^-53 of
// sum_k |a_ik b_kj| of the exact value, far below a float product's error.
struct PORTACL_API ExactRows {
    std::size_t N = 0;
    std::vector<std::size_t> rows;   // which rows of C
    std::vector<double> value;       // rows.size() x N: sum_k a_ik b_kj
    std::vector<double> magnitude;   // rows.size() x N: sum_k |a_ik b_kj|
    double medianCondition() const;  // the median of magnitude / |value|: how much the sums cancel
};
// `count` rows spread evenly over M, the first and the last included (all of them when count >= M).
PORTACL_API ExactRows exactRows(std::size_t M, std::size_t N, std::size_t K, const std::vector<float>& A,
                                const std::vector<float>& B, std::size_t count);

struct GemmError {
    double normwise = 0;       // ||C - exact|| / ||exact|| (Frobenius norms over the rows compared)
    double componentwise = 0;  // the largest |c_ij - exact_ij| / sum_k |a_ik b_kj|
};
// C's (M x N, row-major) error on the rows of `exact`.
PORTACL_API GemmError gemmError(const ExactRows& exact, const std::vector<float>& C);

// A plain FP32 GEMM with fused multiply-adds, c = fma(a_ik, b_kj, c) for k in order: the serial
// counterpart of the FMA kernels, to which the 3xTF32 reference is compared.
PORTACL_API std::vector<float> gemmReferenceFma(std::size_t M, std::size_t N, std::size_t K, const std::vector<float>& A,
                                                const std::vector<float>& B);

}  // namespace portacl
