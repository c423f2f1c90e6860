// The local Fourier basis decomposition's bell (kwave_bell in cl/kwave.cl) on the device against the
// serial reference: the planes of a field in a range times the bell of each, every point outside the
// range unchanged; exact (one multiplication a point). Used by test_kwave_distributed.cpp and the
// conformance suite.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "portacl/runtime/context.hpp"

namespace portacl::test {

template <typename T>
void checkBellKernel(Context& ctx) {
    const Precision prec = sizeof(T) == 8 ? Precision::Double : Precision::Float;
    cl::Kernel k = ctx.newKernel("kwave.cl", "kwave_bell", prec, "");  // cl/kwave.cl's default defines
    const std::size_t plane = 35, planes = 9, first = 5, count = 3;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> field(plane * planes), bell(count);
    for (auto& v : field) v = static_cast<T>(u(rng));
    for (auto& v : bell) v = static_cast<T>(u(rng));
    cl::Buffer f = ctx.upload(field, "field"), b = ctx.upload(bell, "bell");
    setArgs(k, 0, f, b, cl_ulong(plane), cl_ulong(first * plane), cl_ulong(count * plane));
    ctx.launch(k, cl::NDRange(count * plane));
    const std::vector<T> got = ctx.download<T>(f, field.size(), "field");
    for (std::size_t i = 0; i < field.size(); ++i) {
        const std::size_t z = i / plane;
        const T want = z >= first && z < first + count ? field[i] * bell[z - first] : field[i];
        ASSERT_EQ(got[i], want) << "point " << i << ", " << (sizeof(T) == 8 ? "double" : "float");
    }
}

}  // namespace portacl::test
