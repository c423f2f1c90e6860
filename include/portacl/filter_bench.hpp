// Benchmarks of the filter workload: the "filter" case of `portacl bench` (4096x4096 8-bit grey,
// the image already on the device, one record per operation) and the thesis's speed-up tables
// printed by `portacl filter --bench`.
#pragma once

#include "portacl/export.hpp"

#include <ostream>
#include <string>
#include <vector>

#include "portacl/bench.hpp"

namespace portacl::filter {

struct PORTACL_API ThesisBenchOptions {
    bool quick = false;                                    // sizes 128 and 256 only
    std::vector<int> sizes{128, 256, 512, 1024, 2048, 4096};
    std::vector<int> masks{3, 5, 7, 9};
    int serialMaxSide = 1024;  // the serial reference is timed up to this side and scaled by area above
};

// "128,512" -> {128, 512}; throws portacl::Error for anything else.
PORTACL_API std::vector<int> parseSizeList(const std::string& text);

// Tables 1-3 of the thesis (convolution, median, Sobel): per mask and image size, the device time,
// the serial reference time, our speed-up and the thesis's.
PORTACL_API void printThesisTables(Context& ctx, const ThesisBenchOptions& options, std::ostream& out);

// Each operation (as --op writes it) on a side x side 8-bit grey noise image on the device, per
// size: device ms, GB/s (input + output bytes) and percent of the copy bandwidth measured first.
PORTACL_API void printOperationTimes(Context& ctx, const std::vector<std::string>& specs, const std::vector<int>& sizes, std::ostream& out);

// The `portacl bench` case.
PORTACL_API std::vector<BenchRecord> runFilterBench(Context& ctx, const BenchOptions& opts);

}  // namespace portacl::filter
