// portacl bench: the main job. On each selected device (default: all), measure the device's peaks,
// then run every registered workload and print one table: time, rate, percent of that device's
// measured peak, and the serial C++ reference's time with the speed-up over it.
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "json_writer.hpp"
#include "portacl/bench.hpp"
#include "portacl/error.hpp"
#include "portacl/output_file.hpp"
#include "portacl/progress.hpp"

namespace portacl::cli {
namespace {

struct Row {
    std::string device;
    BenchRecord record;
    double rate = NAN;        // GB/s or GFLOP/s
    std::string rateUnit;
    double percentOfPeak = NAN;
    double speedup = NAN;
};

struct DeviceRun {
    std::string device;
    DevicePeaks peaks;
};

Row makeRow(const std::string& device, const BenchRecord& r, const DevicePeaks& peaks) {
    Row row{device, r};
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
    return row;
}

std::string fmt(double v, int precision) {
    if (!std::isfinite(v)) return "-";
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << v;
    return os.str();
}

void printHeader(std::ostream& os) {
    os << std::left << std::setw(22) << "device" << std::setw(34) << "workload" << std::setw(14) << "size"
       << std::setw(10) << "precision" << std::right << std::setw(12) << "time ms" << std::setw(12) << "rate"
       << std::setw(9) << "unit" << std::setw(9) << "% peak" << std::setw(13) << "serial ms" << std::setw(10)
       << "speed-up" << "\n";
}

// One row, printed as soon as it is measured, so that a long bench shows its results as it goes.
void printRow(std::ostream& os, const Row& r) {
    os << std::left << std::setw(22) << r.device.substr(0, 21) << std::setw(34) << r.record.workload.substr(0, 33)
       << std::setw(14) << r.record.size << std::setw(10) << r.record.precision << std::right << std::setw(12)
       << fmt(r.record.seconds * 1e3, 3) << std::setw(12) << fmt(r.rate, 1) << std::setw(9) << r.rateUnit
       << std::setw(9) << fmt(r.percentOfPeak, 1) << std::setw(13) << fmt(r.record.serialSeconds * 1e3, 1)
       << std::setw(10) << fmt(r.speedup, 1) << (r.record.note.empty() ? "" : "  # " + r.record.note) << std::endl;
}

void writeCsv(const std::string& path, const std::vector<Row>& rows) {
    writeFileAtomically(path, [&](std::ostream& os) {
        os << "device,workload,size,precision,seconds,rate,unit,percent_of_peak,serial_seconds,speedup,note\n";
        auto quote = [](const std::string& s) {
            std::string q = "\"";
            for (char c : s) q += (c == '"' ? std::string("\"\"") : std::string(1, c));
            return q + "\"";
        };
        for (const auto& r : rows)
            os << quote(r.device) << "," << quote(r.record.workload) << "," << quote(r.record.size) << ","
               << r.record.precision << "," << std::setprecision(9) << r.record.seconds << "," << r.rate << ","
               << r.rateUnit << "," << r.percentOfPeak << "," << r.record.serialSeconds << "," << r.speedup << ","
               << quote(r.record.note) << "\n";
    });
}

void writeJson(const std::string& path, const std::vector<DeviceRun>& devices, const std::vector<Row>& rows) {
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
            w.field("note", r.record.note);
            w.endObject();
        }
        w.endArray();
        w.endObject();
        os << "\n";
    });
}

int runBench(const std::vector<std::string>& args) {
    po::options_description desc("portacl bench options");
    CommonOptions common;
    common.add(desc, "all", false);
    std::string json, csv, precisions = "float,double", only;
    bool quick = false, noSerial = false, list = false;
    int repeats = 7;
    desc.add_options()("quick", po::bool_switch(&quick), "small sizes: finishes in under a minute on a 2-core CPU")(
        "precision,p", po::value(&precisions)->default_value("float,double"), "precisions to run, comma-separated")(
        "only", po::value(&only), "run only these workloads (comma-separated names; see --list)")(
        "repeats", po::value(&repeats)->default_value(7), "timed runs per case (the median is reported)")(
        "no-serial", po::bool_switch(&noSerial), "skip the serial C++ reference timings")(
        "json", po::value(&json), "also write the results as JSON to this file")(
        "csv", po::value(&csv), "also write the results as CSV to this file")(
        "list", po::bool_switch(&list), "list the registered workloads and exit");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm, "usage: portacl bench [--device all] [--quick] [--json FILE] [--csv FILE]",
                   common.help))
        return 0;
    if (list) {
        for (const auto& c : benchCases()) std::cout << "  " << std::left << std::setw(16) << c.name << c.description << "\n";
        return 0;
    }
    // The result files are checked before the (long) bench starts.
    if (!json.empty()) checkOutputPath(json, {}, "--json");
    if (!csv.empty()) checkOutputPath(csv, {}, "--csv");
    checkDistinctOutputs({{"--json", json}, {"--csv", csv}});

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

    const auto devices = selectDevices(common.device);
    std::vector<Row> rows;
    printHeader(std::cout);
    std::vector<DeviceRun> runs;
    for (const auto& dev : devices) {
        Context ctx(dev, common.contextOptions());
        const std::string name = dev.shortName();
        std::cerr << "bench: " << dev.label() << " (profile " << ctx.tuning().name << ")\n";
        DeviceRun run{name, measurePeaks(ctx, opts)};
        std::cerr << "bench:   measured peaks: copy " << fmt(run.peaks.copyBytesPerSecond / 1e9, 1) << " GB/s, fp32 "
                  << fmt(run.peaks.fp32FlopsPerSecond / 1e9, 1) << " GFLOP/s, fp64 "
                  << fmt(run.peaks.fp64FlopsPerSecond / 1e9, 1) << " GFLOP/s\n";
        runs.push_back(run);
        std::size_t total = 0, done = 0;
        for (const auto& c : benchCases()) total += selected(c);
        Progress progress("bench " + name, total, "workloads");
        for (const auto& c : benchCases()) {
            if (!selected(c)) continue;
            try {
                for (const auto& r : c.run(ctx, opts)) {
                    progress.clearLine();
                    rows.push_back(makeRow(name, r, run.peaks));
                    printRow(std::cout, rows.back());
                }
            } catch (const Error& e) {
                // One workload that cannot run on this device (no fp64, too large) does not end the bench.
                BenchRecord r;
                r.workload = c.name;
                r.note = std::string("not run: ") + e.what();
                progress.clearLine();
                rows.push_back(makeRow(name, r, run.peaks));
                printRow(std::cout, rows.back());
            }
            progress.update(++done);
        }
        progress.finish();
        printProfile(ctx, common);
    }
    std::cout << "\nMeasured peaks:\n";
    for (const auto& r : runs)
        std::cout << "  " << std::left << std::setw(24) << r.device << "copy " << fmt(r.peaks.copyBytesPerSecond / 1e9, 1)
                  << " GB/s, fp32 " << fmt(r.peaks.fp32FlopsPerSecond / 1e9, 1) << " GFLOP/s, fp64 "
                  << fmt(r.peaks.fp64FlopsPerSecond / 1e9, 1) << " GFLOP/s\n";
    if (!csv.empty()) writeCsv(csv, rows);
    if (!json.empty()) writeJson(json, runs, rows);
    return 0;
}

}  // namespace

PORTACL_COMMAND("bench", "the cross-device comparison: every workload on every selected device", runBench);

}  // namespace portacl::cli
