#include "portacl/runtime/program_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <unistd.h>

#include "portacl/runtime/device.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/version.hpp"

namespace portacl {
namespace fs = std::filesystem;

namespace {
const char kMagic[] = "PORTACL-PROGRAM-CACHE 1\n";

std::string hex(std::uint64_t v) {
    std::ostringstream os;
    os << std::hex << std::setw(16) << std::setfill('0') << v;
    return os.str();
}
}  // namespace

std::uint64_t fnv1a64(const std::string& data, std::uint64_t seed) {
    std::uint64_t h = seed;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string ProgramCache::directory() {
    if (const char* d = std::getenv("PORTACL_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/portacl";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/portacl";
    return (fs::temp_directory_path() / "portacl-cache").string();
}

std::string ProgramCache::key(const DeviceInfo& d, const std::string& source, const std::string& options) {
    std::ostringstream k;
    k << "engine " << kVersion << "\n"
      << "platform " << d.platformName << " | " << d.platformVersion << "\n"
      << "device " << d.name << " | " << d.vendor << " | " << d.deviceVersion << "\n"
      << "driver " << d.driverVersion << "\n"
      << "options " << options << "\n"
      << "source " << hex(fnv1a64(source)) << hex(fnv1a64(source, 0x9E3779B97F4A7C15ull)) << " "
      << source.size() << "\n";
    return k.str();
}

std::string ProgramCache::pathFor(const std::string& key) const {
    return directory() + "/" + hex(fnv1a64(key)) + hex(fnv1a64(key, 0x9E3779B97F4A7C15ull)) + ".bin";
}

std::optional<std::vector<unsigned char>> ProgramCache::load(const std::string& key) {
    const std::string path = pathFor(key);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ++misses;
        return std::nullopt;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string all = ss.str();
    // Layout: magic, key length line, key, payload length line, payload checksum line, payload.
    auto fail = [&]() -> std::optional<std::vector<unsigned char>> {
        ++corrupt;
        ++misses;
        std::error_code ec;
        fs::remove(path, ec);
        return std::nullopt;
    };
    std::size_t pos = sizeof(kMagic) - 1;
    if (all.compare(0, pos, kMagic) != 0) return fail();
    auto readLine = [&](std::string& out) {
        const auto nl = all.find('\n', pos);
        if (nl == std::string::npos) return false;
        out = all.substr(pos, nl - pos);
        pos = nl + 1;
        return true;
    };
    std::string keyLen, payloadLen, checksum;
    if (!readLine(keyLen)) return fail();
    std::size_t kl = 0, pl = 0;
    try {
        kl = std::stoul(keyLen);
    } catch (...) {
        return fail();
    }
    if (pos + kl > all.size()) return fail();
    if (all.compare(pos, kl, key) != 0) {
        ++misses;  // a different key with the same file name: treat as a miss, keep nothing
        return std::nullopt;
    }
    pos += kl;
    if (!readLine(payloadLen) || !readLine(checksum)) return fail();
    try {
        pl = std::stoul(payloadLen);
    } catch (...) {
        return fail();
    }
    if (pos + pl != all.size()) return fail();
    const std::string payload = all.substr(pos, pl);
    if (hex(fnv1a64(payload)) != checksum) return fail();
    ++hits;
    return std::vector<unsigned char>(payload.begin(), payload.end());
}

void ProgramCache::store(const std::string& key, const std::vector<unsigned char>& binary) {
    std::error_code ec;
    fs::create_directories(directory(), ec);
    const std::string path = pathFor(key);
    // A temporary of its own per write (processes and threads that build the same program at once
    // each rename a complete entry), renamed into place; a cache that cannot be written is skipped.
    const std::string payload(binary.begin(), binary.end());
    try {
        writeFileAtomically(
            path,
            [&](std::ostream& out) {
                out << kMagic << key.size() << "\n" << key << payload.size() << "\n" << hex(fnv1a64(payload)) << "\n" << payload;
            },
            true);
    } catch (const Error&) {
    }
}

std::size_t ProgramCache::clear() {
    std::size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(directory(), ec)) {
        const std::string name = e.path().string();
        if (e.path().extension() == ".bin" || e.path().extension() == ".crashed" || name.find(".bin.tmp.") != std::string::npos) {
            if (fs::remove(e.path(), ec)) ++n;
        }
    }
    return n;
}

}  // namespace portacl
