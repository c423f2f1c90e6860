// Filter benchmarks: `portacl bench` case "filter" and the thesis tables of `portacl filter --bench`.
// Device times are kernel times with the image already on the device (as OpenCV's UMat calls are
// timed); the serial reference is timed at the same size up to a limit and scaled by area above it.
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "filter/opencv_peer.hpp"
#include "portacl/filter.hpp"
#include "portacl/filter_bench.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::filter {
namespace {

io::Image noiseImage(int side, unsigned seed) {
    io::Image img = io::makeImage(side, side, 1, io::PixelType::U8);
    std::mt19937 rng(seed);
    // Smooth structure plus noise, so medians and gradients see realistic value spreads.
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x)
            img.data[static_cast<std::size_t>(y) * side + x] =
                static_cast<unsigned char>((128 + 60 * std::sin(x * 0.05) * std::cos(y * 0.03)) + (rng() % 64) - 32);
    return img;
}

// A k x k user mask that is not rank 1 (so it runs as the 2-D filter2D path), divided by its sum.
std::string convSpec(int k) {
    std::ostringstream s;
    s << "conv:";
    for (int y = 0; y < k; ++y) {
        for (int x = 0; x < k; ++x) s << (x ? "," : "") << (1 + (x * 7 + y * 3) % 5);
        if (y + 1 < k) s << ";";
    }
    s << ":sum";
    return s.str();
}

// CPU time of this process's threads (a CPU device's worker threads included).
double processCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Timing {
    double device = NAN, serial = NAN;
    double cpu = NAN;  // CPU seconds per launch alone (all threads): on a shared CPU, steadier than the wall time
    StreamSeconds stream;  // with `stream` options given to timeOp
    std::string note;
};

// The benchmark image of each side, made once (16.7 M sines for 4096^2 take the host a while).
const io::Image& benchImage(int side) {
    static std::map<int, io::Image> images;
    auto it = images.find(side);
    if (it == images.end()) it = images.emplace(side, noiseImage(side, 7)).first;
    return it->second;
}

// Device time of one operation on the side^2 benchmark image, launched alone (bo) and, given
// `stream`, launched back to back; the serial reference when bo.serial.
Timing timeOp(Context& ctx, const std::string& spec, int side, int serialMaxSide, const BenchOptions& bo,
              const BenchOptions* stream = nullptr) {
    const std::vector<Operation> ops{parseOperation(spec)};
    Options options;
    Timing t;
    const io::Image& img = benchImage(side);
    Pipeline p(ctx, ops, options);
    p.upload(img);
    p.enqueue();  // the program's build and the first launch's set-up, out of the CPU time below
    ctx.finish();
    const double cpu0 = processCpuSeconds();
    t.device = medianDeviceSeconds(ctx, [&] { p.enqueue(); }, bo);
    t.cpu = (processCpuSeconds() - cpu0) / std::max(1, bo.warmups + std::max(1, bo.repeats));
    if (stream) t.stream = streamDeviceSeconds(ctx, [&] { p.enqueue(); }, *stream);
    if (bo.serial) {
        const int s = std::min(side, serialMaxSide);
        const io::Image& small = benchImage(s);
        t.serial = medianHostSeconds([&] { (void)filterReference(small, ops, options); }, 1) * (double(side) * side) / (double(s) * s);
        if (s != side) t.note = "serial timed at " + std::to_string(s) + "^2, scaled by area";
    }
    return t;
}

// On a CPU device, OpenCV's CPU path on the same image, on as many threads as the device has compute
// units, timed now: the peer beside the row, or why there is none.
void addOpenCvPeer(Context& ctx, const std::string& spec, int side, const BenchOptions& opts, BenchRecord& r) {
    const int threads = static_cast<int>(peerThreads(ctx));
    Progress current("OpenCV " + spec, 0, "");
    const OpenCvPeerTiming t = timeOpenCvPeer(spec, benchImage(side), Options{}.border, threads, std::max(1, opts.repeats));
    r.peer = t.peer;
    r.peerSeconds = t.seconds;
}

}  // namespace

std::vector<int> parseSizeList(const std::string& text) {
    std::vector<int> sizes;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(item, &used);
        } catch (...) {
            used = 0;
        }
        if (used != item.size() || v < 16 || v > 65536) throw Error("bad image side '" + item + "' (give sides from 16 to 65536, e.g. 128,512).");
        sizes.push_back(v);
    }
    if (sizes.empty()) throw Error("give at least one image side.");
    return sizes;
}

