#include "address_space_limit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "portacl/runtime/cl.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl {
namespace {

constexpr double kProbeSeconds = 60;  // loading every runtime takes about a second

// In the child: every platform, its devices and a context on each (where PoCL may start its worker
// threads), through the C API; the exit status says it worked.
[[noreturn]] void listInChild() {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {  // the runtimes' own messages stay out of the parent's one sentence
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
    }
    cl_uint count = 0;
    if (clGetPlatformIDs(0, nullptr, &count) == CL_SUCCESS && count) {
        std::vector<cl_platform_id> platforms(count);
        if (clGetPlatformIDs(count, platforms.data(), nullptr) == CL_SUCCESS)
            for (cl_platform_id p : platforms) {
                cl_uint n = 0;
                if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || !n) continue;
                std::vector<cl_device_id> devices(n);
                if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr) != CL_SUCCESS) continue;
                for (cl_device_id d : devices) {
                    cl_int err = CL_SUCCESS;
                    clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
                }
            }
    }
    ::_exit(0);
}

std::string describe(int status) {
    if (WIFSIGNALED(status)) {
        const char* name = ::strsignal(WTERMSIG(status));
        return "crashed with signal " + std::to_string(WTERMSIG(status)) + (name ? " (" + std::string(name) + ")" : "");
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// The probe's verdict: nothing when the runtimes loaded, else the sentence.
std::optional<std::string> probe(std::uint64_t limit) {
    const std::string where = "under this process's address-space limit of " + std::to_string(limit >> 20) + " MiB (ulimit -v)";
    const std::string advice = "; raise the limit, or load only the runtime you use (OCL_ICD_VENDORS set to its .icd file)";
    const pid_t pid = ::fork();
    if (pid < 0) return "the OpenCL runtimes cannot be loaded " + where + ": no process could be started to try (" + std::strerror(errno) + ")" + advice;
    if (pid == 0) listInChild();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kProbeSeconds);
    auto pause = std::chrono::milliseconds(2);
    for (;;) {
        int status = 0;
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
            return "loading the OpenCL runtimes " + describe(status) + " " + where + advice;
        }
        if (done < 0 && errno != EINTR) return std::nullopt;  // reaped elsewhere: nothing is known against it
        if (std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return "loading the OpenCL runtimes did not finish within " + std::to_string(static_cast<int>(kProbeSeconds)) + " s " + where + advice;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
}

}  // namespace

std::optional<std::uint64_t> addressSpaceLimit() {
    rlimit as{};
    if (::getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return std::nullopt;
    return static_cast<std::uint64_t>(as.rlim_cur);
}

std::string addressSpaceLimitNote() {
    const auto limit = addressSpaceLimit();
    return limit ? " under this process's address-space limit of " + std::to_string(*limit >> 20) + " MiB (ulimit -v); raise it" : "";
}

void probeRuntimesUnderAddressSpaceLimit() {
    static std::mutex mutex;
    static bool probed = false;
    static std::optional<std::string> failure;
    std::lock_guard<std::mutex> lock(mutex);
    if (!probed) {
        if (const auto limit = addressSpaceLimit()) failure = probe(*limit);
        probed = true;
    }
    if (failure) throw Error(*failure);
}

}  // namespace portacl
