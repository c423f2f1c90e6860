// Event timing: every kernel launch and transfer made through a Context is an OpenCL event with a
// name; the profiler sums them by name (--profile), and a TimingScope measures the device time of one
// piece of work (benchmarks).
#pragma once

#include "portacl/export.hpp"

#include <iosfwd>
#include <string>
#include <vector>

#include "portacl/runtime/cl.hpp"

namespace portacl {

// Marker: a point in the queue (Context::marker); it takes no device time and is left out of timings.
// Host: work the host did between commands (a mapped FFTW transform), timed on the host's clock.
enum class EventKind { Kernel, Transfer, Marker, Host };

struct PORTACL_API NamedEvent {
    std::string name;
    EventKind kind;
    cl::Event event;          // none for Host
    double hostSeconds = 0;   // Host only
};

// Seconds between the start and the end of a finished event (profiling queue required).
PORTACL_API double eventSeconds(const cl::Event& e);

class PORTACL_API Profiler {
public:
    void setEnabled(bool on) { enabled_ = on; }
    bool enabled() const { return enabled_; }
    void record(const std::string& name, EventKind kind, const cl::Event& e);
    void recordHost(const std::string& name, double seconds);

    struct Row {
        std::string name;
        EventKind kind;
        std::size_t count = 0;
        double totalSeconds = 0;
    };
    // Sums the recorded (finished) events by name, largest total first.
    std::vector<Row> summary() const;
    void print(std::ostream& os, const std::string& title) const;
    void clear() { events_.clear(); }
    const std::vector<NamedEvent>& events() const { return events_; }

private:
    bool enabled_ = false;
    std::vector<NamedEvent> events_;
};

// Writes the recorded device commands of each (label, profiler) as a trace in the Chrome trace-event
// format (chrome://tracing, ui.perfetto.dev), one process per profiler: each command's execution
// (start to end) as a span, and the moments the host enqueued it and the runtime submitted it to the
// device as marks, all on the device's clock from the first command's enqueue. A command enqueued
// only after the one before it ended shows a host that did not keep the device fed; one submitted
// long after it was enqueued, a runtime that held it back.
PORTACL_API void writeEventTrace(std::ostream& os, const std::vector<std::pair<std::string, const Profiler*>>& profilers);

}  // namespace portacl
