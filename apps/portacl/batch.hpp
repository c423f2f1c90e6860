// What the batch commands share: the device set that --device names (several devices, or one), the
// choice for a double run on a set with a member lacking fp64 (refuse, or --skip-no-fp64: run on
// the rest), and the per-device report a batch prints.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "command.hpp"
#include "portacl/cluster/world.hpp"
#include "portacl/runtime/device_set.hpp"

namespace portacl::cli {

struct BatchCliOptions {
    bool skipNoFp64 = false;
    // Members each GPU gets when --device has no *N or /N: a command whose items are mostly host
    // work on a GPU (Voronoi's frames, pictures to decode and encode) sets 2, so that one member's
    // host work overlaps the other's device work; `gpu*1` keeps one.
    unsigned membersPerGpu = 1;
    // Set by a command whose members each do their items' host work on their own thread (Voronoi's
    // tracer with a pool of one): the batch's item count, from which each GPU's members follow the
    // host's cores instead (membersPerGpuFromCores); 0: membersPerGpu as is.
    std::size_t coreMembersItems = 0;
    void add(po::options_description& desc);
};

// The set --device names (selectDeviceSet: "all", "0:0,1:0", "pocl*2", "cpu/2" ...), each GPU
// taken batch.membersPerGpu times (or membersPerGpuFromCores of the process's cores, with batch.coreMembersItems) when the
// spec has no *N or /N, the members on one device sharing its OpenCL context, every member's context given its
// share of the host's cores for the workload's own threads (ContextOptions::hostThreads); under mpirun,
// "auto" (the default) gives each rank its share of its node's GPUs by its local rank (every GPU
// whose index modulo the node's ranks is the local rank; a rank left without one shares one), and
// the CPU where the node has no GPU. A double run
// (`precision` Double) is refused in one sentence naming the members without fp64, or with
// --skip-no-fp64 runs on the others, saying which it left out.
std::unique_ptr<DeviceSet> openDeviceSet(const CommonOptions& common, const BatchCliOptions& batch, Precision precision,
                                         bool mixedOffered = false);

// The cores this process's host threads may keep busy: its CPU affinity's, shared with the other
// ranks of its node when the launcher left every rank unbound (each then sees every core).
unsigned hostCores();
// The writers behind a batch's devices (WriteBehind): one per core of hostCores(), at least 2.
unsigned writerThreads();

// The batch's line (items, seconds, items per second) and one line per device, on stderr.
void printBatchReport(const BatchReport& report, const DeviceSet& set);

// --profile's table for every member of the set.
void printProfile(DeviceSet& set, const CommonOptions& common);

// ---- Over the ranks of an MPI job ----

// The job's ranks when mpirun started portacl with more than one, else nullptr.
cluster::World* ranks();
// The commands that run over ranks, each with whether it passes the rank gate below (true) or says
// its failures once itself (false: kwave). Under mpirun the others are refused, since every rank
// would write the same outputs.
std::map<std::string, bool>& commandsOverRanks();
struct OverRanksRegistrar {
    OverRanksRegistrar(const std::string& name, bool gated) { commandsOverRanks()[name] = gated; }
};
#define PORTACL_OVER_RANKS(name, tag) static const ::portacl::cli::OverRanksRegistrar portacl_over_ranks_##tag(name, true)
#define PORTACL_OVER_RANKS_OWN_ERRORS(name, tag) \
    static const ::portacl::cli::OverRanksRegistrar portacl_over_ranks_##tag(name, false)
// Set by main for the command it runs: whether a failure before the gate goes through the gate.
void expectRankGate(bool gated);

// The point of a command over ranks where every rank has read its input and opened its devices
// (collective): returns when all are ready; else throws, on rank 0 the failing rank's sentence, on
// the others ReportedByRoot. A failure before this point reaches it through the error ladder
// (runCommand calls rankGateFailed), so that the job ends in one sentence instead of hanging.
void passRankGate();
// The same collective for a rank that failed before the gate: the job's sentence (rank 0 prints it).
std::string rankGateFailed(const std::string& failure);
bool rankGatePassed();

}  // namespace portacl::cli
