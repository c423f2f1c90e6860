// Several devices at once for a batch of independent items (frames, images, volumes): one Context
// per device, each driven by its own host thread, taking the next items from one shared queue
// (dynamic balancing: a fast device takes more items, no fixed split). Results land in input order,
// so a batch gives what a one-device run gives. When nothing is left to hand out, an idle device
// computes a copy of the items a slower one still holds, and the first copy to finish is kept. A
// device that fails mid-batch is retired and the items it held go to the others; the batch fails,
// in one sentence naming the item, only when no device is left. docs/multi_device.md says how to use
// it and what it measured.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "portacl/runtime/batch_phases.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/device.hpp"

namespace portacl {

// The devices a --device spec names, for a device set. The grammar of selectDevices, plus two forms
// that give one device several members:
//   SPEC*N   N members (each with its own queue and thread; on a GPU they share its OpenCL
//            context, on a CPU device each has its own: DeviceSet) on every device SPEC matches
//   SPEC/N   every device SPEC matches split into N sub-devices of equal compute units
//            (clCreateSubDevices, CL_DEVICE_PARTITION_EQUALLY; PoCL and Intel's CPU runtime offer it)
// Unlike selectDevices, a device named twice ("0:0,0:0") gives two members. Throws portacl::Error
// in one sentence when nothing matches or a device cannot be split so.
PORTACL_API std::vector<DeviceInfo> selectDeviceSet(const std::string& spec);

// The members of a batch whose items are mostly host work on a GPU (decoding, tracing, formatting
// between short kernels): every GPU of `devices` taken `perGpu` times, so that one member's host work
// overlaps another's device work, unless `spec`, the --device text they came from, gives *N or /N
// itself. A CPU device stays one member: its cores are the host's.
PORTACL_API std::vector<DeviceInfo> withMembersPerGpu(const std::vector<DeviceInfo>& devices, const std::string& spec,
                                                      unsigned perGpu);

// A CPU device beside GPU members shares the host's cores with the threads that drive them (each
// GPU member's host work: tracing, decoding, formatting), and where those threads are the batch's
// limit, a CPU device on every core slows the batch down. So, as StarPU dedicates a core to each
// GPU worker, the CPU device becomes a sub-device of its cores less one per GPU member
// (CL_DEVICE_PARTITION_BY_COUNTS), or is left out when none would be left. `gpuCores` reserves more
// cores than that for them: a batch whose GPU members each keep a core busy (Voronoi's, a member per
// core) reserves every core, and on one H200 with 16 cores the CPU device beside it, even on 8
// of them, took the GPU's members from 3.4 to 5.3 ms of host work a frame (docs/multi_device.md).
// A CPU device the spec split itself (SPEC/N) stays as given. `note` says what was done ("" when
// nothing was).
PORTACL_API std::vector<DeviceInfo> withCoresForGpuMembers(const std::vector<DeviceInfo>& members, std::string& note,
                                                           unsigned gpuCores = 0);

// The members per GPU for a batch of `items` whose members each keep one core busy while they do
// not wait for their device (Voronoi's, each tracing its frames on its own thread): one per core of
// each GPU's share of the host (`cores` / `gpus`, rounded up), so that every core feeds a GPU and no
// member splits its host work over threads that wait for each other; no more than leave every member
// kMinItemsPerCoreMember items (a small batch keeps fewer members, each with a share of the cores
// for its own threads), and at most kMaxMembersPerGpu: on one H100 with 64 cores 8 members gave 5259
// frames a second, 16 5301, 32 3940 and 64 2445 (docs/multi_device.md). At least 1.
constexpr std::size_t kMinItemsPerCoreMember = 8;
constexpr unsigned kMaxMembersPerGpu = 8;
PORTACL_API unsigned membersPerGpuFromCores(unsigned cores, unsigned gpus, std::size_t items);

// One member's share of a batch.
struct PORTACL_API DeviceShare {
    std::string device;        // DeviceSet::label()
    std::size_t items = 0;     // items this member computed
    double busySeconds = 0;    // wall time inside the work function
    bool failed = false;       // retired after a failure (its items went to the others)
    std::string failure;       // the sentence it failed with
    bool leftIdle = false;     // stopped taking items: the others would finish the rest sooner
    std::size_t copies = 0;    // calls that copied items a slower member held
    std::size_t stopped = 0;   // calls stopped because another member's copy finished them first
    PhaseTimes phases;         // busySeconds by phase (BatchPhase): reading, host work, device, ...
    double waitSeconds = 0;    // outside the work function: waiting for items, idle at the end
};

struct PORTACL_API BatchReport {
    std::size_t items = 0;
    double seconds = 0;                 // wall time of the whole batch
    std::vector<DeviceShare> devices;   // one per member, in the set's order
    std::vector<int> itemDevice;        // which member computed each item
    std::size_t retried = 0;            // items computed again after their device failed
    std::size_t copiedItems = 0;        // items whose kept result came from a straggler's copy
    // "3 items in 0.52 s (5.8 items/s) on 2 devices", then one line per member (its items, busy
    // seconds, and per item the seconds of each phase) and one line saying how the members' busy
    // time divides between the host and the devices (and whether the host limits the batch).
    std::string describe() const;
    // The members' phases summed.
    PhaseTimes phases() const;
};

struct PORTACL_API BatchOptions {
    // Items handed out at once: guided scheduling hands out about remaining / (4 x members) at a
    // time, between minChunk and maxChunk (1: one item at a time, the finest balance).
    std::size_t maxChunk = 1;
    // The smallest chunk handed out while enough items are left (work whose calls have a fixed cost
    // worth more than the balance of single items at the end: a Voronoi call's waves). A member
    // alone in the set takes up to maxChunk items at once.
    std::size_t minChunk = 1;
    // Names item i in messages ("frame 3", "image a.png"); default "item i+1 of n".
    std::function<std::string(std::size_t)> itemName;
    // Leave a member idle near the end of a batch when the others, at the pace measured so far,
    // would finish every remaining item before it finished one more.
    bool idleSlowDevices = true;
    // Stragglers: when no item is left to hand out and a member is idle while another still computes
    // items, the idle member computes a copy of them if, at the paces measured, it would finish them
    // sooner (a member whose pace is not known yet, its first call, is always worth a copy). The
    // first copy to claim an item keeps it; the other copy is stopped at its next kernel launch or
    // build (Context::requestStop). Only work that claims its items (BatchCall) is ever copied.
    bool copyStragglers = true;
    // Polled on the calling thread every few milliseconds while the members work: true stops the
    // batch (each member at its next launch, Context::requestStop) and run throws WorkAbandoned.
    // For a batch whose items another process has finished (an MPI rank's chunk copied by another).
    std::function<bool()> stopWhen;
    // runDistributedBatch: called on a rank as it starts computing a chunk [begin, end) that rank 0
    // handed it, and once it is done with it (finished, stopped or failed), so that the rank's work
    // can read the chunk's inputs ahead of its devices.
    std::function<void(std::size_t begin, std::size_t end)> chunkStarting, chunkDone;
    // runDistributedBatch: the most items a rank's chunk holds per device of the rank (0: maxChunk,
    // one call each). Larger chunks give a rank's read-ahead items to read before its devices ask for
    // them; the guided split still shrinks them to one item per device towards the end.
    std::size_t rankChunk = 0;
};

// What a work call learns from the set. Two calls may compute the same items at once (a straggler
// and its copy): each claims an item before writing its result or output, and writes it only when
// the claim succeeds, so that every item has exactly one result, the first to be finished.
class PORTACL_API BatchCall {
public:
    BatchCall() = default;
    // A call whose claims go to `claim` and `claimed` (a chunk of a larger batch numbers its items so).
    BatchCall(std::function<bool(std::size_t)> claim, std::function<bool(std::size_t)> claimed, bool copy)
        : claim_(std::move(claim)), claimed_(std::move(claimed)), copy_(copy) {}
    // True for the first call to claim item i, which then writes the item's result; false when
    // another copy has, and this call drops what it computed for i. An item this call returns without
    // claiming is taken to be written by it (unless another copy claimed it).
    bool claim(std::size_t i) { return claim_(i); }
    // Whether item i has been claimed already (by the other copy): the call may skip computing it.
    bool claimed(std::size_t i) const { return claimed_(i); }
    // Whether this call is the copy of items another member still holds.
    bool isCopy() const { return copy_; }

private:
    friend class DeviceSet;
    std::function<bool(std::size_t)> claim_, claimed_;
    bool copy_ = false;
};

class PORTACL_API DeviceSet {
public:
    // One Context per entry (the same device may appear more than once): the entries of one GPU
    // share its OpenCL context, each with its own queue; a CPU device's entries get an OpenCL
    // context each (PORTACL_MEMBER_CONTEXTS=shared or =separate decides for every device). A device
    // whose context cannot be made is reported (logged) and left out; throws portacl::Error when
    // none is left.
    explicit DeviceSet(const std::vector<DeviceInfo>& devices, ContextOptions options = defaultContextOptions());
    ~DeviceSet();
    DeviceSet(const DeviceSet&) = delete;
    DeviceSet& operator=(const DeviceSet&) = delete;

