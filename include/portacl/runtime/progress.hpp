// Progress of long work on the terminal: steps done, rate, time left, redrawn at most a few times a
// second on stderr. Off unless the caller turns it on (enableProgress; the portacl command does), and
// silent when stderr is not a terminal (logs, CI), so that a library user's output stays clean.
// Progress objects nest: work started inside other work (a workload inside the bench, a kernel build
// inside a workload) shows on the same line after the outer one's state.
#pragma once

#include "portacl/export.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace portacl {

class PORTACL_API Progress {
public:
    // `total` steps of `unit` (e.g. "steps", "frames"); total 0 means unknown.
    Progress(std::string label, std::uint64_t total, std::string unit = "steps");
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    // Sets the number of steps done; `extra` is appended to the line (e.g. "T=0.01 err=3e-4").
    void update(std::uint64_t done, const std::string& extra = "");
    // Ends this level: the outermost one leaves its final state on its own line (or, with total 0,
    // erases it), an inner one hands the line back to the level around it.
    void finish();
    // Erases the progress line so that other output can be printed; the next update redraws it.
    void clearLine();
    bool active() const { return tty_; }
    // This level's state as text: "label: 3/9 workloads (33.3%), 0.5 workloads/s, 6 s elapsed, 12 s left".
    std::string describe() const;

private:
    std::string label_, unit_, extra_;
    std::uint64_t total_, done_ = 0;
    bool tty_;
    bool finished_ = false;
    std::chrono::steady_clock::time_point start_, lastDraw_;
};

// Turns progress lines on or off for this process (off by default).
PORTACL_API void enableProgress(bool on);
// True when progress was enabled, stderr is a terminal, PORTACL_NO_PROGRESS is not set and this
// thread is not muted.
PORTACL_API bool progressEnabled();
// Progress made on this thread shows nothing (a device set's member threads: the batch shows its own).
PORTACL_API void muteProgressOnThisThread(bool muted);

}  // namespace portacl
