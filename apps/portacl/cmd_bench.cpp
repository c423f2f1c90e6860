// portacl bench: the main job. On each selected device (default: all), measure the device's peaks,
// then run every registered workload and print one table: time, rate, percent of that device's
// measured peak, the serial C++ reference's time with the speed-up over it, on CPU devices the CPU
// peer's time (OpenCV, OpenBLAS, kspaceFirstOrder-OMP) with its ratio, and with --baseline each
// row's ratio to the same case on a named device; --plot draws the rows (tools/bench/bench_plot.py).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "json_writer.hpp"
#include "text_table.hpp"
#include "portacl/bench.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::cli {
namespace {

struct Row {
    std::string device;
    BenchRecord record;
    double rate = NAN;        // GB/s or GFLOP/s
    std::string rateUnit;
    double percentOfPeak = NAN;
    double speedup = NAN;
    double baselineRatio = NAN;  // the baseline device's time over this one's (> 1: faster than the baseline)
    double peerRatio = NAN;      // the CPU peer's time over this one's (> 1: faster than the peer)
    bool ratioFromRates = false;  // the sizes differ: the ratio compares rates
};

struct DeviceRun {
    std::string device;
    DevicePeaks peaks;
};

Row makeRow(const std::string& device, const BenchRecord& r, const DevicePeaks& peaks) {
    Row row;
    row.device = device;
    row.record = r;
    if (r.flops > 0 && r.seconds > 0) {
        row.rate = r.flops / r.seconds / 1e9;
        row.rateUnit = "GFLOP/s";
        const bool dbl = r.precision == "double";
        const double peak = dbl ? peaks.fp64FlopsPerSecond : peaks.fp32FlopsPerSecond;
        if (peak > 0) row.percentOfPeak = 100.0 * r.flops / r.seconds / peak;
    } else if (r.bytes > 0 && r.seconds > 0) {
        row.rate = r.bytes / r.seconds / 1e9;
        row.rateUnit = "GB/s";
        if (peaks.copyBytesPerSecond > 0) row.percentOfPeak = 100.0 * r.bytes / r.seconds / peaks.copyBytesPerSecond;
    }
    if (r.serialSeconds > 0 && r.seconds > 0) row.speedup = r.serialSeconds / r.seconds;
    if (r.peerSeconds > 0 && r.seconds > 0) row.peerRatio = r.peerSeconds / r.seconds;
    return row;
}

std::string fmt(double v, int precision) {
    if (!std::isfinite(v)) return "-";
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << v;
    return os.str();
}

// Each row's ratio to the same case on the baseline device: times where the sizes match, else rates
// (a CPU device runs some cases smaller than a GPU).
void addBaselineRatios(std::vector<Row>& rows, const std::string& baseline) {
    for (auto& r : rows) {
        if (!(r.record.seconds > 0)) continue;
        const Row* same = nullptr;
        const Row* similar = nullptr;
        for (const auto& b : rows) {
            if (b.device != baseline || b.record.workload != r.record.workload || b.record.precision != r.record.precision ||
                !(b.record.seconds > 0))
                continue;
            if (b.record.size == r.record.size) same = &b;
            else if (!similar && b.rateUnit == r.rateUnit && std::isfinite(b.rate) && std::isfinite(r.rate)) similar = &b;
        }
        if (same) {
            r.baselineRatio = same->record.seconds / r.record.seconds;
        } else if (similar) {
            r.baselineRatio = r.rate / similar->rate;
            r.ratioFromRates = true;
        }
    }
}

void printTable(std::ostream& os, const std::vector<Row>& rows, const std::string& baseline) {
    std::vector<std::string> header = {"device", "workload", "size", "precision", "time ms", "rate", "unit", "% peak", "serial ms", "speed-up"};
    std::vector<bool> right = {false, false, false, false, true, true, false, true, true, true};
    if (!baseline.empty()) {
        header.push_back("vs " + baseline);
        right.push_back(true);
    }
    // The CPU peers' columns where any row has one (CPU devices).
    const bool peers = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.record.peer.empty(); });
    if (peers) {
        header.insert(header.end(), {"peer", "peer ms", "vs peer"});
        right.insert(right.end(), {false, true, true});
    }
    header.push_back("note");
    TextTable t(header, right);
    bool anyRateRatio = false;
    for (const auto& r : rows) {
        std::vector<std::string> cells = {r.device, r.record.workload, r.record.size.empty() ? "-" : r.record.size,
                                          r.record.precision.empty() ? "-" : r.record.precision, fmt(r.record.seconds * 1e3, 3),
                                          fmt(r.rate, 1), r.rateUnit.empty() ? "-" : r.rateUnit, fmt(r.percentOfPeak, 1),
                                          fmt(r.record.serialSeconds * 1e3, 1), fmt(r.speedup, 1)};
        if (!baseline.empty()) {
            cells.push_back(std::isfinite(r.baselineRatio) ? fmt(r.baselineRatio, 2) + (r.ratioFromRates ? "*" : "") : "-");
            anyRateRatio = anyRateRatio || r.ratioFromRates;
        }
        if (peers) {
            cells.push_back(r.record.peer.empty() ? "-" : r.record.peer);
            cells.push_back(fmt(r.record.peerSeconds * 1e3, 3));
            cells.push_back(fmt(r.peerRatio, 2));
        }
        cells.push_back(r.record.note);
        t.add(cells);
    }
    t.print(os);
    if (peers)
        os << "\n'vs peer': the CPU peer's time over this row's, the peer run on the same input and cores in this run (above 1: "
              "faster than the peer).\n";
    if (!baseline.empty())
        os << "\n'vs " << baseline << "': the baseline's time over this device's (above 1: faster than the baseline)"
           << (anyRateRatio ? "; * where the sizes differ: this device's rate over the baseline's" : "") << ".\n";
}

