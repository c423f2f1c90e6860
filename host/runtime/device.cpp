#include "portacl/runtime/device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/log.hpp"
#include "address_space_limit.hpp"

#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif
#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif

namespace portacl {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back()))))
        s.pop_back();
    std::size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    return s.substr(b);
}

std::string typeName(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

cl_uint nvAttribute(const cl::Device& d, cl_device_info what) {
    cl_uint value = 0;
    if (clGetDeviceInfo(d(), what, sizeof(value), &value, nullptr) != CL_SUCCESS) return 0;
    return value;
}

DeviceInfo describe(const cl::Platform& p, const cl::Device& d, unsigned pi, unsigned di) {
    DeviceInfo info;
    info.platform = p;
    info.device = d;
    info.platformIndex = pi;
    info.deviceIndex = di;
    info.platformName = trim(p.getInfo<CL_PLATFORM_NAME>());
    info.platformVersion = trim(p.getInfo<CL_PLATFORM_VERSION>());
    info.name = trim(d.getInfo<CL_DEVICE_NAME>());
    info.vendor = trim(d.getInfo<CL_DEVICE_VENDOR>());
    cl_device_type t = d.getInfo<CL_DEVICE_TYPE>();
    info.type = typeName(t);
    info.isGpu = (t & CL_DEVICE_TYPE_GPU) != 0;
    info.isCpu = (t & CL_DEVICE_TYPE_CPU) != 0;
    info.driverVersion = trim(d.getInfo<CL_DRIVER_VERSION>());
    info.deviceVersion = trim(d.getInfo<CL_DEVICE_VERSION>());
    info.openclCVersion = trim(d.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
    info.computeUnits = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    info.clockMHz = d.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
    info.globalMemBytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info.maxAllocBytes = d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    info.localMemBytes = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    info.maxWorkGroupSize = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    const std::string ext = d.getInfo<CL_DEVICE_EXTENSIONS>();
    info.fp64 = ext.find("cl_khr_fp64") != std::string::npos;
    info.fp16 = ext.find("cl_khr_fp16") != std::string::npos;
    if (ext.find("cl_nv_device_attribute_query") != std::string::npos) {
        info.nvComputeMajor = nvAttribute(d, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
        info.nvComputeMinor = nvAttribute(d, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
        info.warpSize = nvAttribute(d, CL_DEVICE_WARP_SIZE_NV);
    }
    return info;
}

std::string deviceList(const std::vector<DeviceInfo>& all) {
    if (all.empty()) return "no OpenCL device exists on this machine (is an ICD such as pocl-opencl-icd installed?)";
    std::ostringstream os;
    os << "the devices are:";
    for (const auto& d : all) os << " [" << d.label() << "]";
    return os.str();
}

bool parseIndexPair(const std::string& s, unsigned& p, unsigned& d) {
    const auto colon = s.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
    const std::string a = s.substr(0, colon), b = s.substr(colon + 1);
    auto digits = [](const std::string& x) {
        return std::all_of(x.begin(), x.end(), [](unsigned char c) { return std::isdigit(c); });
    };
    if (!digits(a) || !digits(b)) return false;
    // Platform and device indices are small; a longer number is refused, not wrapped to a small one.
    if (a.size() > 6 || b.size() > 6)
        throw Error("the device index " + s + " is out of range (platform and device indices are below 1000000)");
    p = static_cast<unsigned>(std::stoul(a));
    d = static_cast<unsigned>(std::stoul(b));
    return true;
}

// Why a platform shows no device, with the remedy where there is a known one.
std::string noDevicesReason(const cl::Platform& p) {
    std::string name;
    try {
        name = lower(p.getInfo<CL_PLATFORM_NAME>());
    } catch (const cl::Error&) {
    }
    if (name.find("rusticl") != std::string::npos && !std::getenv("RUSTICL_ENABLE"))
        return "it has no devices (Mesa's rusticl shows its llvmpipe CPU device with RUSTICL_ENABLE=llvmpipe)";
    return "it has no devices";
}

}  // namespace

bool DeviceInfo::isNvidia() const {
    return lower(vendor).find("nvidia") != std::string::npos ||
           lower(platformName).find("nvidia") != std::string::npos;
}

bool DeviceInfo::nvidiaFrom(unsigned capability) const { return isNvidia() && nvComputeMajor * 10 + nvComputeMinor >= capability; }

bool DeviceInfo::isSimulator() const {
    return lower(platformName).find("oclgrind") != std::string::npos;
}

bool DeviceInfo::isPocl() const {
    return lower(platformName).find("portable computing language") != std::string::npos ||
           lower(platformName).find("pocl") != std::string::npos;
}

std::string DeviceInfo::label() const {
    return std::to_string(platformIndex) + ":" + std::to_string(deviceIndex) + " " + name + " (" +
           platformName + ")";
}

std::string DeviceInfo::shortName() const {
    if (isPocl()) return "PoCL " + type;
    return name;
}

std::vector<DeviceInfo> listDevices(std::vector<SkippedPlatform>* skipped) {
    std::vector<DeviceInfo> out;
    std::vector<cl::Platform> platforms;
    // clGetPlatformIDs returns CL_PLATFORM_NOT_FOUND_KHR when no ICD is installed: that is "no device".
    // The loader itself skips an ICD library that fails to load.
    probeRuntimesUnderAddressSpaceLimit();
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error&) {
        return out;
    }
    auto skip = [&](unsigned pi, const std::string& why) {
        if (!skipped) return;
        std::string name = "(unnamed)";
        try {
            name = trim(platforms[pi].getInfo<CL_PLATFORM_NAME>());
        } catch (const cl::Error&) {
        }
        skipped->push_back({pi, name, why});
    };
    for (unsigned pi = 0; pi < platforms.size(); ++pi) {
        std::vector<cl::Device> devices;
        try {
            platforms[pi].getDevices(CL_DEVICE_TYPE_ALL, &devices);
        } catch (const cl::Error& e) {
            skip(pi, e.err() == CL_DEVICE_NOT_FOUND ? noDevicesReason(platforms[pi])
                                                    : "listing its devices failed (" + clStatusName(e.err()) + ")");
            continue;
        }
        if (devices.empty()) skip(pi, noDevicesReason(platforms[pi]));
        for (unsigned di = 0; di < devices.size(); ++di) {
            try {
                out.push_back(describe(platforms[pi], devices[di], pi, di));
            } catch (const cl::Error& e) {
                skip(pi, "device " + std::to_string(di) + " did not answer (" + clStatusName(e.err()) + ")");
            }
        }
    }
    return out;
}

std::vector<DeviceInfo> selectDevices(const std::string& specIn) {
    std::string spec = trim(specIn);
    if (spec.empty()) {
        const char* env = std::getenv("PORTACL_DEVICE");
        spec = env && *env ? trim(env) : "auto";
    }
    const std::vector<DeviceInfo> all = listDevices();
    // The devices that generic specs (auto, all, gpu, cpu) choose from: simulators only when there
    // is nothing else.
    std::vector<DeviceInfo> real;
    for (const auto& x : all)
        if (!x.isSimulator()) real.push_back(x);
    if (real.empty()) real = all;
    std::vector<DeviceInfo> chosen;
    bool matched = false;
    auto add = [&](const DeviceInfo& d) {
        matched = true;
        for (const auto& c : chosen)
            if (c.platformIndex == d.platformIndex && c.deviceIndex == d.deviceIndex) return;
        chosen.push_back(d);
    };
    std::stringstream parts(spec);
    std::string part;
    while (std::getline(parts, part, ',')) {
        const std::string want = lower(trim(part));
        matched = false;
        unsigned p = 0, d = 0;
        if (want == "all") {
            for (const auto& x : real) add(x);
        } else if (want == "auto") {
            auto gpu = std::find_if(real.begin(), real.end(), [](const DeviceInfo& x) { return x.isGpu; });
            if (gpu != real.end()) {
                add(*gpu);
            } else {
                // PoCL first among CPUs: the tests' reference device, whatever order the loader gives.
                auto cpu = std::find_if(real.begin(), real.end(), [](const DeviceInfo& x) { return x.isCpu && x.isPocl(); });
                if (cpu == real.end())
                    cpu = std::find_if(real.begin(), real.end(), [](const DeviceInfo& x) { return x.isCpu; });
                if (cpu == real.end() && !real.empty()) cpu = real.begin();
                if (cpu != real.end()) {
                    static bool said = false;
                    if (!said) log(LogLevel::Info, "no GPU found; using the CPU device " + cpu->label());
                    said = true;
                    add(*cpu);
                }
            }
        } else if (want == "gpu" || want == "cpu") {
            for (const auto& x : real)
                if ((want == "gpu" && x.isGpu) || (want == "cpu" && x.isCpu)) add(x);
        } else if (parseIndexPair(want, p, d)) {
            for (const auto& x : all)
                if (x.platformIndex == p && x.deviceIndex == d) add(x);
        } else if (!want.empty()) {
            // The platform's name first: "intel" is Intel's runtime, not PoCL on an Intel CPU.
            for (const auto& x : all)
                if (lower(x.platformName + (x.isPocl() ? " pocl" : "")).find(want) != std::string::npos) add(x);
            if (!matched)
                for (const auto& x : all)
                    if (lower(x.name + " " + x.vendor).find(want) != std::string::npos) add(x);
        }
        if (!matched)
            throw Error("no OpenCL device matches '" + trim(part) + "'; " + deviceList(all));
    }
    if (chosen.empty()) throw Error("no OpenCL device matches '" + spec + "'; " + deviceList(all));
    return chosen;
}

DeviceInfo selectDevice(const std::string& spec) { return selectDevices(spec).front(); }

}  // namespace portacl
