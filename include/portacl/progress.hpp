// Progress of long work on the terminal: steps done, rate, time left, redrawn at most a few times a
// second on stderr. Silent when stderr is not a terminal (logs, CI), so that output stays clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace portacl {

class Progress {
public:
    // `total` steps of `unit` (e.g. "steps", "frames"); total 0 means unknown.
    Progress(std::string label, std::uint64_t total, std::string unit = "steps");
    ~Progress();
    // Sets the number of steps done; `extra` is appended to the line (e.g. "T=0.01 err=3e-4").
    void update(std::uint64_t done, const std::string& extra = "");
    // Clears the line (prints the final state once when on a terminal).
    void finish();
    // Erases the progress line so that other output can be printed; the next update redraws it.
    void clearLine();
    bool active() const { return tty_; }

private:
    std::string label_, unit_;
    std::uint64_t total_;
    bool tty_;
    bool finished_ = false;
    std::chrono::steady_clock::time_point start_, lastDraw_;
};

// True when stderr is a terminal and PORTACL_NO_PROGRESS is not set.
bool progressEnabled();

}  // namespace portacl
