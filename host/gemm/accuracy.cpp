#include "gemm/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "portacl/gemm.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {

const char* gemmInputsName(GemmInputs kind) {
    switch (kind) {
        case GemmInputs::Random: return "random";
        case GemmInputs::WideAlternating: return "wide, alternating";
        case GemmInputs::Cancelling: return "cancelling";
    }
    return "?";
}

GemmOperands gemmOperands(GemmInputs kind, std::size_t M, std::size_t N, std::size_t K, unsigned seed) {
    checkGemmSizes(M, N, K, sizeof(float));
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f), mantissa(1.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-10, 9);
    GemmOperands out{std::vector<float>(M * K), std::vector<float>(K * N)};
    if (kind != GemmInputs::WideAlternating) {
        for (float& x : out.A) x = uniform(gen);
        for (float& x : out.B) x = uniform(gen);
    }
    if (kind == GemmInputs::Random) return out;
    if (kind == GemmInputs::Cancelling) {
        // Column k + h of A repeats column k; row k + h of B is minus row k, perturbed: each sum's
        // halves cancel but for the perturbations (an odd K's last term stays random).
        const std::size_t h = K / 2;
        std::uniform_real_distribution<float> perturbation(-1.0f / 1024, 1.0f / 1024);
        for (std::size_t i = 0; i < M; ++i)
            for (std::size_t k = 0; k < h; ++k) out.A[i * K + k + h] = out.A[i * K + k];
        for (std::size_t k = 0; k < h; ++k)
            for (std::size_t j = 0; j < N; ++j) out.B[(k + h) * N + j] = -out.B[k * N + j] * (1.0f + perturbation(gen));
        return out;
    }
    const auto wide = [&] { return std::ldexp(mantissa(gen), exponent(gen)); };
    for (std::size_t i = 0; i < M * K; ++i) out.A[i] = (i % K) % 2 ? -wide() : wide();
    for (float& x : out.B) x = wide();
    return out;
}

double ExactRows::medianCondition() const {
    std::vector<double> c;
    c.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i)
        c.push_back(value[i] != 0 ? magnitude[i] / std::abs(value[i]) : std::numeric_limits<double>::infinity());
    if (c.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::nth_element(c.begin(), c.begin() + c.size() / 2, c.end());
    return c[c.size() / 2];
}

ExactRows exactRows(std::size_t M, std::size_t N, std::size_t K, const std::vector<float>& A, const std::vector<float>& B,
                    std::size_t count) {
    if (A.size() != M * K || B.size() != K * N) throw Error("matrix product: A must have M*K and B K*N elements");
    ExactRows e;
    e.N = N;
    if (M == 0) return e;
    count = std::min(count, M);
    for (std::size_t r = 0; r < count; ++r) e.rows.push_back(count == 1 ? 0 : r * (M - 1) / (count - 1));
    e.value.assign(count * N, 0.0);
    e.magnitude.assign(count * N, 0.0);
    for (std::size_t r = 0; r < count; ++r) {
        double* v = e.value.data() + r * N;
        double* m = e.magnitude.data() + r * N;
        for (std::size_t k = 0; k < K; ++k) {
            const double a = A[e.rows[r] * K + k];
            const float* b = B.data() + k * N;
            for (std::size_t j = 0; j < N; ++j) {
                const double p = a * double(b[j]);  // exact: 24 x 24 significant bits
                v[j] += p;
                m[j] += std::abs(p);
            }
        }
    }
    return e;
}

GemmError gemmError(const ExactRows& exact, const std::vector<float>& C) {
    GemmError err;
    double difference2 = 0, exact2 = 0;
    for (std::size_t r = 0; r < exact.rows.size(); ++r)
        for (std::size_t j = 0; j < exact.N; ++j) {
            const std::size_t at = r * exact.N + j;
            const double d = double(C.at(exact.rows[r] * exact.N + j)) - exact.value[at];
            difference2 += d * d;
            exact2 += exact.value[at] * exact.value[at];
            if (exact.magnitude[at] > 0) err.componentwise = std::max(err.componentwise, std::abs(d) / exact.magnitude[at]);
            else if (d != 0) err.componentwise = std::numeric_limits<double>::infinity();
        }
    err.normwise = exact2 > 0 ? std::sqrt(difference2 / exact2) : (difference2 > 0 ? std::numeric_limits<double>::infinity() : 0);
    return err;
}

std::vector<float> gemmReferenceFma(std::size_t M, std::size_t N, std::size_t K, const std::vector<float>& A,
                                    const std::vector<float>& B) {
    checkGemmSizes(M, N, K, sizeof(float));
    if (A.size() != M * K || B.size() != K * N) throw Error("matrix product: A must have M*K and B K*N elements");
    std::vector<float> C(M * N, 0.0f);
    for (std::size_t i = 0; i < M; ++i)
        for (std::size_t k = 0; k < K; ++k) {
            const float a = A[i * K + k];
            const float* b = B.data() + k * N;
            float* c = C.data() + i * N;
            for (std::size_t j = 0; j < N; ++j) c[j] = std::fma(a, b[j], c[j]);
        }
    return C;
}

}  // namespace portacl
