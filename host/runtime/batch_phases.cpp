#include "portacl/runtime/batch_phases.hpp"

namespace portacl {
namespace {

using Clock = std::chrono::steady_clock;

// This thread's account: where its time goes, the phase it is in and since when.
struct ThreadAccount {
    PhaseTimes* into = nullptr;
    BatchPhase phase = BatchPhase::Host;
    Clock::time_point since;
};
thread_local ThreadAccount account;

// Charges the time since the last switch to the current phase.
Clock::time_point charge() {
    const Clock::time_point now = Clock::now();
    (*account.into)[account.phase] += std::chrono::duration<double>(now - account.since).count();
    account.since = now;
    return now;
}

}  // namespace

double PhaseTimes::total() const {
    double t = 0;
    for (double s : seconds) t += s;
    return t;
}

PhaseTimes& PhaseTimes::operator+=(const PhaseTimes& o) {
    for (std::size_t i = 0; i < kBatchPhases; ++i) seconds[i] += o.seconds[i];
    return *this;
}

PhaseScope::PhaseScope(BatchPhase p) {
    if (!account.into) return;
    charge();
    active_ = true;
    previous_ = account.phase;
    account.phase = p;
}

PhaseScope::~PhaseScope() {
    if (!active_ || !account.into) return;
    charge();
    account.phase = previous_;
}

PhaseAccount::PhaseAccount(PhaseTimes& into) {
    if (account.into) charge();
    previousInto_ = account.into;
    previousPhase_ = account.phase;
    account.into = &into;
    account.phase = BatchPhase::Host;
    account.since = Clock::now();
}

PhaseAccount::~PhaseAccount() {
    charge();
    account.into = previousInto_;
    account.phase = previousPhase_;
}

}  // namespace portacl
