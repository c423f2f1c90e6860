// The command's own passes over every cell of a grid (turning results into the types written, counting
// cells) on all cores: at 10^9 cells each pass takes seconds on one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>
#include "portacl/runtime/host_cores.hpp"

namespace portacl::cli {

// Calls f(chunk, begin, end) on consecutive chunks of [0, n), one per thread (the caller's included),
// and returns the number of chunks; chunk numbers run from 0. Grids under a million cells stay on the
// caller. The first exception thrown is rethrown here.
template <typename F>
std::size_t forCellChunks(std::size_t n, F&& f) {
    const std::size_t hardware = portacl::usableCores();
    const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>({hardware, 64, n >> 20}));
    const std::size_t per = (n + chunks - 1) / chunks;
    std::vector<std::exception_ptr> errors(chunks);
    auto run = [&](std::size_t c) {
        try {
            f(c, std::min(n, c * per), std::min(n, (c + 1) * per));
        } catch (...) {
            errors[c] = std::current_exception();
        }
    };
    std::vector<std::thread> helpers;
    for (std::size_t c = 1; c < chunks; ++c) helpers.emplace_back(run, c);
    run(0);
    for (auto& h : helpers) h.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    return chunks;
}

// f(i) for every cell i of [0, n), on all cores.
template <typename F>
void forEachCell(std::size_t n, F&& f) {
    forCellChunks(n, [&](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) f(i);
    });
}

// The sum over [0, n) of f(i), counted on all cores.
template <typename F>
std::size_t countCells(std::size_t n, F&& f) {
    std::vector<std::size_t> partial(64, 0);
    forCellChunks(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
        std::size_t k = 0;
        for (std::size_t i = begin; i < end; ++i) k += f(i) ? 1 : 0;
        partial[c] = k;
    });
    std::size_t total = 0;
    for (auto k : partial) total += k;
    return total;
}

}  // namespace portacl::cli
