#include "slab_state.hpp"

#include <cstring>

#include "portacl/cluster/collectives.hpp"
#include "portacl/kwave/distributed.hpp"

namespace portacl::kwave::distributed {

void gatherStateField(KSpaceSolver::State& st, const std::string& name, const std::vector<double>& mine) {
    const auto bytes = cluster::gatherOnRoot(mine.data(), mine.size(), sizeof(double));
    if (rank() != 0) return;
    const double* all = reinterpret_cast<const double*>(bytes.data());
    st.fields[name].assign(all, all + bytes.size() / sizeof(double));
}

std::vector<double> stateFieldPart(const KSpaceSolver::State& st, const std::string& name, std::size_t gridPoints, std::size_t first,
                                   std::size_t count) {
    auto it = st.fields.find(name);
    if (it == st.fields.end() || it->second.size() != gridPoints)
        throw EveryRankError("the checkpoint lacks the field '" + name + "' of this grid");
    return std::vector<double>(it->second.begin() + static_cast<std::ptrdiff_t>(first),
                               it->second.begin() + static_cast<std::ptrdiff_t>(first + count));
}

Recording recordingPart(const Recording& whole, const SlabSimulation& part, std::size_t gridPoints, std::size_t first, std::size_t count) {
    Recording mine;
    mine.samples = whole.samples;
    const std::size_t points = part.wholeSensorPoints;
    auto endsWith = [](const std::string& s, const char* tail) {
        const std::size_t n = std::strlen(tail);
        return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
    };
    for (const auto& [name, values] : whole.data) {
        std::vector<double>& out = mine.data[name];
        if (endsWith(name, "_all") || endsWith(name, "_final")) {
            if (values.size() == gridPoints)
                out.assign(values.begin() + static_cast<std::ptrdiff_t>(first), values.begin() + static_cast<std::ptrdiff_t>(first + count));
            continue;
        }
        const std::size_t steps = points ? values.size() / points : 0;
        for (std::size_t s = 0; s < steps; ++s)
            for (std::size_t j : part.sensorPositions) out.push_back(values[s * points + j]);
    }
    return mine;
}

}  // namespace portacl::kwave::distributed
