#include "portacl/runtime/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace portacl {

namespace {
std::atomic<bool> enabled{false};
// A device set's member threads keep quiet: the batch's own line speaks for them.
thread_local bool mutedHere = false;

// The active levels, outermost first: one line shows them all.
std::mutex& stackMutex() {
    static std::mutex m;
    return m;
}
std::vector<const Progress*>& stack() {
    static std::vector<const Progress*> s;
    return s;
}

std::size_t terminalColumns() {
    winsize w{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 10) return w.ws_col;
    return 100;
}

// Draws every level on one line, cut to the terminal's width so that it never wraps (a wrapped
// line cannot be redrawn in place). Called with the stack's mutex held.
void drawLine() {
    std::string line;
    for (const Progress* p : stack()) line += (line.empty() ? "" : " | ") + p->describe();
    const std::size_t width = terminalColumns() - 1;
    if (line.size() > width) line = line.substr(0, width);
    std::fputs(("\r" + line + "\x1b[K").c_str(), stderr);
    std::fflush(stderr);
}

std::string seconds(double s) {
    char buf[32];
    if (s < 120) std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 7200) std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
    else std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
    return buf;
}
}  // namespace

void enableProgress(bool on) { enabled = on; }

void muteProgressOnThisThread(bool muted) { mutedHere = muted; }

bool progressEnabled() {
    const char* off = std::getenv("PORTACL_NO_PROGRESS");
    return enabled && !mutedHere && ::isatty(STDERR_FILENO) && !(off && *off && std::string(off) != "0");
}

Progress::Progress(std::string label, std::uint64_t total, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), tty_(progressEnabled()),
      start_(std::chrono::steady_clock::now()), lastDraw_(start_) {
    if (!tty_) return;
    std::lock_guard<std::mutex> lock(stackMutex());
    stack().push_back(this);
    drawLine();
}

Progress::~Progress() { finish(); }

std::string Progress::describe() const {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = elapsed > 0 ? done_ / elapsed : 0.0;
    char buf[256];
    if (total_ > 0) {
        std::snprintf(buf, sizeof buf, "%s: %llu/%llu %s (%.1f%%)", label_.c_str(), static_cast<unsigned long long>(done_),
                      static_cast<unsigned long long>(total_), unit_.c_str(), 100.0 * done_ / total_);
    } else if (done_ > 0) {
        std::snprintf(buf, sizeof buf, "%s: %llu %s", label_.c_str(), static_cast<unsigned long long>(done_), unit_.c_str());
    } else {
        std::snprintf(buf, sizeof buf, "%s", label_.c_str());
    }
    std::string s = buf;
    if (done_ > 0) {
        std::snprintf(buf, sizeof buf, ", %.3g %s/s", rate, unit_.c_str());
        s += buf;
    }
    s += ", " + seconds(elapsed) + " elapsed";
    if (total_ > 0 && done_ > 0 && done_ < total_) s += ", " + seconds((total_ - done_) / rate) + " left";
    if (!extra_.empty()) s += " " + extra_;
    return s;
}

void Progress::update(std::uint64_t done, const std::string& extra) {
    if (!tty_ || finished_) return;
    // Under the stack's lock: another thread's line reads this level's state.
    std::lock_guard<std::mutex> lock(stackMutex());
    done_ = done;
    extra_ = extra;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastDraw_ < std::chrono::milliseconds(200) && done != total_) return;
    lastDraw_ = now;
    drawLine();
}

void Progress::clearLine() {
    if (!tty_ || finished_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
}

void Progress::finish() {
    if (!tty_ || finished_) return;
    finished_ = true;
    std::lock_guard<std::mutex> lock(stackMutex());
    auto& s = stack();
    const bool outermost = !s.empty() && s.front() == this;
    s.erase(std::remove(s.begin(), s.end(), this), s.end());
    if ((outermost || s.empty()) && total_ == 0) {
        std::fputs("\r\x1b[K", stderr);  // work of unknown length (a kernel build) leaves no line behind
        std::fflush(stderr);
    } else if (outermost || s.empty()) {
        std::fputs(("\r" + describe() + "\x1b[K\n").c_str(), stderr);
        std::fflush(stderr);
    } else {
        drawLine();
    }
}

}  // namespace portacl
