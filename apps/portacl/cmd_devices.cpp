// portacl devices: every platform and device with the facts that matter, and the tuning profile each
// one gets; --json for scripts.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "json_writer.hpp"
#include "portacl/runtime/device.hpp"
#include "portacl/runtime/tuning.hpp"

namespace portacl::cli {
namespace {

std::string mib(std::uint64_t bytes) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(0) << bytes / (1024.0 * 1024.0) << " MiB";
    return os.str();
}

int runDevices(const std::vector<std::string>& args) {
    po::options_description desc("portacl devices options");
    bool json = false, help = false;
    std::string spec;
    desc.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "json", po::bool_switch(&json), "print JSON instead of text")(
        "device,d", po::value(&spec)->default_value("all"), "list only the devices this selection picks (PORTACL_DEVICE does not narrow the list)");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm, "usage: portacl devices [--json] [--device SPEC]", help)) return 0;

    std::vector<SkippedPlatform> skipped;
    const auto devices = spec == "all" ? listDevices(&skipped) : selectDevices(spec);
    if (json) {
        JsonWriter w(std::cout);
        w.beginArray();
        for (const auto& d : devices) {
            const auto profile = tuningFor(d);
            w.beginObject();
            w.field("index", std::to_string(d.platformIndex) + ":" + std::to_string(d.deviceIndex));
            w.field("platform", d.platformName);
            w.field("platform_version", d.platformVersion);
            w.field("name", d.name);
            w.field("vendor", d.vendor);
            w.field("type", d.type);
            w.field("compute_units", d.computeUnits);
            w.field("clock_mhz", d.clockMHz);
            w.field("global_memory_bytes", d.globalMemBytes);
            w.field("max_alloc_bytes", d.maxAllocBytes);
            w.field("local_memory_bytes", d.localMemBytes);
            w.field("max_work_group_size", static_cast<std::uint64_t>(d.maxWorkGroupSize));
            w.field("fp64", d.fp64);
            w.field("fp16", d.fp16);
            w.field("opencl_c_version", d.openclCVersion);
            w.field("device_version", d.deviceVersion);
            w.field("driver_version", d.driverVersion);
            if (d.nvComputeMajor) {
                w.field("compute_capability", std::to_string(d.nvComputeMajor) + "." + std::to_string(d.nvComputeMinor));
                w.field("warp_size", d.warpSize);
            }
            w.field("profile", profile.name);
            w.field("simulator", d.isSimulator());
            w.endObject();
        }
        w.endArray();
        std::cout << "\n";
        return 0;
    }
    if (devices.empty()) {
        std::cout << "No OpenCL device found (install an ICD, e.g. pocl-opencl-icd for the CPU).\n";
        return 1;
    }
    unsigned lastPlatform = ~0u;
    for (const auto& d : devices) {
        if (d.platformIndex != lastPlatform) {
            std::cout << "Platform " << d.platformIndex << ": " << d.platformName << " (" << d.platformVersion << ")\n";
            lastPlatform = d.platformIndex;
        }
        const auto profile = tuningFor(d);
        std::cout << "  Device " << d.platformIndex << ":" << d.deviceIndex << "  " << d.name << "\n"
                  << "    vendor           " << d.vendor << "\n"
                  << "    type             " << d.type << "\n"
                  << "    compute units    " << d.computeUnits << " at " << d.clockMHz << " MHz\n"
                  << "    global memory    " << mib(d.globalMemBytes) << " (max buffer " << mib(d.maxAllocBytes) << ")\n"
                  << "    local memory     " << d.localMemBytes / 1024 << " KiB\n"
                  << "    max work-group   " << d.maxWorkGroupSize << "\n"
                  << "    fp64             " << (d.fp64 ? "yes" : "no") << "\n"
                  << "    OpenCL C         " << d.openclCVersion << "\n"
                  << "    driver           " << d.driverVersion << "\n";
        if (d.nvComputeMajor)
            std::cout << "    compute cap.     " << d.nvComputeMajor << "." << d.nvComputeMinor << ", warp size " << d.warpSize << "\n";
        std::cout << "    tuning profile   " << profile.name << " (" << profile.path << ")\n";
        if (d.isSimulator())
            std::cout << "    simulator        chosen only when a --device spec names it\n";
    }
    for (const auto& s : skipped)
        std::cout << "Platform " << s.platformIndex << ": " << s.platformName << " skipped: " << s.reason << "\n";
    return 0;
}

}  // namespace

PORTACL_COMMAND("devices", "list OpenCL platforms and devices, and the tuning profile each gets", runDevices);

}  // namespace portacl::cli