std::string quoteCsv(const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += (c == '"' ? std::string("\"\"") : std::string(1, c));
    return q + "\"";
}

void writeCsv(const std::string& path, const std::vector<Row>& rows, const std::string& baseline) {
    writeFileAtomically(path, [&](std::ostream& os) {
        os << "device,workload,size,precision,seconds,rate,unit,percent_of_peak,serial_seconds,speedup,baseline,baseline_ratio,peer,"
              "peer_seconds,peer_ratio,note\n";
        for (const auto& r : rows)
            os << quoteCsv(r.device) << "," << quoteCsv(r.record.workload) << "," << quoteCsv(r.record.size) << ","
               << r.record.precision << "," << std::setprecision(9) << r.record.seconds << "," << r.rate << ","
               << r.rateUnit << "," << r.percentOfPeak << "," << r.record.serialSeconds << "," << r.speedup << ","
               << quoteCsv(baseline) << "," << r.baselineRatio << "," << quoteCsv(r.record.peer) << "," << r.record.peerSeconds << ","
               << r.peerRatio << "," << quoteCsv(r.record.note) << "\n";
    });
}

void writeJson(const std::string& path, const std::vector<DeviceRun>& devices, const std::vector<Row>& rows,
               const std::string& baseline) {
    writeFileAtomically(path, [&](std::ostream& os) {
        JsonWriter w(os);
        w.beginObject();
        w.key("devices");
        w.beginArray();
        for (const auto& d : devices) {
            w.beginObject();
            w.field("device", d.device);
            w.field("copy_gb_per_s", d.peaks.copyBytesPerSecond / 1e9);
            w.field("fp32_gflop_per_s", d.peaks.fp32FlopsPerSecond / 1e9);
            w.field("fp64_gflop_per_s", d.peaks.fp64FlopsPerSecond / 1e9);
            w.endObject();
        }
        w.endArray();
        w.field("baseline", baseline);
        w.key("results");
        w.beginArray();
        for (const auto& r : rows) {
            w.beginObject();
            w.field("device", r.device);
            w.field("workload", r.record.workload);
            w.field("size", r.record.size);
            w.field("precision", r.record.precision);
            w.field("seconds", r.record.seconds);
            w.field("rate", r.rate);
            w.field("unit", r.rateUnit);
            w.field("percent_of_peak", r.percentOfPeak);
            w.field("serial_seconds", r.record.serialSeconds);
            w.field("speedup", r.speedup);
            w.field("baseline_ratio", r.baselineRatio);
            w.field("peer", r.record.peer);
            w.field("peer_seconds", r.record.peerSeconds);
            w.field("peer_ratio", r.peerRatio);
            w.field("note", r.record.note);
            w.endObject();
        }
        w.endArray();
        w.endObject();
        os << "\n";
    });
}

