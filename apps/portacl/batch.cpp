#include "batch.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "portacl/runtime/batch_memory.hpp"
#include "portacl/runtime/host_cores.hpp"
#include "portacl/runtime/log.hpp"

namespace portacl::cli {

void BatchCliOptions::add(po::options_description& desc) {
    desc.add_options()("skip-no-fp64", po::bool_switch(&skipNoFp64),
                       "with several devices and --precision double: run on those with fp64, leaving the others out (default: refuse)");
}

namespace {

bool gatePassed = false;
bool gateExpected = false;

// Under mpirun with the default device: this rank's share of the node's GPUs, or "auto".
std::string rankDeviceSpec(const CommonOptions& common) {
    cluster::World* world = ranks();
    const char* env = std::getenv("PORTACL_DEVICE");
    if (!world || common.device != "auto" || (env && *env)) return common.device;
    std::vector<DeviceInfo> gpus;
    try {
        gpus = selectDevices("gpu");
    } catch (const Error&) {
        return "auto";  // no GPU: the node's CPU device
    }
    std::string spec;
    for (std::size_t g = 0; g < gpus.size(); ++g)
        if (static_cast<int>(g % static_cast<std::size_t>(world->localSize())) == world->localRank())
            spec += (spec.empty() ? "" : ",") + std::to_string(gpus[g].platformIndex) + ":" + std::to_string(gpus[g].deviceIndex);
    if (spec.empty()) {
        const DeviceInfo& g = gpus[static_cast<std::size_t>(world->localRank()) % gpus.size()];
        spec = std::to_string(g.platformIndex) + ":" + std::to_string(g.deviceIndex);
    }
    return spec;
}

}  // namespace

cluster::World* ranks() {
    cluster::World* world = cluster::World::current();
    return world && world->distributed() ? world : nullptr;
}

std::map<std::string, bool>& commandsOverRanks() {
    static std::map<std::string, bool> names;
    return names;
}

void expectRankGate(bool gated) { gateExpected = gated; }

void passRankGate() {
    cluster::World* world = ranks();
    if (!world || gatePassed) return;
    gatePassed = true;
    const std::string verdict = world->agree("");
    if (verdict.empty()) return;
    if (world->isRoot()) throw Error(verdict);
    throw cluster::ReportedByRoot(verdict);
}

std::string rankGateFailed(const std::string& failure) {
    cluster::World* world = ranks();
    if (!world || gatePassed || !gateExpected) return failure;
    gatePassed = true;
    return world->agree(failure.empty() ? "failed" : failure);
}

bool rankGatePassed() { return gatePassed || !gateExpected; }

std::unique_ptr<DeviceSet> openDeviceSet(const CommonOptions& common, const BatchCliOptions& batch, Precision precision,
                                         bool mixedOffered) {
    keepFreedMemoryForBatches();
    const std::string spec = rankDeviceSpec(common);
    const std::vector<DeviceInfo> devices = selectDeviceSet(spec);
    unsigned perGpu = batch.membersPerGpu;
    if (batch.coreMembersItems > 0) {
        const auto gpus = static_cast<unsigned>(std::count_if(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.isGpu; }));
        if (gpus > 0) perGpu = membersPerGpuFromCores(hostCores(), gpus, batch.coreMembersItems);
    }
    std::string coresNote;
    const std::vector<DeviceInfo> members =
        withCoresForGpuMembers(withMembersPerGpu(devices, spec, perGpu), coresNote, batch.coreMembersItems > 0 ? hostCores() : 0);
    if (!coresNote.empty()) log(LogLevel::Info, coresNote);
    ContextOptions options = common.contextOptions();
    options.hostThreads = std::max(1u, hostCores() / static_cast<unsigned>(members.size()));
    auto set = std::make_unique<DeviceSet>(members, options);
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

unsigned hostCores() {
    const unsigned usable = usableCores();
    const cluster::World* world = ranks();
    if (world && world->localSize() > 1 && usable >= machineCores())
        return std::max(1u, usable / static_cast<unsigned>(world->localSize()));
    return usable;
}

unsigned writerThreads() { return std::max(2u, hostCores()); }

void printBatchReport(const BatchReport& report, const DeviceSet&) {
    std::cerr << report.describe();
}

void printProfile(DeviceSet& set, const CommonOptions& common) {
    std::vector<Context*> contexts;
    for (std::size_t i = 0; i < set.size(); ++i) contexts.push_back(&set.context(i));
    printProfile(contexts, common);
}

}  // namespace portacl::cli
