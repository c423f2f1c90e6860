#include "reference_fft.hpp"

#include <cmath>

namespace portacl::kwave::reference {
namespace {

void radix2(std::complex<double>* a, std::size_t n, int sign) {
    // Bit-reversal permutation, then iterative butterflies.
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(a[i], a[j]);
    }
    for (std::size_t len = 2; len <= n; len <<= 1) {
        const double ang = sign * 2.0 * M_PI / static_cast<double>(len);
        for (std::size_t i = 0; i < n; i += len)
            for (std::size_t k = 0; k < len / 2; ++k) {
                const std::complex<double> w(std::cos(ang * k), std::sin(ang * k));
                const auto u = a[i + k], v = a[i + k + len / 2] * w;
                a[i + k] = u + v;
                a[i + k + len / 2] = u - v;
            }
    }
}

void direct(std::complex<double>* a, std::size_t n, int sign, std::vector<std::complex<double>>& scratch) {
    scratch.assign(n, {0.0, 0.0});
    for (std::size_t k = 0; k < n; ++k) {
        std::complex<double> s(0.0, 0.0);
        for (std::size_t j = 0; j < n; ++j) {
            const double ang = sign * 2.0 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
            s += a[j] * std::complex<double>(std::cos(ang), std::sin(ang));
        }
        scratch[k] = s;
    }
    for (std::size_t k = 0; k < n; ++k) a[k] = scratch[k];
}

}  // namespace

void transform(Spectrum& data, const std::array<std::size_t, 3>& shape, bool inverse) {
    const int sign = inverse ? 1 : -1;
    const std::size_t strides[3] = {1, shape[0], shape[0] * shape[1]};
    std::vector<std::complex<double>> line, scratch;
    for (int axis = 0; axis < 3; ++axis) {
        const std::size_t n = shape[axis];
        if (n == 1) continue;
        const bool pow2 = (n & (n - 1)) == 0;
        line.resize(n);
        for (std::size_t z = 0; z < (axis == 2 ? 1 : shape[2]); ++z)
            for (std::size_t y = 0; y < (axis == 1 ? 1 : shape[1]); ++y)
                for (std::size_t x = 0; x < (axis == 0 ? 1 : shape[0]); ++x) {
                    const std::size_t base = x + shape[0] * (y + shape[1] * z);
                    for (std::size_t i = 0; i < n; ++i) line[i] = data[base + i * strides[axis]];
                    if (pow2) radix2(line.data(), n, sign);
                    else direct(line.data(), n, sign, scratch);
                    for (std::size_t i = 0; i < n; ++i) data[base + i * strides[axis]] = line[i];
                }
    }
    if (inverse) {
        const double scale = 1.0 / static_cast<double>(shape[0] * shape[1] * shape[2]);
        for (auto& v : data) v *= scale;
    }
}

}  // namespace portacl::kwave::reference
