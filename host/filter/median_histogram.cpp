// Which medians take the histogram kernels of cl/filter_median.cl, and their defines.
#include "filter/median_histogram.hpp"

#include <algorithm>
#include <sstream>

namespace portacl::filter {

bool MedianHistogramLayout::valid() const {
    // Method 1's work-item keeps (segment + 2 RX) column histograms of 272 bytes in private memory, and
    // a CPU device runs a work-group's work-items on one thread's stack: at most 1 MiB a work-group
    // (RX up to 7), or a wide segment in a wide group overflows that stack.
    const long privateBytes = (segment + 14L) * 272L * (method == 1 ? group : 1);
    return method >= 0 && method <= 3 && minWindow >= 1 && segment >= 1 && segment <= 4096 && band >= 1 && group >= 1 && group <= 1024 &&
           privateBytes <= (1L << 20);
}

std::uint64_t MedianHistogramLayout::localBytes() const {
    if (method == 2) return static_cast<std::uint64_t>(group) * 272u;
    if (method == 3) return (static_cast<std::uint64_t>(group) + 14u) * 272u;
    return 0;
}

bool MedianHistogramLayout::fits(std::size_t maxWorkGroupSize, std::uint64_t localMemBytes) const {
    return valid() && static_cast<std::size_t>(group) <= maxWorkGroupSize && localBytes() <= localMemBytes;
}

int MedianHistogramLayout::bandFor(int imageHeight, unsigned computeUnits) const {
    if (method >= 2) return band;
    return std::max(band, imageHeight / static_cast<int>(4 * std::max(1u, computeUnits)));
}

MedianHistogramKernel medianHistogramKernel(const Operation& op, io::PixelType in, Border border, const MedianHistogramLayout& layout) {
    if (op.kind != Operation::Kind::Median || in != io::PixelType::U8 || layout.method == 0 || !layout.valid() || op.width < layout.minWindow)
        return {};
    std::ostringstream d;
    d << "-D KW=" << op.width << " -D KH=" << op.height << " -D RX=" << op.width / 2 << " -D RY=" << op.height / 2
      << " -D BORDER=" << static_cast<int>(border);
    if (layout.method == 1) {
        d << " -D SEG=" << layout.segment;
        return {"median_histogram_segment", d.str()};
    }
    d << " -D GROUP=" << layout.group;
    return {layout.method == 2 ? "median_histogram_column" : "median_histogram_tile", d.str()};
}

}  // namespace portacl::filter