    std::size_t size() const { return contexts_.size(); }
    Context& context(std::size_t i) { return *contexts_[i]; }
    // The member's label in reports: "P:D name (platform)" ("P:D PoCL CPU" for PoCL), with "#k" for
    // the k-th member on one device (a device listed twice, or its sub-devices).
    const std::string& label(std::size_t i) const { return labels_[i]; }

    // Throws portacl::Error naming every member without fp64 when `p` is double (use refuseOrDrop
    // to run on the rest instead).
    void requirePrecision(Precision p, bool mixedOffered = false) const;
    // Drops the members that cannot run precision `p` and returns their labels, comma-separated
    // (empty when none was dropped); throws when none would be left.
    std::string dropMembersWithout(Precision p);

    // The work function of a batch: computes items [begin, end) on `ctx`. Called on the member's own
    // thread; one call at a time per member, concurrently across members. It must write each item's
    // result to a place of its own (the index), so that results come back in input order.
    using RangeWork = std::function<void(Context& ctx, std::size_t begin, std::size_t end)>;
    // The same, for work whose items may be computed twice (a straggler's copy): it writes item i's
    // result only when call.claim(i) says so.
    using ClaimingWork = std::function<void(Context& ctx, std::size_t begin, std::size_t end, BatchCall& call)>;

