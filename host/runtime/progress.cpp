#include "portacl/progress.hpp"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace portacl {

bool progressEnabled() {
    const char* off = std::getenv("PORTACL_NO_PROGRESS");
    return ::isatty(STDERR_FILENO) && !(off && *off && std::string(off) != "0");
}

Progress::Progress(std::string label, std::uint64_t total, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), tty_(progressEnabled()),
      start_(std::chrono::steady_clock::now()), lastDraw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(std::uint64_t done, const std::string& extra) {
    if (!tty_ || finished_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastDraw_ < std::chrono::milliseconds(200) && done != total_) return;
    lastDraw_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? done / elapsed : 0.0;
    char line[512];
    if (total_ > 0) {
        const double left = rate > 0 ? (total_ - done) / rate : 0.0;
        std::snprintf(line, sizeof line, "\r%s: %llu/%llu %s (%.1f%%), %.3g %s/s, %.0f s elapsed, %.0f s left %s\x1b[K",
                      label_.c_str(), static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                      unit_.c_str(), 100.0 * done / total_, rate, unit_.c_str(), elapsed, left, extra.c_str());
    } else {
        std::snprintf(line, sizeof line, "\r%s: %llu %s, %.3g %s/s, %.0f s elapsed %s\x1b[K", label_.c_str(),
                      static_cast<unsigned long long>(done), unit_.c_str(), rate, unit_.c_str(), elapsed, extra.c_str());
    }
    std::fputs(line, stderr);
    std::fflush(stderr);
}

void Progress::clearLine() {
    if (!tty_ || finished_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
}

void Progress::finish() {
    if (!tty_ || finished_) return;
    finished_ = true;
    std::fputs("\n", stderr);
}

}  // namespace portacl
