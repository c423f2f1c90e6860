// The on-disk cache of compiled program binaries. Keyed by the final source, the build options, the
// platform, the device, the driver and the engine version; entries are written atomically (temporary
// file, then rename) and carry a checksum, and anything that fails to load falls back to compiling.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portacl {

struct DeviceInfo;

class PORTACL_API ProgramCache {
public:
    // $PORTACL_CACHE_DIR, else $XDG_CACHE_HOME/portacl, else ~/.cache/portacl.
    static std::string directory();

    // The key text for one build: everything that can change the binary.
    static std::string key(const DeviceInfo& device, const std::string& source, const std::string& options);

    // The binary stored for this key, or nothing (absent, unreadable, corrupt, or another key).
    // A corrupt entry is deleted.
    std::optional<std::vector<unsigned char>> load(const std::string& key);
    // Stores the binary; failures to write are ignored (the cache is an optimisation).
    void store(const std::string& key, const std::vector<unsigned char>& binary);
    // Removes every entry; returns how many files it removed.
    static std::size_t clear();

    std::string pathFor(const std::string& key) const;

    std::size_t hits = 0, misses = 0, corrupt = 0;
};

// 64-bit FNV-1a; the cache uses two of them with different seeds.
PORTACL_API std::uint64_t fnv1a64(const std::string& data, std::uint64_t seed = 1469598103934665603ull);

}  // namespace portacl
