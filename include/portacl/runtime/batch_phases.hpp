// Where a batch member's host thread spends its time: reading inputs, its own host work, waiting for
// its device, writing outputs, waiting on locks, building kernels. DeviceSet::run accounts every work call of a member
// (its host work by default); the work marks its reading, writing and lock waits with a PhaseScope,
// and Context marks the time its blocking calls wait for the device. The batch report sums them
// per member, so that a user sees whether the host or the devices limit a batch.
#pragma once

#include "portacl/export.hpp"

#include <chrono>
#include <cstddef>

namespace portacl {

enum class BatchPhase : int {
    Read,    // reading and decoding inputs
    Host,    // the member thread's own host work: preparing, enqueueing, post-processing (the default)
    Device,  // blocked in a Context call that waits for the device (finish, blocking reads and writes)
    Write,   // formatting and writing results
    Lock,    // waiting on a lock shared with the other members (a library that is not thread-safe)
    Build,   // building (or loading from the cache) the device's kernels
};
constexpr std::size_t kBatchPhases = 6;

// Seconds per phase.
struct PORTACL_API PhaseTimes {
    double seconds[kBatchPhases] = {};
    double& operator[](BatchPhase p) { return seconds[static_cast<std::size_t>(p)]; }
    double operator[](BatchPhase p) const { return seconds[static_cast<std::size_t>(p)]; }
    double total() const;
    PhaseTimes& operator+=(const PhaseTimes& o);
};

// The phase from its construction to its destruction on this thread, the enclosing phase paused
// meanwhile. Does nothing on a thread that is not running batch work (no PhaseAccount).
class PORTACL_API PhaseScope {
public:
    explicit PhaseScope(BatchPhase p);
    ~PhaseScope();
    PhaseScope(const PhaseScope&) = delete;
    PhaseScope& operator=(const PhaseScope&) = delete;

private:
    bool active_ = false;
    BatchPhase previous_ = BatchPhase::Host;
};

// Accounts this thread's time into `into` while it lives (DeviceSet::run, around each work call),
// starting in the Host phase; the time of an enclosing account is paused meanwhile.
class PORTACL_API PhaseAccount {
public:
    explicit PhaseAccount(PhaseTimes& into);
    ~PhaseAccount();
    PhaseAccount(const PhaseAccount&) = delete;
    PhaseAccount& operator=(const PhaseAccount&) = delete;

private:
    PhaseTimes* previousInto_ = nullptr;
    BatchPhase previousPhase_ = BatchPhase::Host;
};

}  // namespace portacl
