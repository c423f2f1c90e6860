#include "portacl/runtime/tuning.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "portacl/runtime/error.hpp"

namespace portacl {
namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string trim(const std::string& s) {
    std::size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    std::size_t e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

bool contains(const std::string& hay, const std::string& needle) {
    return lower(hay).find(lower(needle)) != std::string::npos;
}

double capability(const DeviceInfo& d) { return d.nvComputeMajor + d.nvComputeMinor / 10.0; }

}  // namespace

TuningProfile TuningProfile::parse(const std::string& text, const std::string& name,
                                   const std::string& path) {
    TuningProfile p;
    p.name = name;
    p.path = path;
    std::istringstream in(text);
    std::string line, section;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        const auto hash = line.find('#');
        if (hash != std::string::npos) line = line.substr(0, hash);
        line = trim(line);
        if (line.empty()) continue;
        if (line.front() == '[') {
            if (line.back() != ']')
                throw Error("tuning profile " + path + " line " + std::to_string(lineNo) +
                            ": a section header must end with ']'");
            section = lower(trim(line.substr(1, line.size() - 2)));
            p.sections[section];
            continue;
        }
        const auto eq = line.find('=');
        if (eq == std::string::npos || section.empty())
            throw Error("tuning profile " + path + " line " + std::to_string(lineNo) +
                        ": expected 'key = value' inside a [section]");
        p.sections[section][lower(trim(line.substr(0, eq)))] = trim(line.substr(eq + 1));
    }
    return p;
}

int TuningProfile::matchScore(const DeviceInfo& d) const {
    auto it = sections.find("match");
    if (it == sections.end()) return 0;
    int score = 0;
    for (const auto& [key, value] : it->second) {
        bool ok = true;
        if (key == "platform") ok = contains(d.platformName, value);
        else if (key == "vendor") ok = contains(d.vendor, value) || contains(d.platformName, value);
        else if (key == "device") ok = contains(d.name, value);
        else if (key == "type") ok = lower(d.type) == lower(value);
        else if (key == "compute_capability_min") ok = d.nvComputeMajor > 0 && capability(d) + 1e-9 >= std::atof(value.c_str());
        else if (key == "compute_capability_max") ok = d.nvComputeMajor > 0 && capability(d) - 1e-9 <= std::atof(value.c_str());
        else if (key == "priority") continue;
        else continue;  // unknown keys are ignored so that newer profiles load in older engines
        if (!ok) return -1;
        ++score;
    }
    return score;
}

int TuningProfile::priority() const { return static_cast<int>(getInt("match", "priority", 0)); }

std::string TuningProfile::get(const std::string& section, const std::string& key,
                               const std::string& fallback) const {
    auto s = sections.find(section);
    if (s == sections.end()) return fallback;
    auto k = s->second.find(key);
    return k == s->second.end() ? fallback : k->second;
}

std::string TuningProfile::withBuildOptions(const std::string& section, const std::string& options) const {
    const std::string own = get(section, "build_options", "");
    return own.empty() ? options : options.empty() ? own : options + " " + own;
}

long TuningProfile::getInt(const std::string& section, const std::string& key, long fallback) const {
    const std::string v = get(section, key, "");
    if (v.empty()) return fallback;
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (end == v.c_str() || *end != '\0')
        throw Error("tuning profile " + path + ": [" + section + "] " + key + " = '" + v +
                    "' is not an integer");
    return n;
}

long TuningProfile::getInt(const std::string& section, const std::string& key, long fallback, long lo, long hi,
                           bool powerOfTwo) const {
    const long n = getInt(section, key, fallback);
    if (n < lo || n > hi || (powerOfTwo && (n <= 0 || (n & (n - 1)) != 0)))
        throw Error("tuning profile " + path + ": [" + section + "] " + key + " = " + std::to_string(n) + " is not " +
                    (powerOfTwo ? "a power of two " : "") + "in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], which the kernels allow.");
    return n;
}

std::string TuningProfile::buildOptions() const {
    // Macros the engine sets itself: the element type from the precision asked for, and the vendor
    // instructions (NVIDIA's inline PTX) only where the device reports them. A profile setting one
    // would run a path the device may lack, so it is refused rather than passed on.
    static const std::set<std::string> engineMacros = {"REAL", "PORTACL_DOUBLE", "PORTACL_DOUBLE_FLOAT", "PORTACL_DEVICE_NVIDIA",
                                                       "DP4A", "DP2A", "CVT_PACK", "HALF_LANES"};
    const auto refuseEngineMacro = [&](const std::string& definition, const char* where) {
        const std::string macro = definition.substr(0, definition.find('='));
        if (engineMacros.count(macro))
            throw Error("the tuning profile " + name + " (" + path + ") defines " + macro + " in its [build] " + where +
                        ", which the engine sets itself (the precision's element type, and NVIDIA's instructions only where the "
                        "device reports them); remove it from the profile");
    };
    const std::string options = get("build", "options", "");
    std::istringstream words(options);
    for (std::string w, previous; words >> w; previous = w) {
        if (previous == "-D") refuseEngineMacro(w, "options");
        else if (w.size() > 2 && w.compare(0, 2, "-D") == 0) refuseEngineMacro(w.substr(2), "options");
    }
    std::string out = options;
    std::istringstream defs(get("build", "defines", ""));
    std::string d;
    while (defs >> d) {
        refuseEngineMacro(d, "defines");
        out += (out.empty() ? "" : " ") + std::string("-D") + d;
    }
    return out;
}

std::vector<std::string> tuningSearchPath() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("PORTACL_PLATFORMS_DIR")) {
        std::stringstream ss(env);
        std::string d;
        while (std::getline(ss, d, ':'))
            if (!d.empty()) dirs.push_back(d);
    }
    // Beside a relocated installation: <prefix>/bin/portacl -> <prefix>/share/portacl/platforms.
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share/portacl/platforms").string());
#ifdef PORTACL_INSTALLED_PLATFORMS_DIR
    dirs.push_back(PORTACL_INSTALLED_PLATFORMS_DIR);
#endif
#ifdef PORTACL_SOURCE_PLATFORMS_DIR
    dirs.push_back(PORTACL_SOURCE_PLATFORMS_DIR);
#endif
    return dirs;
}

std::vector<TuningProfile> loadTuningProfiles() {
    std::vector<TuningProfile> out;
    std::set<std::string> seen;
    for (const auto& dir : tuningSearchPath()) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".profile") files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            const std::string stem = f.stem().string();
            if (!seen.insert(stem).second) continue;
            std::ifstream in(f);
            std::stringstream text;
            text << in.rdbuf();
            out.push_back(TuningProfile::parse(text.str(), stem, f.string()));
        }
    }
    return out;
}

TuningProfile tuningFor(const DeviceInfo& device) {
    const TuningProfile* best = nullptr;
    int bestScore = -1;
    const auto all = loadTuningProfiles();
    for (const auto& p : all) {
        const int s = p.matchScore(device);
        if (s < 0) continue;
        if (!best || s > bestScore || (s == bestScore && p.priority() > best->priority())) {
            best = &p;
            bestScore = s;
        }
    }
    if (best) return *best;
    TuningProfile builtin;
    builtin.name = "built-in";
    builtin.path = "(no profile file found)";
    return builtin;
}

}  // namespace portacl
