#include "portacl/runtime/profiler.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <ostream>

#include "portacl/runtime/error.hpp"

namespace portacl {

double eventSeconds(const cl::Event& e) {
    const cl_ulong start = clCall("clGetEventProfilingInfo", [&] { return e.getProfilingInfo<CL_PROFILING_COMMAND_START>(); });
    const cl_ulong end = clCall("clGetEventProfilingInfo", [&] { return e.getProfilingInfo<CL_PROFILING_COMMAND_END>(); });
    return end > start ? (end - start) * 1e-9 : 0.0;
}

void Profiler::record(const std::string& name, EventKind kind, const cl::Event& e) {
    if (enabled_) events_.push_back({name, kind, e});
}

void Profiler::recordHost(const std::string& name, double seconds) {
    if (enabled_) events_.push_back({name, EventKind::Host, cl::Event(), seconds});
}

std::vector<Profiler::Row> Profiler::summary() const {
    std::map<std::pair<int, std::string>, Row> byName;
    for (const auto& ev : events_) {
        Row& r = byName[{static_cast<int>(ev.kind), ev.name}];
        r.name = ev.name;
        r.kind = ev.kind;
        r.count += 1;
        r.totalSeconds += ev.kind == EventKind::Host ? ev.hostSeconds : eventSeconds(ev.event);
    }
    std::vector<Row> rows;
    for (auto& kv : byName) rows.push_back(kv.second);
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.totalSeconds > b.totalSeconds; });
    return rows;
}

namespace {
const char* kindName(EventKind k) {
    switch (k) {
        case EventKind::Kernel: return "kernel";
        case EventKind::Transfer: return "transfer";
        case EventKind::Marker: return "marker";
        case EventKind::Host: return "host";
    }
    return "?";
}
}  // namespace

void Profiler::print(std::ostream& os, const std::string& title) const {
    const auto rows = summary();
    double total = 0;
    for (const auto& r : rows) total += r.totalSeconds;
    os << "Profile: " << title << "\n";
    os << std::left << std::setw(40) << "  name" << std::setw(10) << "kind" << std::right << std::setw(8)
       << "calls" << std::setw(14) << "total ms" << std::setw(14) << "mean ms" << std::setw(8) << "%" << "\n";
    for (const auto& r : rows) {
        os << "  " << std::left << std::setw(38) << r.name << std::setw(10)
           << kindName(r.kind) << std::right << std::setw(8) << r.count
           << std::fixed << std::setprecision(3) << std::setw(14) << r.totalSeconds * 1e3 << std::setw(14)
           << r.totalSeconds * 1e3 / r.count << std::setprecision(1) << std::setw(8)
           << (total > 0 ? 100.0 * r.totalSeconds / total : 0.0) << "\n";
    }
    os.unsetf(std::ios::fixed);
}

}  // namespace portacl