void printThesisTables(Context& ctx, const ThesisBenchOptions& o, std::ostream& out) {
    // Tables 1-3 of the thesis: CPU time / GPU time of its optimised filters (GeForce 210 vs one
    // Core 2 Duo E8400 core, probably; sizes 128..4096).
    static const int thesisSizes[] = {128, 256, 512, 1024, 2048, 4096};
    static const double convT[4][6] = {{1.25, 4.25, 21.33, 21.08, 30.91, 34.96}, {1.50, 5.50, 13.33, 18.17, 20.38, 24.85},
                                       {2.50, 7.20, 18.38, 24.20, 26.66, 29.17}, {3.50, 8.43, 26.33, 25.73, 29.01, 31.04}};
    static const double medianT[4][6] = {{0.86, 2.29, 4.15, 4.84, 5.64, 6.56}, {1.57, 1.82, 2.76, 3.65, 4.10, 4.56},
                                         {1.50, 2.00, 2.08, 2.68, 3.09, 3.49}, {1.58, 1.60, 1.58, 2.27, 2.63, 3.00}};
    static const double sobelT[6] = {1.75, 6.25, 24.00, 35.55, 41.66, 49.89};
    const auto thesisAt = [&](const double* row, int side) {
        for (int i = 0; i < 6; ++i)
            if (thesisSizes[i] == side) return row[i];
        return static_cast<double>(NAN);
    };
    std::vector<int> sizes = o.sizes;
    if (o.quick) sizes = {128, 256};
    BenchOptions bo;
    bo.warmups = 1;
    bo.repeats = o.quick ? 3 : 5;
    out << "Filter speed-ups over the serial C++ reference on " << ctx.device().label()
        << " (device kernel time, image on the device; thesis: GeForce 210 vs one Core 2 core)\n";
    out << std::left << std::setw(14) << "table" << std::setw(8) << "mask" << std::setw(11) << "image" << std::right << std::setw(12)
        << "device ms" << std::setw(12) << "serial ms" << std::setw(11) << "speed-up" << std::setw(9) << "thesis" << "  note\n";
    const std::vector<std::pair<std::string, int>> rows = [&] {
        std::vector<std::pair<std::string, int>> r;
        for (int k : o.masks) r.push_back({"convolution", k});
        for (int k : o.masks) r.push_back({"median", k});
        r.push_back({"sobel", 3});
        return r;
    }();
    Progress progress("filter tables", rows.size() * sizes.size(), "cases");
    std::size_t done = 0;
    for (const auto& [table, k] : rows) {
        for (int side : sizes) {
            const std::string spec = table == "convolution" ? convSpec(k) : table == "median" ? "median:" + std::to_string(k) : "sobel";
            const Timing t = timeOp(ctx, spec, side, o.serialMaxSide, bo);
            const int ki = (k - 3) / 2;
            const double thesis = table == "sobel" ? thesisAt(sobelT, side)
                                  : (ki >= 0 && ki < 4) ? thesisAt(table == "median" ? medianT[ki] : convT[ki], side) : NAN;
            std::ostringstream size, mask;
            size << side << "^2";
            mask << k << "x" << k;
            out << std::left << std::setw(14) << table << std::setw(8) << mask.str() << std::setw(11) << size.str() << std::right
                << std::fixed << std::setprecision(3) << std::setw(12) << t.device * 1e3 << std::setw(12) << t.serial * 1e3
                << std::setprecision(1) << std::setw(11) << t.serial / t.device << std::setprecision(2) << std::setw(9) << thesis
                << "  " << t.note << "\n";
            progress.update(++done);
        }
    }
}

void printOperationTimes(Context& ctx, const std::vector<std::string>& specs, const std::vector<int>& sizes, std::ostream& out) {
    BenchOptions bo;
    bo.serial = false;
    const DevicePeaks peaks = measurePeaks(ctx, bo);
    BenchOptions stream = bo;
    stream.repeats = 21;
    out << "Filters on " << ctx.device().label() << " (profile " << ctx.tuning().name << "; device time, 8-bit grey image on the device; "
        << "GB/s counts one read and one write per pixel; copy bandwidth measured now: " << std::fixed << std::setprecision(1)
        << peaks.copyBytesPerSecond / 1e9 << " GB/s)\n";
    out << "(alone: each launch timed on an idle device; stream: each launch's own time among " << stream.repeats
        << " launched back to back; % copy: of that bandwidth; % size copy: of the fastest copy of the image's bytes, timed alike)\n";
    const bool cpuDevice = ctx.device().isCpu;
    if (cpuDevice) out << "(cpu us: CPU time of all this process's threads per launch alone, steadier than the times on a shared CPU)\n";
    out << "(launch floor, a copy of 16 bytes: " << std::setprecision(2) << copySeconds(ctx, 16, bo) * 1e6 << " us alone, "
        << copySeconds(ctx, 16, stream, true) * 1e6 << " us in a stream)\n";
    out << std::left << std::setw(28) << "operation" << std::setw(11) << "image" << std::right << std::setw(12) << "alone us" << std::setw(10)
        << "% copy" << std::setw(13) << "% size copy" << std::setw(12) << "stream us" << std::setw(10) << "% copy" << std::setw(13)
        << "% size copy" << std::setw(12) << "span us" << (cpuDevice ? "      cpu us" : "") << "\n";
    for (int side : sizes) {
        const double bytes = 2.0 * side * side;
        const double copy = copySeconds(ctx, std::size_t(side) * side, bo);
        const double copyStream = copySeconds(ctx, std::size_t(side) * side, stream, true);
        // One table row: µs alone and in a stream, each as % of the copy peak and of the same-size copy.
        const auto row = [&](const std::string& name, double alone, double inStream, const std::string& span, double cpu) {
            out << std::left << std::setw(28) << name.substr(0, 27) << std::setw(11) << std::to_string(side) + "^2" << std::right
                << std::setprecision(2) << std::setw(12) << alone * 1e6 << std::setprecision(1) << std::setw(10)
                << 100.0 * bytes / alone / peaks.copyBytesPerSecond << std::setw(13) << 100.0 * copy / alone << std::setprecision(2)
                << std::setw(12) << inStream * 1e6 << std::setprecision(1) << std::setw(10) << 100.0 * bytes / inStream / peaks.copyBytesPerSecond
                << std::setw(13) << 100.0 * copyStream / inStream;
            out << std::setw(12) << (span.empty() ? "-" : span);
            if (cpuDevice) out << std::setw(12) << (std::isfinite(cpu) ? std::to_string(std::lround(cpu * 1e6)) : "-");
            out << std::endl;
        };
        row("(copy of the image's bytes)", copy, copyStream, "", NAN);
        for (const auto& spec : specs) {
            const Timing t = timeOp(ctx, spec, side, side, bo, &stream);
            std::ostringstream span;
            span << std::fixed << std::setprecision(2) << t.stream.span * 1e6;
            row(spec, t.device, t.stream.own, span.str(), t.cpu);
        }
    }
}

