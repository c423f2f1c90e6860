// Vendor and device tuning profiles: plain-text files in platforms/ that give work-group and tile
// sizes per kernel family, build options and feature switches. A user adds one without rebuilding.
//
// File format (INI-like):
//   # comment
//   [match]                       all given keys must hold; more keys = more specific
//   platform = NVIDIA CUDA        case-insensitive substring of the platform name
//   vendor   = nvidia             ... of the device vendor
//   device   = H100               ... of the device name
//   type     = GPU                GPU or CPU
//   compute_capability_min = 8.0  NVIDIA compute capability range (cl_nv_device_attribute_query)
//   compute_capability_max = 9.0
//   priority = 10                 breaks ties between equally specific profiles
//   [build]
//   options = -cl-mad-enable      appended to every program's build options
//   defines = PORTACL_WARP_SIZE=32 PORTACL_NVIDIA=1
//   [gemm]                        one section per kernel family; integer or text values
//   tile_m = 64
#pragma once

#include "portacl/export.hpp"

#include <map>
#include <string>
#include <vector>

#include "portacl/runtime/device.hpp"

namespace portacl {

class PORTACL_API TuningProfile {
public:
    std::string name;  // file stem, e.g. "nvidia"
    std::string path;  // where it was read from
    // section -> key -> value
    std::map<std::string, std::map<std::string, std::string>> sections;

    // Parses a profile file; throws portacl::Error naming the file and line of a syntax error.
    static TuningProfile parse(const std::string& text, const std::string& name, const std::string& path);

    // -1 if the [match] section rejects the device, else its specificity (number of keys that held).
    int matchScore(const DeviceInfo& device) const;
    int priority() const;

    std::string get(const std::string& section, const std::string& key, const std::string& fallback) const;
    // `options` with the [section] build_options appended (compiler options for that workload's
    // kernels alone: a vendor compiler that miscompiles them optimised, say), space-separated.
    std::string withBuildOptions(const std::string& section, const std::string& options) const;
    long getInt(const std::string& section, const std::string& key, long fallback) const;
    // The same, refused with one sentence naming the profile, key and value unless it lies in
    // [lo, hi] (and, with powerOfTwo, is a power of two): what the kernel using it allows.
    long getInt(const std::string& section, const std::string& key, long fallback, long lo, long hi,
                bool powerOfTwo = false) const;
    // [build] options followed by -D for each of [build] defines. A macro the engine sets from the
    // device or the precision (REAL, PORTACL_DOUBLE*, PORTACL_DEVICE_NVIDIA, DP4A, CVT_PACK,
    // HALF_LANES) is refused with one sentence.
    std::string buildOptions() const;
};

// Folders searched, first wins on equal names: $PORTACL_PLATFORMS_DIR (colon-separated), the
// installed share/portacl/platforms, the source tree's platforms/.
PORTACL_API std::vector<std::string> tuningSearchPath();

// Every profile found on the search path (a later folder's file of the same name is shadowed).
PORTACL_API std::vector<TuningProfile> loadTuningProfiles();

// The most specific profile that matches the device; the built-in defaults if no file matches.
PORTACL_API TuningProfile tuningFor(const DeviceInfo& device);

}  // namespace portacl
