// Platforms and devices: what exists, the facts that matter about each, and the one selection
// grammar used by every command (--device) and by the PORTACL_DEVICE environment variable.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "portacl/runtime/cl.hpp"

namespace portacl {

struct PORTACL_API DeviceInfo {
    cl::Platform platform;
    cl::Device device;
    unsigned platformIndex = 0;
    unsigned deviceIndex = 0;

    std::string platformName;
    std::string platformVersion;
    std::string name;
    std::string vendor;
    std::string type;  // "GPU", "CPU", "accelerator", "other"
    std::string driverVersion;
    std::string deviceVersion;
    std::string openclCVersion;
    unsigned computeUnits = 0;
    unsigned clockMHz = 0;
    std::uint64_t globalMemBytes = 0;
    std::uint64_t maxAllocBytes = 0;
    std::uint64_t localMemBytes = 0;
    std::size_t maxWorkGroupSize = 0;
    bool fp64 = false;
    bool fp16 = false;
    bool isGpu = false;
    bool isCpu = false;
    // NVIDIA only, through cl_nv_device_attribute_query; 0 elsewhere.
    unsigned nvComputeMajor = 0;
    unsigned nvComputeMinor = 0;
    unsigned warpSize = 0;

    bool isNvidia() const;
    // An NVIDIA device of compute capability major.minor or higher (61: 6.1).
    bool nvidiaFrom(unsigned capability) const;
    bool isPocl() const;
    // A simulator (oclgrind): listed, but chosen only by a spec that names it or when it is the only
    // device, because it runs kernels thousands of times slower than any real device.
    bool isSimulator() const;
    // "P:D Name (Platform)", the label used in tables.
    std::string label() const;
    // A short identifier for a table column: "NVIDIA H200", "PoCL CPU".
    std::string shortName() const;
};

// A platform the listing skipped, and why: no devices (Mesa's Clover without an AMD GPU), or a
// device whose properties could not be read (it disappeared, or its driver failed).
struct PORTACL_API SkippedPlatform {
    unsigned platformIndex = 0;
    std::string platformName;
    std::string reason;
};

// Every device of every platform, in platform then device order. Never throws: no platform at all
// is an empty list, and a platform or device that fails to answer is skipped (recorded in `skipped`
// when given).
PORTACL_API std::vector<DeviceInfo> listDevices(std::vector<SkippedPlatform>* skipped = nullptr);

// Applies the selection grammar to the devices that exist:
//   auto      first GPU, else the first CPU, PoCL's when present (saying so once on stderr)
//   gpu, cpu  every device of that type
//   all       every device
// (auto, gpu, cpu and all leave simulators out unless nothing else exists)
//   P:D       platform P, device D (0-based, as `portacl devices` numbers them)
//   other     devices whose platform contains the text (case-insensitive); when none does, devices
//             whose name or vendor contains it
// Several specs may be joined with commas. An empty spec means PORTACL_DEVICE, else "auto".
// Throws portacl::Error listing the devices that exist when nothing matches.
PORTACL_API std::vector<DeviceInfo> selectDevices(const std::string& spec);

// selectDevices, requiring exactly one: the first match.
PORTACL_API DeviceInfo selectDevice(const std::string& spec);

}  // namespace portacl
