// What the batch commands share: the device set that --device names (several devices, or one), the
// choice for a double run on a set with a member lacking fp64 (refuse, or --skip-no-fp64: run on
// the rest), and the per-device report a batch on several devices prints.
#pragma once

#include <memory>

#include "command.hpp"
#include "portacl/runtime/device_set.hpp"

namespace portacl::cli {

struct BatchCliOptions {
    bool skipNoFp64 = false;
    void add(po::options_description& desc);
};

// The set --device names (selectDeviceSet: "all", "0:0,1:0", "pocl*2", "cpu/2" ...). A double run
// (`precision` Double) is refused in one sentence naming the members without fp64, or with
// --skip-no-fp64 runs on the others, saying which it left out.
std::unique_ptr<DeviceSet> openDeviceSet(const CommonOptions& common, const BatchCliOptions& batch, Precision precision,
                                         bool mixedOffered = false);

// The per-device lines of a batch on more than one device, on stderr.
void printBatchReport(const BatchReport& report, const DeviceSet& set);

// --profile's table for every member of the set.
void printProfile(DeviceSet& set, const CommonOptions& common);

}  // namespace portacl::cli
