// chemfiles' C library, found and opened at run time, so that the build and every command but a
// trajectory's work without it.
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

#include "io/chemfiles_library.hpp"

#ifndef PORTACL_CHEMFILES_LIBRARY
#define PORTACL_CHEMFILES_LIBRARY ""
#endif

namespace portacl::io::chemfiles {

namespace {

std::mutex warningsMutex;
std::vector<std::string> warnings;

// chemfiles prints its warnings to standard error unless given a callback; they are kept for the
// reader to turn into a refusal (a DCD whose header and size disagree is one).
void keepWarning(const char* message) {
    std::lock_guard<std::mutex> lock(warningsMutex);
    warnings.emplace_back(message ? message : "");
}

bool isDirectory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The places to try, in order: $PORTACL_CHEMFILES (the library, the wheel's package folder or the
// prefix pip installed it into), the configured path, and the loader's own search.
std::vector<std::string> candidates() {
    std::vector<std::string> paths;
    if (const char* env = std::getenv("PORTACL_CHEMFILES"); env && *env) {
        const std::string p = env;
        if (isDirectory(p)) {
            paths.push_back(p + "/libchemfiles.so");
            paths.push_back(p + "/chemfiles/libchemfiles.so");
        } else {
            paths.push_back(p);
        }
        return paths;  // an explicit choice is not second-guessed
    }
    if (*PORTACL_CHEMFILES_LIBRARY) paths.push_back(PORTACL_CHEMFILES_LIBRARY);
    paths.push_back("libchemfiles.so");
    return paths;
}

template <typename F>
bool bind(void* handle, const char* name, F& slot) {
    slot = reinterpret_cast<F>(::dlsym(handle, name));
    return slot != nullptr;
}

struct Loaded {
    Library lib{};
    bool ok = false;
    std::string problem;
};

Loaded load() {
    Loaded out;
    std::string tried;
    for (const std::string& path : candidates()) {
        void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            tried += (tried.empty() ? "" : ", ") + path;
            continue;
        }
        Library& l = out.lib;
        int (*setWarningCallback)(void (*)(const char*)) = nullptr;
        const bool all = bind(handle, "chfl_trajectory_open", l.trajectoryOpen) &&
                         bind(handle, "chfl_trajectory_nsteps", l.trajectoryNsteps) &&
                         bind(handle, "chfl_trajectory_read_step", l.trajectoryReadStep) &&
                         bind(handle, "chfl_trajectory_close", l.trajectoryClose) && bind(handle, "chfl_frame", l.frameNew) &&
                         bind(handle, "chfl_frame_atoms_count", l.frameAtomsCount) &&
                         bind(handle, "chfl_frame_positions", l.framePositions) && bind(handle, "chfl_free", l.free) &&
                         bind(handle, "chfl_last_error", l.lastError) && bind(handle, "chfl_version", l.version) &&
                         bind(handle, "chfl_set_warning_callback", setWarningCallback);
        if (!all) {
            ::dlclose(handle);
            out.problem = "'" + path + "' is not chemfiles' C library (it lacks chfl_trajectory_read_step or another function of chemfiles 0.10's C API)";
            return out;
        }
        setWarningCallback(keepWarning);
        out.ok = true;  // kept open for the life of the process
        return out;
    }
    out.problem = "reading a DCD, XTC or TRR trajectory needs chemfiles' library, found nowhere (tried " + tried +
                  "): run scripts/install-deps.sh, which installs the chemfiles wheel into /opt/portacl/chemfiles, or "
                  "'pip install chemfiles' and set PORTACL_CHEMFILES to the libchemfiles.so inside the installed package";
    return out;
}

}  // namespace

const Library* library(std::string* problem) {
    static const Loaded loaded = load();
    if (!loaded.ok && problem) *problem = loaded.problem;
    return loaded.ok ? &loaded.lib : nullptr;
}

std::vector<std::string> takeWarnings() {
    std::lock_guard<std::mutex> lock(warningsMutex);
    std::vector<std::string> out;
    out.swap(warnings);
    return out;
}

}  // namespace portacl::io::chemfiles
