// Wall-clock time of a command's stages (reading, each step, each output written), printed with
// --profile beside the device's event table: the device's events say what the kernels took, this
// says where the rest of the process went (file formats, host conversions, waiting).
#pragma once

#include <chrono>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace portacl::cli {

class StageClock {
public:
    StageClock() : start_(Clock::now()), last_(start_) {}

    // Ends the stage that began at the previous mark (or at construction) and names it.
    void mark(const std::string& stage) {
        const auto now = Clock::now();
        stages_.push_back({stage, std::chrono::duration<double>(now - last_).count()});
        last_ = now;
    }

    void print(std::ostream& os) const {
        const double total = std::chrono::duration<double>(last_ - start_).count();
        os << "Stages (wall clock)\n  stage                                 seconds       %\n";
        char line[128];
        for (const auto& s : stages_) {
            std::snprintf(line, sizeof line, "  %-36s %8.3f  %6.1f\n", s.name.c_str(), s.seconds,
                          total > 0 ? 100 * s.seconds / total : 0.0);
            os << line;
        }
        std::snprintf(line, sizeof line, "  %-36s %8.3f\n", "total", total);
        os << line;
    }

private:
    using Clock = std::chrono::steady_clock;
    struct Stage {
        std::string name;
        double seconds;
    };
    Clock::time_point start_, last_;
    std::vector<Stage> stages_;
};

}  // namespace portacl::cli
