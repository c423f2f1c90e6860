#include <algorithm>
#include <iomanip>
#include <limits>
#include <ostream>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/profiler.hpp"

namespace portacl {
namespace {

struct CommandTimes {
    cl_ulong queued, submitted, start, end;
};

CommandTimes timesOf(const cl::Event& e) {
    auto at = [&](cl_profiling_info what) {
        cl_ulong t = 0;
        clCall("clGetEventProfilingInfo", [&] { return e.getProfilingInfo(what, &t); });
        return t;
    };
    return {at(CL_PROFILING_COMMAND_QUEUED), at(CL_PROFILING_COMMAND_SUBMIT), at(CL_PROFILING_COMMAND_START),
            at(CL_PROFILING_COMMAND_END)};
}

void writeJsonString(std::ostream& os, const std::string& s) {
    os << '"';
    for (const char c : s) {
        if (c == '"' || c == '\\') os << '\\' << c;
        else if (static_cast<unsigned char>(c) < 0x20) os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec << std::setfill(' ');
        else os << c;
    }
    os << '"';
}

}  // namespace

void writeEventTrace(std::ostream& os, const std::vector<std::pair<std::string, const Profiler*>>& profilers) {
    // Every profiler's commands on its device's clock, from its own first enqueue: devices' clocks
    // need not agree with each other.
    os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    bool first = true;
    auto separator = [&] {
        if (!first) os << ",\n";
        first = false;
    };
    os << std::fixed << std::setprecision(3);
    for (std::size_t p = 0; p < profilers.size(); ++p) {
        const int pid = int(p) + 1;
        separator();
        os << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << pid << ", \"args\": {\"name\": ";
        writeJsonString(os, profilers[p].first);
        os << "}}";
        std::vector<std::pair<const NamedEvent*, CommandTimes>> commands;
        cl_ulong origin = std::numeric_limits<cl_ulong>::max();
        for (const NamedEvent& ev : profilers[p].second->events()) {
            if (ev.kind != EventKind::Kernel && ev.kind != EventKind::Transfer) continue;
            const CommandTimes t = timesOf(ev.event);
            origin = std::min(origin, t.queued);
            commands.emplace_back(&ev, t);
        }
        auto us = [&](cl_ulong t) { return double(t - std::min(t, origin)) * 1e-3; };
        for (const auto& [ev, t] : commands) {
            separator();
            os << "{\"ph\": \"X\", \"pid\": " << pid << ", \"tid\": 1, \"cat\": \""
               << (ev->kind == EventKind::Kernel ? "kernel" : "transfer") << "\", \"name\": ";
            writeJsonString(os, ev->name);
            os << ", \"ts\": " << us(t.start) << ", \"dur\": " << double(t.end - std::min(t.end, t.start)) * 1e-3
               << ", \"args\": {\"enqueued_us\": " << us(t.queued) << ", \"submitted_us\": " << us(t.submitted) << "}}";
            separator();
            os << "{\"ph\": \"i\", \"s\": \"t\", \"pid\": " << pid << ", \"tid\": 2, \"name\": ";
            writeJsonString(os, "enqueued " + ev->name);
            os << ", \"ts\": " << us(t.queued) << "}";
            separator();
            os << "{\"ph\": \"i\", \"s\": \"t\", \"pid\": " << pid << ", \"tid\": 3, \"name\": ";
            writeJsonString(os, "submitted " + ev->name);
            os << ", \"ts\": " << us(t.submitted) << "}";
        }
        for (const auto& [tid, name] : {std::pair<int, const char*>{1, "device: commands"}, {2, "host: enqueued"}, {3, "runtime: submitted"}}) {
            separator();
            os << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << pid << ", \"tid\": " << tid << ", \"args\": {\"name\": \"" << name
               << "\"}}";
        }
    }
    os << "\n]}\n";
}

}  // namespace portacl