std::vector<BenchRecord> runFilterBench(Context& ctx, const BenchOptions& opts) {
    // 4096^2 with --quick too (fewer cases): a smaller image sits in a CPU's caches and its rate then
    // exceeds the copy peak it is compared with.
    const int side = 4096;
    const int serialSide = opts.quick ? 128 : 1024;
    // The record's name is the spec, or `name` for user masks. The two 1-D masks are the separable
    // passes on their own (a 9-tap row, a 9-tap column).
    struct Case {
        Case(std::string s, std::string n = "") : spec(std::move(s)), name(n.empty() ? spec : std::move(n)) {}
        std::string spec, name;
    };
    const std::vector<Case> cases = opts.quick
        ? std::vector<Case>{{"box:3"}, {"median:3"}, {"sobel"}}
        : std::vector<Case>{{"box:3"},
                            {"box:9"},
                            {convSpec(9), "filter2D:9x9"},
                            {"conv:1,1,1,1,1,1,1,1,1:sum", "row pass:9x1 box"},
                            {"conv:1;8;28;56;70;56;28;8;1:sum", "column pass:1x9 binomial"},
                            {"median:3"},
                            {"median:5"},
                            {"median:7"},
                            {"median:9"},
                            {"sobel"},
                            {"scharr"},
                            {"gaussian:9:2.0"},
                            {"laplace:4:3"},
                            {"rotating:3"}};
    std::vector<BenchRecord> records;
    // The ceiling at this size: the fastest copy of the image's bytes. A small image's copy reaches less
    // of the device's peak than the large one the peak is measured on (launch and tail).
    BenchRecord copy;
    copy.workload = "filter/copy (same-size ceiling)";
    copy.size = std::to_string(side) + "x" + std::to_string(side) + " u8";
    copy.precision = "u8";
    copy.seconds = copySeconds(ctx, std::size_t(side) * side, opts);
    copy.bytes = 2.0 * side * side;
    copy.note = "the fastest of the copy-peak copies on the image's bytes: no filter of this size moves less";
    records.push_back(copy);
    for (const Case& c : cases) {
        // Alone, and back to back as a pipeline's operations run (each launch's own time).
        const Timing t = timeOp(ctx, c.spec, side, serialSide, opts, &opts);
        BenchRecord r;
        r.workload = "filter/" + c.name;
        r.size = std::to_string(side) + "x" + std::to_string(side) + " u8";
        r.precision = "u8";
        r.seconds = t.device;
        r.bytes = 2.0 * side * side;  // input + output, one byte each (the floor any filter moves): GB/s and % of copy bandwidth
        r.serialSeconds = t.serial;
        std::ostringstream ceiling;
        ceiling << std::fixed << std::setprecision(1) << 100.0 * copy.seconds / t.device << " % of the same-size copy's rate; "
                 << std::setprecision(2) << t.stream.own * 1e6 << " us each in a stream of " << std::max(1, opts.repeats);
        r.note = ceiling.str() + (t.note.empty() ? "" : "; " + t.note);
        if (ctx.device().isCpu) addOpenCvPeer(ctx, c.spec, side, opts, r);
        records.push_back(r);
    }
    return records;
}

PORTACL_REGISTER_BENCH("filter", "image filters on a 4096x4096 8-bit grey image on the device (box, filter2D, median, Sobel, ...)",
                       runFilterBench);

}  // namespace portacl::filter
