// libFuzzer harness: vendor tuning profiles (host/runtime/tuning.cpp): the parser, the [match]
// rules against a fixed device, and every integer read with the ranges the kernels allow.
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/tuning.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const TuningProfile p = TuningProfile::parse(text, "fuzz", "fuzz.profile");
        DeviceInfo device;
        device.name = "NVIDIA H100";
        device.vendor = "NVIDIA Corporation";
        device.platformName = "NVIDIA CUDA";
        device.type = "GPU";
        device.nvComputeMajor = 9;
        p.matchScore(device);
        p.buildOptions();
        for (const auto& [section, keys] : p.sections)
            for (const auto& entry : keys) {
                try {
                    p.getInt(section, entry.first, 1, 1, 1L << 16, section == "voronoi");
                } catch (const Error&) {
                }
            }
        p.priority();
    } catch (const Error&) {
    }
    return 0;
}