std::string lowerExtension(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = path.substr(dot);
    for (auto& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

// An output named on the command line is checked before any work: its folder exists and is writable.
void checkOutputFolder(const std::string& path, const std::string& what) {
    const std::filesystem::path p(path);
    const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) throw Error("the folder of the " + what + " " + path + " does not exist");
    if (::access(dir.c_str(), W_OK) != 0) throw Error("the folder of the " + what + " " + path + " is not writable");
}

// The plot script: from the source tree, else where `cmake --install` put it.
std::string benchPlotScript() {
    for (const char* p : {PORTACL_SOURCE_BENCH_PLOT, PORTACL_INSTALLED_BENCH_PLOT})
        if (::access(p, R_OK) == 0) return p;
    throw Error(std::string("the plot script bench_plot.py is neither at ") + PORTACL_SOURCE_BENCH_PLOT + " nor at " +
                PORTACL_INSTALLED_BENCH_PLOT);
}

int runBench(const std::vector<std::string>& args) {
    po::options_description desc("portacl bench options");
    CommonOptions common;
    common.add(desc, "all", false);
    std::string json, csv, precisions = "float,double,mixed", only, baselineSpec, plot, kwaveOmp;
    bool quick = false, noSerial = false, list = false;
    int repeats = 7;
    desc.add_options()("quick", po::bool_switch(&quick), "small sizes: finishes in about a minute on a 2-core CPU")(
        "precision,p", po::value(&precisions)->default_value(precisions), "precisions to run, comma-separated: float, double, mixed")(
        "only", po::value(&only), "run only these workloads (comma-separated names; see --list)")(
        "repeats", po::value(&repeats)->default_value(7), "timed runs per case (the median is reported)")(
        "no-serial", po::bool_switch(&noSerial), "skip the serial C++ reference timings")(
        "baseline", po::value(&baselineSpec), "a device of this run (same grammar as --device) to give every row's ratio to")(
        "plot", po::value(&plot), "also draw the results (FILE.png or FILE.svg; both are written) with matplotlib")(
        "json", po::value(&json), "also write the results as JSON to this file")(
        "csv", po::value(&csv), "also write the results as CSV to this file")(
        "list", po::bool_switch(&list), "list the registered workloads and exit")(
        "kwave-omp", po::value(&kwaveOmp), "k-Wave's kspaceFirstOrder-OMP: on CPU devices, the k-Wave rows' peer on the same simulation and cores");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm,
                   "usage: portacl bench [--device all] [--quick] [--baseline SPEC] [--plot FILE.png] [--json FILE] [--csv FILE]",
                   common.help))
        return 0;
    if (list) {
        TextTable t({"workload", "what it measures"}, {false, false});
        for (const auto& c : benchCases()) t.add({c.name, c.description});
        t.print(std::cout);
        return 0;
    }
    // The result files are checked before the (long) bench starts.
    if (!json.empty()) checkOutputPath(json, {}, "--json");
    if (!csv.empty()) checkOutputPath(csv, {}, "--csv");
    checkDistinctOutputs({{"--json", json}, {"--csv", csv}});

    // Everything the command line names is checked before the first measurement.
    BenchOptions opts;
    opts.quick = quick;
    opts.repeats = repeats;
    opts.serial = !noSerial;
    opts.precisions.clear();
    {
        std::stringstream ss(precisions);
        std::string p;
        while (std::getline(ss, p, ',')) opts.precisions.push_back(parsePrecision(p));
    }
    if (repeats < 1) throw Error("--repeats must be at least 1");
    if (!kwaveOmp.empty() && (!std::filesystem::is_regular_file(kwaveOmp) || ::access(kwaveOmp.c_str(), X_OK) != 0))
        throw Error("the --kwave-omp program " + kwaveOmp + " is not an executable file");
    opts.kwaveOmp = kwaveOmp;
    std::vector<std::string> wanted;
    {
        std::stringstream ss(only);
        std::string w;
        while (std::getline(ss, w, ',')) {
            bool known = false;
            for (const auto& c : benchCases()) known = known || c.name == w;
            if (!known) throw Error("no workload named '" + w + "' is registered; 'portacl bench --list' names them");
            wanted.push_back(w);
        }
    }
    auto selected = [&](const BenchCase& c) {
        return wanted.empty() || std::find(wanted.begin(), wanted.end(), c.name) != wanted.end();
    };
    if (!csv.empty()) checkOutputFolder(csv, "CSV file");
    if (!json.empty()) checkOutputFolder(json, "JSON file");
    std::string plotScript, python;
    if (!plot.empty()) {
        const std::string ext = lowerExtension(plot);
        if (ext != ".png" && ext != ".svg") throw Error("the plot " + plot + " must end in .png or .svg (both are written)");
        checkOutputFolder(plot, "plot");
        plotScript = benchPlotScript();
        // The python3 on the PATH (a virtual environment's, say), else Debian's, whichever has matplotlib.
        for (const char* candidate : {"python3", "/usr/bin/python3"})
            if (std::system((std::string(candidate) + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0) {
                python = candidate;
                break;
            }
        if (python.empty())
            throw Error("--plot needs python3 with matplotlib (Debian: python3-matplotlib; scripts/install-deps.sh installs it)");
    }

    const auto devices = selectDevices(common.device);
    std::string baseline;
    if (!baselineSpec.empty()) {
        const auto base = selectDevices(baselineSpec);
        for (const auto& d : devices)
            if (d.platformIndex == base.front().platformIndex && d.deviceIndex == base.front().deviceIndex) baseline = d.shortName();
        if (baseline.empty())
            throw Error("the baseline '" + baselineSpec + "' (" + base.front().label() + ") is not one of this run's devices; add it to --device");
    }

    std::vector<Row> rows;
    std::vector<DeviceRun> runs;
    std::size_t total = 0;
    for (const auto& c : benchCases()) total += selected(c);
    for (const auto& dev : devices) {
        Context ctx(dev, common.contextOptions());
        const std::string name = dev.shortName();
        std::cerr << "bench: " << dev.label() << " (profile " << ctx.tuning().name << ")\n";
        Progress progress("bench " + name, total, "workloads");
        DeviceRun run{name, {}};
        {
            Progress peaks("measuring the peaks", 0, "");
            run.peaks = measurePeaks(ctx, opts);
        }
        progress.clearLine();
        std::cerr << "bench:   measured peaks: copy " << fmt(run.peaks.copyBytesPerSecond / 1e9, 1) << " GB/s, fp32 "
                  << fmt(run.peaks.fp32FlopsPerSecond / 1e9, 1) << " GFLOP/s, fp64 "
                  << (dev.fp64 ? fmt(run.peaks.fp64FlopsPerSecond / 1e9, 1) + " GFLOP/s" : std::string("none (no cl_khr_fp64)")) << "\n";
        if (!dev.fp64 && opts.wants(Precision::Double))
            std::cerr << "bench:   no fp64 on this device: its double rows are not run (each says so)\n";
        runs.push_back(run);
        std::size_t done = 0;
        for (const auto& c : benchCases()) {
            if (!selected(c)) continue;
            std::vector<BenchRecord> records;
            {
                Progress current(c.name, 0, "");
                try {
                    records = c.run(ctx, opts);
                } catch (const Error& e) {
                    // One workload that cannot run on this device (too large, a missing feature) does not end the bench.
                    BenchRecord r;
                    r.workload = c.name;
                    r.note = std::string("not run: ") + e.what();
                    records.push_back(r);
                }
            }
            for (const auto& r : records) {
                rows.push_back(makeRow(name, r, run.peaks));
                if (progress.active()) {
                    // The finished rows on the terminal as they come; the aligned table follows at the end.
                    progress.clearLine();
                    std::cerr << "  " << name << "  " << r.workload << "  " << r.size << "  " << r.precision << "  "
                              << (std::isfinite(r.seconds) ? fmt(r.seconds * 1e3, 3) + " ms" : r.note) << "\n";
                }
            }
            progress.update(++done);
        }
        progress.finish();
        printProfile(ctx, common);
    }
    if (!baseline.empty()) addBaselineRatios(rows, baseline);
    std::cout << "\n";
    printTable(std::cout, rows, baseline);
    std::cout << "\nMeasured peaks (copy: bytes read plus written, at a size beyond the caches; FMA chains):\n";
    TextTable peaks({"device", "copy GB/s", "fp32 GFLOP/s", "fp64 GFLOP/s"}, {false, true, true, true});
    for (const auto& r : runs)
        peaks.add({r.device, fmt(r.peaks.copyBytesPerSecond / 1e9, 1), fmt(r.peaks.fp32FlopsPerSecond / 1e9, 1),
                   r.peaks.fp64FlopsPerSecond > 0 ? fmt(r.peaks.fp64FlopsPerSecond / 1e9, 1) : "-"});
    peaks.print(std::cout);
    std::size_t notRun = 0;
    for (const auto& r : rows) notRun += !std::isfinite(r.record.seconds);
    if (notRun) std::cout << "\n" << notRun << " row" << (notRun == 1 ? " was" : "s were") << " not run; each row's note says why.\n";
    if (!csv.empty()) writeCsv(csv, rows, baseline);
    if (!json.empty()) writeJson(json, runs, rows, baseline);
    if (!plot.empty()) {
        std::string source = csv;
        const bool scratch = source.empty();
        if (scratch) {
            source = (std::filesystem::temp_directory_path() / ("portacl-bench-" + std::to_string(::getpid()) + ".csv")).string();
            writeCsv(source, rows, baseline);
        }
        const int rc = std::system((python + " " + shellQuote(plotScript) + " " + shellQuote(source) + " " + shellQuote(plot)).c_str());
        if (scratch) std::remove(source.c_str());
        if (rc != 0) throw Error("the plot script failed (exit status " + std::to_string(rc) + "); the table above is complete");
        const std::string stem = plot.substr(0, plot.size() - 4);
        std::cerr << "bench: plot written to " << stem << ".png and " << stem << ".svg\n";
    }
    return 0;
}

}  // namespace

PORTACL_COMMAND("bench", "the cross-device comparison: every workload on every selected device", runBench);

}  // namespace portacl::cli
