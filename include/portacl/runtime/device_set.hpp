// Several devices at once for a batch of independent items (frames, images, volumes): one Context
// per device, each driven by its own host thread, taking the next items from one shared queue
// (dynamic balancing: a fast device takes more items, no fixed split). Results land in input order,
// so a batch gives what a one-device run gives. A device that fails mid-batch is retired and the items
// it held go to the others; the batch fails, in one sentence naming the item, only when no device is
// left. docs/multi_device.md says how to use it and what it measured.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/device.hpp"

namespace portacl {

// The devices a --device spec names, for a device set. The grammar of selectDevices, plus two forms
// that give one device several members:
//   SPEC*N   N contexts (each with its own queue and thread) on every device SPEC matches
//   SPEC/N   every device SPEC matches split into N sub-devices of equal compute units
//            (clCreateSubDevices, CL_DEVICE_PARTITION_EQUALLY; PoCL and Intel's CPU runtime offer it)
// Unlike selectDevices, a device named twice ("0:0,0:0") gives two members. Throws portacl::Error
// in one sentence when nothing matches or a device cannot be split so.
PORTACL_API std::vector<DeviceInfo> selectDeviceSet(const std::string& spec);

// One member's share of a batch.
struct PORTACL_API DeviceShare {
    std::string device;        // DeviceSet::label()
    std::size_t items = 0;     // items this member computed
    double busySeconds = 0;    // wall time inside the work function
    bool failed = false;       // retired after a failure (its items went to the others)
    std::string failure;       // the sentence it failed with
    bool leftIdle = false;     // stopped taking items: the others would finish the rest sooner
};

struct PORTACL_API BatchReport {
    std::size_t items = 0;
    double seconds = 0;                 // wall time of the whole batch
    std::vector<DeviceShare> devices;   // one per member, in the set's order
    std::vector<int> itemDevice;        // which member computed each item
    std::size_t retried = 0;            // items computed again after their device failed
    // "3 items in 0.52 s (5.8 items/s): 0:0 PoCL 2 items, 1.0 s busy; ..." one line per member.
    std::string describe() const;
};

struct PORTACL_API BatchOptions {
    // Items handed out at once: guided scheduling hands out about remaining / (4 x members) at a
    // time, between 1 and maxChunk (1: one item at a time, the finest balance).
    std::size_t maxChunk = 1;
    // Names item i in messages ("frame 3", "image a.png"); default "item i+1 of n".
    std::function<std::string(std::size_t)> itemName;
    // Leave a member idle near the end of a batch when the others, at the pace measured so far,
    // would finish every remaining item before it finished one more.
    bool idleSlowDevices = true;
};

class PORTACL_API DeviceSet {
public:
    // One context per entry (the same device may appear more than once). A device whose context
    // cannot be made is reported (logged) and left out; throws portacl::Error when none is left.
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

    // Runs items [0, n) over the set and waits for all of them. A work call that throws retires
    // its member for the life of the set (logged as a warning) and its items are computed again by
    // another member; when every member has failed, throws portacl::Error naming the item and each
    // member's failure. A one-member set runs on the calling thread. PORTACL_BATCH_FAULT=M:K makes
    // member M fail when handed its K-th item (M:K:die ends the process), for tests.
    BatchReport run(std::size_t n, const RangeWork& work, const BatchOptions& options = {});

    // Per item: fn(ctx, i) -> R, results in input order.
    template <typename R, typename Fn>
    std::vector<R> map(std::size_t n, Fn fn, BatchReport* report = nullptr, const BatchOptions& options = {}) {
        std::vector<std::optional<R>> slots(n);
        BatchReport r = run(n, [&](Context& ctx, std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) slots[i].emplace(fn(ctx, i));
        }, options);
        if (report) *report = std::move(r);
        std::vector<R> out;
        out.reserve(n);
        for (auto& s : slots) out.push_back(std::move(*s));
        return out;
    }

    // Members still taking items (not retired by a failure).
    std::size_t working() const;

private:
    std::vector<std::unique_ptr<Context>> contexts_;
    std::vector<std::string> labels_;
    std::vector<std::string> failures_;  // per member: why it was retired ("" while it works)
};

}  // namespace portacl