    // Runs items [0, n) over the set and waits for all of them. A work call that throws retires
    // its member for the life of the set (logged as a warning) and its items are computed again by
    // another member; when every member has failed, throws portacl::Error naming the item and each
    // member's failure. A one-member set runs on the calling thread. PORTACL_BATCH_FAULT=M:K makes
    // member M fail when handed its K-th item (M:K:die ends the process), and PORTACL_BATCH_SLOW=M:S
    // makes member M wait S seconds before each call (a slow device; its copy ends the wait), for
    // tests. RangeWork writes its results itself, so its items are never copied.
    BatchReport run(std::size_t n, const RangeWork& work, const BatchOptions& options = {});
    // The same with straggler copies (BatchOptions::copyStragglers).
    BatchReport run(std::size_t n, const ClaimingWork& work, const BatchOptions& options = {});

    // Per item: fn(ctx, i) -> R, results in input order (a straggler's items copied as above).
    template <typename R, typename Fn>
    std::vector<R> map(std::size_t n, Fn fn, BatchReport* report = nullptr, const BatchOptions& options = {}) {
        std::vector<std::optional<R>> slots(n);
        BatchReport r = run(n, ClaimingWork([&](Context& ctx, std::size_t b, std::size_t e, BatchCall& call) {
            for (std::size_t i = b; i < e; ++i) {
                if (call.claimed(i)) continue;
                R value = fn(ctx, i);
                if (call.claim(i)) slots[i].emplace(std::move(value));
            }
        }), options);
        if (report) *report = std::move(r);
        std::vector<R> out;
        out.reserve(n);
        for (auto& s : slots) out.push_back(std::move(*s));
        return out;
    }

    // Members still taking items (not retired by a failure).
    std::size_t working() const;
    // Why member i was retired, "" while it works.
    const std::string& failure(std::size_t i) const { return failures_[i]; }
    // "every device of the set failed (label: why; ...)", for a set with none working.
    std::string failedSentence() const;

private:
    std::vector<std::unique_ptr<Context>> contexts_;
    std::vector<std::string> labels_;
    std::vector<std::string> failures_;  // per member: why it was retired ("" while it works)
};

}  // namespace portacl
