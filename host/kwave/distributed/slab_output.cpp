#include "slab_output.hpp"

#include <algorithm>
#include <cstring>

#include "portacl/cluster/collectives.hpp"
#include "portacl/kwave/distributed.hpp"
#include "slab_simulation.hpp"

namespace portacl::kwave::distributed {

using cluster::gatherOnRoot;

namespace {

bool endsWith(const std::string& s, const char* tail) {
    const std::size_t n = std::strlen(tail);
    return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

}  // namespace

Recording gatherRecording(const Recording& local, const Simulation& whole, const SlabLayout& l, std::size_t wholeSensorPoints) {
    Recording out;
    out.samples = local.samples;
    const auto positions = rank() == 0 ? sensorPositionsByRank(whole, l) : std::vector<std::vector<std::size_t>>();
    const std::size_t points = wholeSensorPoints;
    for (const auto& [name, values] : local.data) {
        const auto bytes = gatherOnRoot(values.data(), values.size(), sizeof(double));
        if (rank() != 0) continue;
        const double* all = reinterpret_cast<const double*>(bytes.data());
        std::vector<double>& dst = out.data[name];
        if (endsWith(name, "_all") || endsWith(name, "_final")) {  // whole fields: the slabs in order
            dst.assign(all, all + bytes.size() / sizeof(double));
            continue;
        }
        const bool aggregate = endsWith(name, "_rms") || endsWith(name, "_max") || endsWith(name, "_min");
        const std::size_t steps = aggregate ? 1 : local.samples;
        dst.assign(steps * points, 0.0);
        std::size_t at = 0;
        for (const auto& mine : positions) {
            for (std::size_t s = 0; s < steps; ++s)
                for (std::size_t j = 0; j < mine.size(); ++j) dst[s * points + mine[j]] = all[at + s * mine.size() + j];
            at += steps * mine.size();
        }
    }
    return out;
}

void streamGridField(const std::function<std::vector<float>(std::size_t, std::size_t)>& planes, const SlabLayout& l,
                     std::size_t roundBytes, const StreamedGridFields::Sink& put) {
    const std::size_t perRound = std::max<std::size_t>(1, roundBytes / (l.plane * sizeof(float) * static_cast<std::size_t>(l.ranks)));
    const std::size_t most = *std::max_element(l.count0.begin(), l.count0.end());
    for (std::size_t from = 0; from < most; from += perRound) {
        auto block = [&](std::size_t r) {
            const std::size_t f = std::min(from, l.count0[r]);
            return std::make_pair(f, std::min(f + perRound, l.count0[r]));
        };
        const auto [mineFrom, mineTo] = block(static_cast<std::size_t>(l.rank));
        const std::vector<float> mine = planes(mineFrom, mineTo);
        const auto bytes = gatherOnRoot(mine.data(), mine.size(), sizeof(float));
        if (rank() != 0) continue;
        const float* at = reinterpret_cast<const float*>(bytes.data());
        for (std::size_t r = 0; r < static_cast<std::size_t>(l.ranks); ++r) {
            const auto [f, to] = block(r);
            const std::size_t count = (to - f) * l.plane;
            if (count) put((l.start0[r] + f) * l.plane, count, at);
            at += count;
        }
    }
}

}  // namespace portacl::kwave::distributed
