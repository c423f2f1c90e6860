#include <algorithm>
#include <chrono>

#include "portacl/bench.hpp"
#include "portacl/runtime/host_cores.hpp"

namespace portacl {

namespace {
std::vector<BenchCase>& registry() {
    static std::vector<BenchCase> cases;
    return cases;
}

double median(std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

bool BenchOptions::wants(Precision p) const {
    return std::find(precisions.begin(), precisions.end(), p) != precisions.end();
}

bool runsOn(Context& ctx, const BenchOptions& opts, Precision p, const std::string& workload, std::vector<BenchRecord>& out) {
    if (!opts.wants(p)) return false;
    // Mixed runs without fp64 too (phase 2 in double-float, or on the host); double cannot.
    if (p != Precision::Double || ctx.device().fp64) return true;
    BenchRecord r;
    r.workload = workload;
    r.precision = precisionName(p);
    r.note = "not run: the device has no fp64 (cl_khr_fp64)";
    out.push_back(r);
    return false;
}

void registerBench(BenchCase c) { registry().push_back(std::move(c)); }
const std::vector<BenchCase>& benchCases() { return registry(); }

double medianDeviceSeconds(Context& ctx, const std::function<void()>& enqueue, const BenchOptions& opts) {
    for (int i = 0; i < opts.warmups; ++i) {
        enqueue();
        ctx.finish();
    }
    std::vector<double> times;
    for (int i = 0; i < std::max(1, opts.repeats); ++i) {
        const auto start = std::chrono::steady_clock::now();
        ctx.beginTiming();
        enqueue();
        double t = ctx.endTiming();
        // A driver whose events carry no times (Mesa 22.3's rusticl numbers every event's queued,
        // submit, start and end 0, 1, 2 and 3 ns; no command takes a nanosecond): the host's clock
        // from the enqueue to the end of the queue, which includes the launch cost.
        if (t <= 1e-9) t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        times.push_back(t);
    }
    return median(times);
}

StreamSeconds streamDeviceSeconds(Context& ctx, const std::function<void()>& enqueue, const BenchOptions& opts) {
    for (int i = 0; i < opts.warmups; ++i) enqueue();
    ctx.finish();
    const int runs = std::max(1, opts.repeats);
    std::vector<std::size_t> firstEvent;  // run i's events: firstEvent[i] .. firstEvent[i + 1] - 1
    ctx.beginTiming();
    for (int i = 0; i < runs; ++i) {
        firstEvent.push_back(ctx.timedCount());
        enqueue();
    }
    firstEvent.push_back(ctx.timedCount());
    const auto spans = ctx.endTimingSpans();
    StreamSeconds s;
    if (spans.empty()) return s;
    std::vector<double> own;
    for (int i = 0; i < runs; ++i) own.push_back(extentSeconds(spans, firstEvent[i], firstEvent[i + 1]));
    s.own = median(own);
    s.span = extentSeconds(spans, 0, spans.size()) / runs;
    return s;
}

unsigned peerThreads(const Context& ctx) { return std::max(1u, std::min(ctx.device().computeUnits, usableCores())); }

std::string threadsText(unsigned threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

double medianHostSeconds(const std::function<void()>& work, int repeats) {
    std::vector<double> times;
    for (int i = 0; i < std::max(1, repeats); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        work();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(times);
}

}  // namespace portacl
