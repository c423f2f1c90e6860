#include "portacl/runtime/isolated_build.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <sstream>
#include <thread>

#include "portacl/runtime/cl.hpp"
#include "portacl/runtime/device.hpp"

extern char** environ;

namespace portacl {
namespace fs = std::filesystem;

namespace {

const char kRequestMagic[] = "PORTACL-BUILD-REQUEST 1";
constexpr int kExitBuilt = 0, kExitRejected = 3, kExitNoDevice = 4, kExitFailed = 5, kExitOutOfMemory = 6;

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Written under a temporary name, then renamed: the reader never sees half a file.
bool writeFile(const fs::path& p, const std::string& data) {
    const fs::path tmp = p.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out || !out.write(data.data(), static_cast<std::streamsize>(data.size())) || !out.flush()) return false;
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    return !ec;
}

struct Request {
    unsigned platformIndex = 0, deviceIndex = 0;
    std::string platformName, deviceName, driverVersion, options, source;
};

std::string encode(const Request& r) {
    std::ostringstream os;
    os << kRequestMagic << "\n"
       << r.platformIndex << "\n" << r.deviceIndex << "\n" << r.platformName << "\n" << r.deviceName << "\n"
       << r.driverVersion << "\n" << r.options.size() << "\n" << r.options << r.source.size() << "\n" << r.source;
    return os.str();
}

bool decode(const std::string& text, Request& r) {
    std::size_t pos = 0;
    auto line = [&](std::string& out) {
        const auto nl = text.find('\n', pos);
        if (nl == std::string::npos) return false;
        out = text.substr(pos, nl - pos);
        pos = nl + 1;
        return true;
    };
    auto sized = [&](std::string& out) {
        std::string n;
        if (!line(n)) return false;
        const std::size_t len = std::strtoull(n.c_str(), nullptr, 10);
        if (pos + len > text.size()) return false;
        out = text.substr(pos, len);
        pos += len;
        return true;
    };
    std::string magic, pi, di;
    if (!line(magic) || magic != kRequestMagic || !line(pi) || !line(di)) return false;
    r.platformIndex = static_cast<unsigned>(std::strtoul(pi.c_str(), nullptr, 10));
    r.deviceIndex = static_cast<unsigned>(std::strtoul(di.c_str(), nullptr, 10));
    return line(r.platformName) && line(r.deviceName) && line(r.driverVersion) && sized(r.options) && sized(r.source);
}

// The folder that holds libportacl (the build tree, or <prefix>/lib when installed).
std::string libraryDirectory() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&compileWorkerPath), &info) == 0 || !info.dli_fname) return "";
    std::error_code ec;
    const fs::path lib = fs::canonical(info.dli_fname, ec);
    return ec ? "" : lib.parent_path().string();
}

