#include "fft/reference_dft.hpp"

#include <cmath>

namespace portacl::fft::reference {

namespace {

using Cld = std::complex<long double>;

std::size_t product(const std::vector<std::size_t>& shape) {
    std::size_t n = 1;
    for (std::size_t s : shape) n *= s;
    return n;
}

// Multi-index of flat position i in C order.
std::vector<std::size_t> unflatten(std::size_t i, const std::vector<std::size_t>& shape) {
    std::vector<std::size_t> idx(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    return idx;
}

}  // namespace

std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& x, const std::vector<std::size_t>& shape,
                                      Direction dir) {
    const std::size_t n = product(shape);
    // The phase of term (k, m) is 2 pi * sum_d k_d m_d / n_d = 2 pi * p / N with the integer
    // p = sum_d (k_d m_d mod n_d) * (N / n_d) mod N, so one table of N roots of unity covers all.
    const long double pi = 3.141592653589793238462643383279502884L;
    const long double sign = dir == Direction::Forward ? -1.0L : 1.0L;
    std::vector<Cld> roots(n);
    for (std::size_t p = 0; p < n; ++p) {
        const long double a = sign * 2.0L * pi * static_cast<long double>(p) / static_cast<long double>(n);
        roots[p] = Cld(std::cos(a), std::sin(a));
    }
    std::vector<std::vector<std::size_t>> index(n);
    for (std::size_t i = 0; i < n; ++i) index[i] = unflatten(i, shape);

    std::vector<std::complex<double>> out(n);
    const long double scale = dir == Direction::Inverse ? 1.0L / static_cast<long double>(n) : 1.0L;
    for (std::size_t k = 0; k < n; ++k) {
        Cld sum = 0;
        for (std::size_t m = 0; m < n; ++m) {
            std::size_t p = 0;
            for (std::size_t d = 0; d < shape.size(); ++d) p += (index[k][d] * index[m][d] % shape[d]) * (n / shape[d]);
            sum += Cld(x[m].real(), x[m].imag()) * roots[p % n];
        }
        sum *= scale;
        out[k] = std::complex<double>(static_cast<double>(sum.real()), static_cast<double>(sum.imag()));
    }
    return out;
}

std::complex<double> dftRealForwardAt(const std::vector<double>& x, const std::vector<std::size_t>& shape,
                                      const std::vector<std::size_t>& k) {
    const std::size_t n = product(shape);
    const long double pi = 3.141592653589793238462643383279502884L;
    Cld sum = 0;
    for (std::size_t m = 0; m < n; ++m) {
        const std::vector<std::size_t> idx = unflatten(m, shape);
        std::size_t p = 0;  // the exact integer phase, as in dft()
        for (std::size_t d = 0; d < shape.size(); ++d) p += (k[d] * idx[d] % shape[d]) * (n / shape[d]);
        const long double a = -2.0L * pi * static_cast<long double>(p % n) / static_cast<long double>(n);
        sum += static_cast<long double>(x[m]) * Cld(std::cos(a), std::sin(a));
    }
    return {static_cast<double>(sum.real()), static_cast<double>(sum.imag())};
}

std::vector<std::complex<double>> dftRealForward(const std::vector<double>& x, const std::vector<std::size_t>& shape) {
    const std::vector<std::complex<double>> full = dft(std::vector<std::complex<double>>(x.begin(), x.end()), shape,
                                                       Direction::Forward);
    const std::size_t last = shape.back(), halfLast = last / 2 + 1, rows = full.size() / last;
    std::vector<std::complex<double>> half(rows * halfLast);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < halfLast; ++j) half[r * halfLast + j] = full[r * last + j];
    return half;
}

std::vector<double> dftRealInverse(const std::vector<std::complex<double>>& half, const std::vector<std::size_t>& shape) {
    const std::size_t n = product(shape), last = shape.back(), halfLast = last / 2 + 1;
    std::vector<std::complex<double>> full(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<std::size_t> idx = unflatten(i, shape);
        bool mirrored = idx.back() >= halfLast;
        if (mirrored)  // X[k] = conj(X[-k]): mirror every index
            for (std::size_t d = 0; d < shape.size(); ++d) idx[d] = (shape[d] - idx[d]) % shape[d];
        std::size_t h = 0;
        for (std::size_t d = 0; d + 1 < shape.size(); ++d) h = h * shape[d] + idx[d];
        h = h * halfLast + idx.back();
        full[i] = mirrored ? std::conj(half[h]) : half[h];
    }
    const std::vector<std::complex<double>> x = dft(full, shape, Direction::Inverse);
    std::vector<double> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = x[i].real();
    return out;
}

}  // namespace portacl::fft::reference
