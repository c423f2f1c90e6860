#include "batch.hpp"

#include <iostream>

#include "portacl/runtime/log.hpp"

namespace portacl::cli {

void BatchCliOptions::add(po::options_description& desc) {
    desc.add_options()("skip-no-fp64", po::bool_switch(&skipNoFp64),
                       "with several devices and --precision double: run on those with fp64, leaving the others out (default: refuse)");
}

std::unique_ptr<DeviceSet> openDeviceSet(const CommonOptions& common, const BatchCliOptions& batch, Precision precision,
                                         bool mixedOffered) {
    auto set = std::make_unique<DeviceSet>(selectDeviceSet(common.device), common.contextOptions());
    if (precision == Precision::Double && set->size() > 1) {
        if (batch.skipNoFp64) {
            const std::string dropped = set->dropMembersWithout(precision);
            if (!dropped.empty()) log(LogLevel::Warning, "the double run leaves out the devices without fp64: " + dropped);
        } else {
            set->requirePrecision(precision, mixedOffered);
        }
    }
    return set;
}

void printBatchReport(const BatchReport& report, const DeviceSet& set) {
    if (set.size() < 2) return;
    std::cerr << report.describe();
}

void printProfile(DeviceSet& set, const CommonOptions& common) {
    for (std::size_t i = 0; i < set.size(); ++i) printProfile(set.context(i), common);
}

}  // namespace portacl::cli
