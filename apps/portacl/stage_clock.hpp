// Wall-clock time of a command's stages (reading, each step, each output written), printed with
// --profile beside the device's event table: the device's events say what the kernels and transfers
// took, this says where the rest of the process went (file formats, host conversions, waiting). With
// a device clock (the profiler's sum of finished events), each stage also shows its device share.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace portacl::cli {

class StageClock {
public:
    StageClock() : start_(Clock::now()), last_(start_) {}

    // The device seconds spent so far (kernels and transfers, all finished); asked at every mark.
    void setDeviceClock(std::function<double()> deviceSeconds) {
        deviceSeconds_ = std::move(deviceSeconds);
        lastDevice_ = deviceSeconds_ ? deviceSeconds_() : 0;
    }

    // Ends the stage that began at the previous mark (or at construction) and names it.
    void mark(const std::string& stage) {
        double device = -1;
        if (deviceSeconds_) {
            const double now = deviceSeconds_();
            device = now - lastDevice_;
            lastDevice_ = now;
        }
        const auto now = Clock::now();
        stages_.push_back({stage, std::chrono::duration<double>(now - last_).count(), device});
        last_ = now;
    }

    void print(std::ostream& os) const {
        const double total = std::chrono::duration<double>(last_ - start_).count();
        double deviceTotal = 0;
        os << "Stages (wall clock; device: the profiler's kernels and transfers in the stage)\n"
           << "  stage                                 seconds       %    device s\n";
        char line[160];
        for (const auto& s : stages_) {
            char device[32] = "";
            if (s.device >= 0) std::snprintf(device, sizeof device, "%10.3f", s.device), deviceTotal += s.device;
            std::snprintf(line, sizeof line, "  %-36s %8.3f  %6.1f  %s\n", s.name.c_str(), s.seconds,
                          total > 0 ? 100 * s.seconds / total : 0.0, device);
            os << line;
        }
        std::snprintf(line, sizeof line, "  %-36s %8.3f  %6s  %10.3f\n", "total", total, "", deviceTotal);
        os << line;
    }

private:
    using Clock = std::chrono::steady_clock;
    struct Stage {
        std::string name;
        double seconds;
        double device;  // -1: no device clock
    };
    Clock::time_point start_, last_;
    std::function<double()> deviceSeconds_;
    double lastDevice_ = 0;
    std::vector<Stage> stages_;
};

}  // namespace portacl::cli
