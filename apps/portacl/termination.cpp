#include "termination.hpp"

#include <csignal>
#include <thread>
#include <unistd.h>

#include "portacl/runtime/output_file.hpp"

namespace portacl::cli {
namespace {

int wakePipe[2] = {-1, -1};

// Async-signal-safe: hands the signal's number to the thread below.
extern "C" void onTerminatingSignal(int sig) {
    const unsigned char byte = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(wakePipe[1], &byte, 1);
}

}  // namespace

void removeTemporariesOnSignals() {
    if (wakePipe[0] >= 0 || ::pipe(wakePipe) != 0) return;
    std::thread([] {
        unsigned char sig = 0;
        while (::read(wakePipe[0], &sig, 1) != 1) {
        }
        removeUncommittedTemporaries();
        // Ends by the signal itself (its default action), as it would have without the handler.
        std::signal(sig, SIG_DFL);
        ::raise(sig);
        ::_exit(128 + sig);
    }).detach();
    struct sigaction action {};
    action.sa_handler = onTerminatingSignal;
    sigemptyset(&action.sa_mask);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

}  // namespace portacl::cli
