#include "setup_trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace portacl::kwave {

void traceSetup(const std::string& part) {
    static const bool on = [] {
        const char* v = std::getenv("PORTACL_KWAVE_SETUP_TRACE");
        return v && *v && std::string(v) != "0";
    }();
    if (!on) return;
    static const auto start = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");  // Open MPI's; else MPICH's
    if (!rank) rank = std::getenv("PMI_RANK");
    std::fprintf(stderr, "kwave set-up [rank %s] %8.2f s: %s\n", rank ? rank : "0", seconds, part.c_str());
    std::fflush(stderr);
}

}  // namespace portacl::kwave