std::string describeExit(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return "crashed with signal " + std::to_string(sig) + (name ? " (" + std::string(name) + ")" : "");
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

bool isolatedBuildsEnabled() {
    if (const char* v = std::getenv("PORTACL_ISOLATED_BUILD"); v && std::string(v) == "0") return false;
    return !compileWorkerPath().empty();
}

double isolatedBuildTimeout() {
    if (const char* v = std::getenv("PORTACL_BUILD_TIMEOUT"); v && *v) {
        const double s = std::atof(v);
        if (s > 0) return s;
    }
    return 300.0;
}

std::string compileWorkerPath() {
    static const std::string path = [] {
        if (const char* env = std::getenv("PORTACL_COMPILE_WORKER"); env && *env) return executable(env) ? std::string(env) : std::string();
        std::vector<std::string> candidates;
        const std::string libDir = libraryDirectory();
        if (!libDir.empty()) {
            candidates.push_back(libDir + "/portacl-compile-worker");                  // the build tree
            candidates.push_back(libDir + "/../libexec/portacl/portacl-compile-worker");  // an installation
        }
#ifdef PORTACL_INSTALLED_WORKER
        candidates.push_back(PORTACL_INSTALLED_WORKER);
#endif
        for (const auto& c : candidates)
            if (executable(c)) return c;
        return std::string();
    }();
    return path;
}

IsolatedBuild buildInChildProcess(const DeviceInfo& device, const std::string& source, const std::string& options,
                                  double timeoutSeconds, const std::atomic<bool>* stop) {
    IsolatedBuild result;
    const std::string worker = compileWorkerPath();
    if (worker.empty()) {
        result.detail = "no compile worker executable";
        return result;
    }
    std::string dirTemplate = (fs::temp_directory_path() / "portacl-build-XXXXXX").string();
    if (!::mkdtemp(dirTemplate.data())) {
        result.detail = "no temporary folder for the compile worker";
        return result;
    }
    const fs::path dir = dirTemplate;
    // PORTACL_KEEP_BUILD_REQUESTS=1 keeps the folder (the request holds the source and options: a
    // reproducer for a compiler bug report) and names it on stderr.
    struct Cleanup {
        fs::path dir;
        ~Cleanup() {
            if (const char* keep = std::getenv("PORTACL_KEEP_BUILD_REQUESTS"); keep && *keep && std::string(keep) != "0") {
                std::cerr << "portacl: compile request kept in " << dir.string() << "\n";
                return;
            }
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    } cleanup{dir};

    Request req;
    req.platformIndex = device.platformIndex;
    req.deviceIndex = device.deviceIndex;
    req.platformName = device.platformName;
    req.deviceName = device.name;
    req.driverVersion = device.driverVersion;
    req.options = options;
    req.source = source;
    if (!writeFile(dir / "request", encode(req))) {
        result.detail = "could not write the compile worker's request";
        return result;
    }

    // The worker's own output (a crashing compiler's stack dump) goes to a file, not the user's terminal.
    const std::string outputPath = (dir / "output").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const std::string dirArg = dir.string();
    char* argv[] = {const_cast<char*>(worker.c_str()), const_cast<char*>(dirArg.c_str()), nullptr};
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, worker.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        result.detail = std::string("could not start the compile worker: ") + std::strerror(spawned);
        return result;
    }

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    auto pause = std::chrono::milliseconds(2);
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) {
            result.detail = "lost the compile worker";
            return result;
        }
        if (stop && *stop) {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            result.outcome = IsolatedBuild::Outcome::Stopped;
            result.detail = "stopped";
            return result;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            result.outcome = IsolatedBuild::Outcome::TimedOut;
            result.detail = "did not finish within " + std::to_string(static_cast<long>(timeoutSeconds)) + " s";
            return result;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
    result.output = readFile(outputPath);
    if (WIFEXITED(status) && WEXITSTATUS(status) == kExitBuilt) {
        const std::string bin = readFile(dir / "binary");
        result.outcome = IsolatedBuild::Outcome::Built;
        result.binary.assign(bin.begin(), bin.end());
        result.log = readFile(dir / "log");
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExitRejected) {
        result.outcome = IsolatedBuild::Outcome::Rejected;
        result.log = readFile(dir / "log");
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExitOutOfMemory) {
        result.outcome = IsolatedBuild::Outcome::OutOfMemory;
        result.detail = readFile(dir / "log");
    } else if (WIFEXITED(status) && (WEXITSTATUS(status) == kExitNoDevice || WEXITSTATUS(status) == kExitFailed)) {
        result.detail = readFile(dir / "log");
    } else {
        result.outcome = IsolatedBuild::Outcome::Crashed;
        result.detail = describeExit(status);
    }
    return result;
}

int compileWorkerMain(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: portacl-compile-worker FOLDER (started by the PortaCL engine, not by hand)\n";
        return kExitFailed;
    }
    const fs::path dir = argv[1];
    auto fail = [&](int code, const std::string& why) {
        writeFile(dir / "log", why);
        return code;
    };
    Request req;
    if (!decode(readFile(dir / "request"), req)) return fail(kExitFailed, "unreadable compile request");
    bool outOfMemory = false;  // the injected fault: the compiler throws std::bad_alloc
    if (const char* fault = std::getenv("PORTACL_COMPILE_WORKER_FAULT"); fault && *fault) {
        // "abort", "hang" or "out-of-memory", optionally ":TEXT,TEXT..." to fault only on options
        // that contain a TEXT.
        const std::string spec = fault;
        const auto colon = spec.find(':');
        const std::string action = spec.substr(0, colon);
        bool applies = colon == std::string::npos;
        std::stringstream texts(colon == std::string::npos ? "" : spec.substr(colon + 1));
        for (std::string t; std::getline(texts, t, ',');)
            if (!t.empty() && req.options.find(t) != std::string::npos) applies = true;
        if (applies && action == "abort") std::abort();
        if (applies && action == "hang")
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(60));
        outOfMemory = applies && action == "out-of-memory";
    }
    // Released only when the build ends without std::bad_alloc: the compiler throws it through the
    // runtime's C code, which leaves the runtime's locks held, and releasing these while unwinding
    // would wait on them forever.
    std::unique_ptr<cl::Context> context;
    std::unique_ptr<cl::Program> program;
    try {
        const auto all = listDevices();
        const DeviceInfo* dev = nullptr;
        for (const auto& d : all)
            if (d.platformIndex == req.platformIndex && d.deviceIndex == req.deviceIndex && d.platformName == req.platformName &&
                d.name == req.deviceName)
                dev = &d;
        for (const auto& d : all)
            if (!dev && d.platformName == req.platformName && d.name == req.deviceName && d.driverVersion == req.driverVersion)
                dev = &d;
        if (!dev) return fail(kExitNoDevice, "the compile worker did not find the device " + req.deviceName);
        const std::vector<cl::Device> devices{dev->device};
        context = std::make_unique<cl::Context>(dev->device);
        program = std::make_unique<cl::Program>(*context, req.source);
        try {
            if (outOfMemory) throw std::bad_alloc();
            program->build(devices, req.options.c_str());
        } catch (const cl::Error& e) {
            std::string log;
            try {
                log = program->getBuildInfo<CL_PROGRAM_BUILD_LOG>(dev->device);
            } catch (const cl::Error&) {
            }
            if (e.err() == CL_BUILD_PROGRAM_FAILURE || e.err() == CL_INVALID_BUILD_OPTIONS)
                return fail(kExitRejected, log);
            return fail(kExitFailed, "clBuildProgram failed with " + std::to_string(e.err()));
        }
        std::string binary;
        try {
            const auto bins = program->getInfo<CL_PROGRAM_BINARIES>();
            if (!bins.empty()) binary.assign(bins.front().begin(), bins.front().end());
        } catch (const cl::Error&) {
            // A driver that cannot return binaries: the engine compiles in its own process.
        }
        if (!writeFile(dir / "binary", binary)) return fail(kExitFailed, "could not write the program binary");
        std::string log;
        try {
            log = program->getBuildInfo<CL_PROGRAM_BUILD_LOG>(dev->device);
        } catch (const cl::Error&) {
        }
        writeFile(dir / "log", log);
        return kExitBuilt;
    } catch (const std::bad_alloc&) {
        // The runtime may hold its locks (see above), and its exit handlers would wait on them.
        context.release();
        program.release();
        std::_Exit(fail(kExitOutOfMemory, "the compiler ran out of host memory"));
    } catch (const std::exception& e) {
        return fail(kExitFailed, e.what());
    }
}

}  // namespace portacl
