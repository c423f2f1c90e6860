#include "portacl/runtime/device_set.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "portacl/runtime/error.hpp"
#include "portacl/runtime/log.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl {
namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// "SPEC*N" or "SPEC/N": the base spec, the operator ('*', '/', or 0) and N.
void splitMultiplier(const std::string& part, std::string& base, char& op, unsigned& n) {
    base = part;
    op = 0;
    n = 1;
    const auto at = part.find_last_of("*/");
    if (at == std::string::npos) return;
    const std::string count = trim(part.substr(at + 1));
    if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos || count.size() > 4)
        throw Error("'" + part + "' is not a device spec: after '" + part[at] + "' comes the number of members (e.g. pocl*2 or cpu/2)");
    n = static_cast<unsigned>(std::stoul(count));
    if (n == 0) throw Error("'" + part + "' asks for 0 members; give at least 1");
    base = trim(part.substr(0, at));
    op = part[at];
}

std::vector<DeviceInfo> splitDevice(const DeviceInfo& d, unsigned n) {
    const unsigned per = n ? d.computeUnits / n : 0;
    cl_uint maxSub = 0;
    try {
        maxSub = d.device.getInfo<CL_DEVICE_PARTITION_MAX_SUB_DEVICES>();
    } catch (const cl::Error&) {
    }
    if (per == 0 || maxSub < n)
        throw Error("device " + d.label() + " cannot be split into " + std::to_string(n) + " sub-devices (it has " +
                    std::to_string(d.computeUnits) + " compute units and allows " + std::to_string(maxSub) + " sub-devices)");
    const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, static_cast<cl_device_partition_property>(per), 0};
    std::vector<cl::Device> subs;
    cl::Device root = d.device;
    try {
        root.createSubDevices(props, &subs);
    } catch (const cl::Error& e) {
        throw Error("device " + d.label() + " refused to split into " + std::to_string(n) + " sub-devices (" +
                    clStatusName(e.err()) + ")");
    }
    std::vector<DeviceInfo> out;
    for (unsigned k = 0; k < n && k < subs.size(); ++k) {
        DeviceInfo s = d;
        s.device = subs[k];
        s.computeUnits = per;
        out.push_back(s);
    }
    return out;
}

// BatchPhase's names in reports, in its order.
constexpr const char* kPhaseNames[kBatchPhases] = {"read", "host", "device", "write", "locks", "builds"};

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// PORTACL_BATCH_FAULT=M:K: member M (0-based) fails when it is handed its K-th item (1-based);
// M:K:die ends the whole process there instead (a rank that dies), for the tests of both paths.
bool injectedFault(int& member, std::size_t& item, bool& die) {
    const char* env = std::getenv("PORTACL_BATCH_FAULT");
    if (!env || !*env) return false;
    unsigned m = 0;
    unsigned long k = 0;
    char how[8] = {0};
    const int got = std::sscanf(env, "%u:%lu:%7s", &m, &k, how);
    if (got < 2 || k == 0) return false;
    member = static_cast<int>(m);
    item = k;
    die = got == 3 && std::string(how) == "die";
    return true;
}

// PORTACL_BATCH_SLOW=M:S: member M (0-based) waits S seconds before each call, a slow device for the
// tests of straggler copies (the wait ends when another member's copy has finished the items).
double injectedSlowness(int& member) {
    const char* env = std::getenv("PORTACL_BATCH_SLOW");
    if (!env || !*env) return 0;
    unsigned m = 0;
    double s = 0;
    if (std::sscanf(env, "%u:%lf", &m, &s) != 2 || s <= 0) return 0;
    member = static_cast<int>(m);
    return s;
}

}  // namespace

std::vector<DeviceInfo> selectDeviceSet(const std::string& specIn) {
    std::string spec = trim(specIn);
    if (spec.empty()) {
        const char* env = std::getenv("PORTACL_DEVICE");
        spec = env && *env ? trim(env) : "auto";
    }
    std::vector<DeviceInfo> out;
    std::stringstream parts(spec);
    std::string part;
    while (std::getline(parts, part, ',')) {
        part = trim(part);
        if (part.empty()) continue;
        std::string base;
        char op = 0;
        unsigned n = 1;
        splitMultiplier(part, base, op, n);
        for (const DeviceInfo& d : selectDevices(base)) {
            if (op == '/') {
                for (auto& s : splitDevice(d, n)) out.push_back(s);
            } else {
                for (unsigned k = 0; k < n; ++k) out.push_back(d);
            }
        }
    }
    if (out.empty()) return selectDevices(spec);  // its sentence: what exists
    return out;
}

std::vector<DeviceInfo> withMembersPerGpu(const std::vector<DeviceInfo>& devices, const std::string& spec, unsigned perGpu) {
    const bool multiplied = spec.find_first_of("*/") != std::string::npos;
    std::vector<DeviceInfo> out;
    for (const DeviceInfo& d : devices)
        for (unsigned k = 0; k < (d.isGpu && !multiplied ? std::max(1u, perGpu) : 1u); ++k) out.push_back(d);
    return out;
}

std::vector<DeviceInfo> withCoresForGpuMembers(const std::vector<DeviceInfo>& members, std::string& note, unsigned gpuCores) {
    note.clear();
    const auto gpuMembers = static_cast<unsigned>(std::count_if(members.begin(), members.end(), [](const DeviceInfo& d) { return d.isGpu; }));
    if (gpuMembers == 0) return members;
    const unsigned reserved = std::max(gpuMembers, gpuCores);
    std::vector<DeviceInfo> out;
    for (const DeviceInfo& d : members) {
        cl_device_id parent = nullptr;
        try {
            parent = d.device.getInfo<CL_DEVICE_PARENT_DEVICE>()();
        } catch (const cl::Error&) {
        }
        // A GPU (oclgrind reports every type at once: a GPU member, not a CPU to narrow), or a CPU
        // device the --device spec split itself (SPEC/N): as given.
        if (!d.isCpu || d.isGpu || parent != nullptr) {
            out.push_back(d);
            continue;
        }
        const std::string what = d.label() + " (" + std::to_string(d.computeUnits) + " cores)";
        if (d.computeUnits <= reserved) {
            note += (note.empty() ? "" : "; ") + what + " is left out: the " + std::to_string(gpuMembers) +
                    " GPU members' host threads need every core";
            continue;
        }
        const unsigned units = d.computeUnits - reserved;
        const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_BY_COUNTS, static_cast<cl_device_partition_property>(units),
                                                      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
        std::vector<cl::Device> subs;
        try {
            cl::Device root = d.device;
            root.createSubDevices(props, &subs);
        } catch (const cl::Error&) {
            subs.clear();
        }
        if (subs.empty()) {
            note += (note.empty() ? "" : "; ") + what + " runs on every core: it cannot be narrowed to " + std::to_string(units) +
                    " (no sub-devices by counts), so it shares them with the GPU members' host threads";
            out.push_back(d);
            continue;
        }
        DeviceInfo narrowed = d;
        narrowed.device = subs.front();
        narrowed.computeUnits = units;
        note += (note.empty() ? "" : "; ") + what + " runs on " + std::to_string(units) + " of them, the rest left to the GPU members' host threads";
        out.push_back(narrowed);
    }
    return out;
}

unsigned membersPerGpuFromCores(unsigned cores, unsigned gpus, std::size_t items) {
    gpus = std::max(1u, gpus);
    const std::size_t perCores = (std::max(1u, cores) + gpus - 1) / gpus;
    const std::size_t perItems = items / (kMinItemsPerCoreMember * gpus);
    return static_cast<unsigned>(std::clamp<std::size_t>(std::min(perCores, perItems), 1, kMaxMembersPerGpu));
}

std::string BatchReport::describe() const {
    std::ostringstream os;
    char line[256];
    std::snprintf(line, sizeof line, "%zu items in %.3f s (%.2f items/s) on %zu devices", items, seconds,
                  seconds > 0 ? items / seconds : 0.0, devices.size());
    os << line;
    if (retried) os << ", " << retried << " items retried";
    if (copiedItems) os << ", " << copiedItems << " kept from a faster device's copy";
    os << "\n";
    // Per item handed out: where the host threads spent the time.
    const auto perItem = [&](const PhaseTimes& t, std::size_t n, double waiting, const char* waitingWhat) {
        const double per = 1e3 / static_cast<double>(std::max<std::size_t>(1, n));
        os << "    per item (ms):";
        for (std::size_t p = 0; p < kBatchPhases; ++p) {
            std::snprintf(line, sizeof line, " %s %.2f", kPhaseNames[p], t.seconds[p] * per);
            os << line;
        }
        std::snprintf(line, sizeof line, "; %.3f s %s\n", waiting, waitingWhat);
        os << line;
    };
    // A set of more than 8 members (a Voronoi batch takes a member per core) is told a device at a
    // time: its members that ran without incident in one line, their items and phases summed.
    const bool grouped = devices.size() > 8;
    const auto plain = [](const DeviceShare& d) { return !d.failed && !d.leftIdle && !d.copies && !d.stopped; };
    const auto deviceOf = [](const std::string& label) {
        const auto hash = label.rfind(" #");
        return hash == std::string::npos ? label : label.substr(0, hash);
    };
    std::vector<char> told(devices.size(), 0);
    for (std::size_t i = 0; grouped && i < devices.size(); ++i) {
        if (told[i] || !plain(devices[i])) continue;
        const std::string name = deviceOf(devices[i].device);
        std::size_t members = 0, total = 0, least = SIZE_MAX, most = 0;
        double busy = 0, waiting = 0;
        PhaseTimes t;
        for (std::size_t j = i; j < devices.size(); ++j) {
            const DeviceShare& d = devices[j];
            if (told[j] || !plain(d) || deviceOf(d.device) != name) continue;
            told[j] = 1;
            ++members, total += d.items, least = std::min(least, d.items), most = std::max(most, d.items);
            busy += d.busySeconds, waiting += d.waitSeconds;
            t += d.phases;
        }
        std::snprintf(line, sizeof line, "  %s: %zu members, %zu items (%zu to %zu a member), %.3f s busy a member", name.c_str(),
                      members, total, least, most, busy / static_cast<double>(members));
        os << line << "\n";
        if (busy > 0) perItem(t, total, waiting / static_cast<double>(members), "a member waiting for items or idle");
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (told[i]) continue;
        const DeviceShare& d = devices[i];
        std::snprintf(line, sizeof line, "  %s: %zu items, %.3f s busy", d.device.c_str(), d.items, d.busySeconds);
        os << line;
        if (d.failed) os << ", failed (" << d.failure << ")";
        if (d.leftIdle) os << ", left idle near the end (the others finished the rest sooner)";
        if (d.copies) os << ", copied a slower device's items " << d.copies << (d.copies == 1 ? " time" : " times");
        if (d.stopped) os << ", stopped " << d.stopped << (d.stopped == 1 ? " time" : " times") << " (a faster copy finished first)";
        os << "\n";
        if (d.busySeconds > 0) perItem(d.phases, d.items, d.waitSeconds, "waiting for items or idle");
    }
    const PhaseTimes all = phases();
    const double busy = all.total();
    if (busy > 0) {
        const double device = all[BatchPhase::Device] / busy;
        os << "  the members' busy time:";
        for (std::size_t p = 0; p < kBatchPhases; ++p) {
            std::snprintf(line, sizeof line, "%s %s %.0f %%", p ? "," : "", kPhaseNames[p], 100 * all.seconds[p] / busy);
            os << line;
        }
        // The devices, waited for less than half the time, are not what holds the batch back.
        if (device < 0.5) os << "; the host, not the devices, limits this batch";
        os << "\n";
    }
    return os.str();
}

PhaseTimes BatchReport::phases() const {
    PhaseTimes all;
    for (const auto& d : devices) all += d.phases;
    return all;
}

DeviceSet::DeviceSet(const std::vector<DeviceInfo>& devices, ContextOptions options) {
    std::vector<std::string> failures;
    // The members on one GPU (a device named twice, SPEC*N, a batch's members per GPU) share its
    // OpenCL context, each with its own queue: their kernels can run at once, and the driver keeps
    // one context (NVIDIA: one CUDA context, its memory and its start paid once, no switches between
    // members' contexts; each program built once). A CPU device's members keep a context each, as
    // they did before GPUs shared theirs. Sub-devices are devices of their own.
    // PORTACL_MEMBER_CONTEXTS=shared shares on every device, =separate on none.
    const char* modeEnv = std::getenv("PORTACL_MEMBER_CONTEXTS");
    const std::string mode = modeEnv ? modeEnv : "";
    if (!mode.empty() && mode != "shared" && mode != "separate")
        throw Error("PORTACL_MEMBER_CONTEXTS must be shared or separate, not '" + mode + "'");
    const auto siblingFor = [&](const DeviceInfo& d) -> Context* {
        const bool share = mode == "shared" || (mode.empty() && d.isGpu);
        if (share)
            for (const auto& c : contexts_)
                if (c->device().device() == d.device()) return c.get();
        return nullptr;
    };
    for (std::size_t i = 0; i < devices.size(); ++i) {
        try {
            Context* sibling = siblingFor(devices[i]);
            contexts_.push_back(sibling ? std::make_unique<Context>(devices[i], options, *sibling)
                                        : std::make_unique<Context>(devices[i], options));
        } catch (const std::exception& e) {
            failures.push_back(devices[i].label() + ": " + e.what());
            log(LogLevel::Warning, "device " + devices[i].label() + " is left out of the set: " + e.what());
            continue;
        }
        // "#k" for the k-th member on one device (a device listed twice, or its sub-devices).
        std::size_t same = 0, before = 0;
        for (std::size_t j = 0; j < devices.size(); ++j)
            if (devices[j].platformIndex == devices[i].platformIndex && devices[j].deviceIndex == devices[i].deviceIndex) {
                ++same;
                if (j < i) ++before;
            }
        const DeviceInfo& d = devices[i];
        const std::string label = d.isPocl() ? std::to_string(d.platformIndex) + ":" + std::to_string(d.deviceIndex) + " " + d.shortName() : d.label();
        labels_.push_back(label + (same > 1 ? " #" + std::to_string(before + 1) : std::string()));
    }
    failures_.assign(contexts_.size(), "");
    if (contexts_.empty()) {
        std::string why;
        for (const auto& f : failures) why += (why.empty() ? "" : "; ") + f;
        throw Error(devices.empty() ? "the device set is empty" : "no device of the set could be opened (" + why + ")");
    }
}

DeviceSet::~DeviceSet() = default;

void DeviceSet::requirePrecision(Precision p, bool mixedOffered) const {
    if (p != Precision::Double) return;
    std::string without;
    for (std::size_t i = 0; i < contexts_.size(); ++i)
        if (!contexts_[i]->device().fp64) without += (without.empty() ? "" : ", ") + labels_[i];
    if (without.empty()) return;
    throw Error("the device set's " + without + (without.find(", ") != std::string::npos ? " have" : " has") +
                " no fp64 support for a double run; leave " + (without.find(", ") != std::string::npos ? "them" : "it") +
                " out of --device" + (mixedOffered ? ", use --precision mixed," : "") + " or add --skip-no-fp64 to run on the rest");
}

std::string DeviceSet::dropMembersWithout(Precision p) {
    if (p != Precision::Double) return "";
    std::string dropped;
    std::vector<std::unique_ptr<Context>> keep;
    std::vector<std::string> keepLabels, keepFailures;
    for (std::size_t i = 0; i < contexts_.size(); ++i) {
        if (contexts_[i]->device().fp64) {
            keep.push_back(std::move(contexts_[i]));
            keepLabels.push_back(labels_[i]);
            keepFailures.push_back(failures_[i]);
        } else {
            dropped += (dropped.empty() ? "" : ", ") + labels_[i];
        }
    }
    if (keep.empty())  // nothing was moved: the set stays as it was
        throw Error("no device of the set has fp64 support for a double run (" + dropped + ")");
    contexts_ = std::move(keep);
    labels_ = std::move(keepLabels);
    failures_ = std::move(keepFailures);
    return dropped;
}

std::string DeviceSet::failedSentence() const {
    std::string why;
    for (std::size_t m = 0; m < contexts_.size(); ++m)
        if (!failures_[m].empty()) why += (why.empty() ? "" : "; ") + labels_[m] + ": " + failures_[m];
    return "every device of the set failed (" + why + ")";
}

std::size_t DeviceSet::working() const {
    return static_cast<std::size_t>(std::count(failures_.begin(), failures_.end(), std::string()));
}

BatchReport DeviceSet::run(std::size_t n, const RangeWork& work, const BatchOptions& options) {
    BatchOptions o = options;
    o.copyStragglers = false;  // the work writes its results itself: a copy could not be discarded
    return run(n, ClaimingWork([&](Context& ctx, std::size_t b, std::size_t e, BatchCall&) { work(ctx, b, e); }), o);
}

BatchReport DeviceSet::run(std::size_t n, const ClaimingWork& work, const BatchOptions& options) {
    using Clock = std::chrono::steady_clock;
    const std::size_t members = contexts_.size();
    BatchReport report;
    report.items = n;
    report.itemDevice.assign(n, -1);
    report.devices.resize(members);
    for (std::size_t m = 0; m < members; ++m) report.devices[m].device = labels_[m];
    if (n == 0) return report;
    if (working() == 0) {
        std::string why;
        for (std::size_t m = 0; m < members; ++m) why += (why.empty() ? "" : "; ") + labels_[m] + ": " + failures_[m];
        throw Error("every device of the set failed earlier (" + why + ")");
    }
    const auto t0 = Clock::now();
    auto itemName = [&](std::size_t i) {
        return options.itemName ? options.itemName(i) : "item " + std::to_string(i + 1) + " of " + std::to_string(n);
    };
    int faultMember = -1;
    std::size_t faultAt = 0;
    bool faultDies = false;
    const bool fault = injectedFault(faultMember, faultAt, faultDies);
    int slowMember = -1;
    const double slowSeconds = injectedSlowness(slowMember);

    // A range of items handed out, with the calls computing it (the first, and at most one copy).
    struct Task {
        std::size_t b = 0, e = 0;
        int running = 0;
        bool copied = false;
        std::size_t owner = 0;  // the member of the first call
        Clock::time_point start;
    };
    // The shared queue: the next untaken item, and ranges handed back by members that failed.
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t next = 0, inFlight = 0, started = 0, completed = 0;
    bool abandoned = false;  // options.stopWhen said so
    Progress* batchProgress = nullptr;
    std::deque<std::pair<std::size_t, std::size_t>> retry;
    std::list<Task> tasks;                     // the ranges being computed
    std::vector<Task*> current(members, nullptr);
    std::vector<char> done(n, 0);              // claimed: its result is written
    std::vector<bool> alive(members);
    for (std::size_t m = 0; m < members; ++m) {
        alive[m] = failures_[m].empty();
        report.devices[m].failed = !alive[m];
        report.devices[m].failure = failures_[m];
    }
    std::vector<std::size_t> handed(members, 0);   // items handed to each member (fault injection)
    std::vector<double> paceSeconds(members, 0);   // seconds per item, first call left out once there are more
    std::vector<std::size_t> paceItems(members, 0);
    std::vector<double> firstSeconds(members, 0);
    std::vector<std::size_t> firstItems(members, 0);
    std::vector<std::string> failures;  // "label at item: what", in the order they happened
    std::string lastFailedItem;

    auto pace = [&](std::size_t m) -> double {  // 0: not measured yet
        if (paceItems[m]) return paceSeconds[m] / paceItems[m];
        if (firstItems[m]) return firstSeconds[m] / firstItems[m];
        return 0;
    };
    // Whether member m should stay idle: it is clearly slower than the fastest other live member, and
    // the others, at their pace, finish every item left before m would finish one.
    auto shouldIdle = [&](std::size_t m) {
        if (!options.idleSlowDevices) return false;
        const double tm = pace(m);
        if (tm <= 0) return false;
        double rate = 0, fastest = 0;
        for (std::size_t o = 0; o < members; ++o) {
            if (o == m || !alive[o]) continue;
            const double to = pace(o);
            if (to <= 0) return false;  // not every pace is known yet
            rate += 1 / to;
            fastest = fastest == 0 ? to : std::min(fastest, to);
        }
        if (rate == 0 || tm < 1.5 * fastest) return false;
        const double left = static_cast<double>(n - next);
        return left / rate < tm;
    };
    auto taskDone = [&](const Task& t) {
        for (std::size_t i = t.b; i < t.e; ++i)
            if (!done[i]) return false;
        return true;
    };
    // The range member m (idle, nothing left to hand out) should copy: the one whose holder would,
    // at its pace, finish last, among those m would finish sooner. `recheck` gets the time at which
    // a range not worth copying now would become so.
    auto straggler = [&](std::size_t m, Clock::time_point& recheck) -> Task* {
        if (!options.copyStragglers) return nullptr;
        const auto now = Clock::now();
        Task* best = nullptr;
        double bestEnd = 0;
        for (Task& t : tasks) {
            if (t.running != 1 || t.copied || t.owner == m || taskDone(t)) continue;
            const double items = static_cast<double>(t.e - t.b);
            const double owner = pace(t.owner), mine = pace(m);
            // When the holder would finish, in seconds from now (unknown pace: never, as far as we know).
            const double ownerEnd = owner > 0 ? owner * items - std::chrono::duration<double>(now - t.start).count() : 1e300;
            const double mineEnd = mine > 0 ? mine * items : 0;
            if (mineEnd < ownerEnd) {
                if (!best || ownerEnd > bestEnd) {
                    best = &t;
                    bestEnd = ownerEnd;
                }
            } else if (mine > 0) {
                // Worth a copy once the holder has overrun its pace by what m needs.
                const auto when = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(mineEnd - ownerEnd + 1e-3));
                recheck = std::min(recheck, when);
            }
        }
        return best;
    };
    // Item i is member m's, unless another call has it already (with the lock held).
    auto keep = [&](std::size_t m, bool copy, std::size_t i) {
        if (done[i]) return false;
        done[i] = 1;
        report.itemDevice[i] = static_cast<int>(m);
        ++report.devices[m].items;
        if (copy) ++report.copiedItems;
        ++completed;
        if (batchProgress) batchProgress->update(completed);
        return true;
    };
    // Item i's result is kept from member m's call on task t, when no other call has claimed it.
    auto claim = [&](std::size_t m, Task* t, bool copy, std::size_t i) {
        std::lock_guard<std::mutex> lock(mutex);
        if (i < t->b || i >= t->e) throw Error("a batch's work claimed item " + std::to_string(i) + " outside its range");
        if (!keep(m, copy, i)) return false;
        if (t->running > 1 && taskDone(*t))
            for (std::size_t o = 0; o < members; ++o)
                if (o != m && current[o] == t) contexts_[o]->requestStop();
        changed.notify_all();
        return true;
    };

    auto memberLoop = [&](std::size_t m) {
        Context& ctx = *contexts_[m];
        std::unique_lock<std::mutex> lock(mutex);
        if (!alive[m]) return;  // retired by an earlier batch
        // Every member starts together, so that each takes its first items however late its thread ran.
        if (++started == working()) changed.notify_all();
        changed.wait(lock, [&] { return started >= working(); });
        bool first = true;
        for (;;) {
            if ((completed == n && retry.empty()) || abandoned) {
                changed.notify_all();
                return;
            }
            Task* task = nullptr;
            bool retried = false, copy = false;
            auto recheck = Clock::time_point::max();
            if (!retry.empty()) {
                tasks.push_back({retry.front().first, retry.front().second, 0, false, m, Clock::now()});
                retry.pop_front();
                task = &tasks.back();
                retried = true;
            } else if (next < n && !shouldIdle(m)) {
                const std::size_t left = n - next;
                // Alone, a member takes what it may at once: smaller chunks would balance nothing and
                // cost each call's fixed part again. Beside others, its first call takes the least
                // chunk: that call also builds its kernels (seconds on a CPU device's compiler) and
                // measures its pace, and items it holds meanwhile wait for it or for a copy.
                const std::size_t share = working() == 1 ? left : first ? 0 : left / (4 * working());
                const std::size_t most = std::max<std::size_t>(1, options.maxChunk);
                const std::size_t chunk = std::clamp<std::size_t>(share, std::clamp<std::size_t>(options.minChunk, 1, most), most);
                tasks.push_back({next, next + std::min(chunk, left), 0, false, m, Clock::now()});
                task = &tasks.back();
                next = task->e;
            } else if (next >= n && (task = straggler(m, recheck))) {
                task->copied = copy = true;
            } else if (inFlight > 0) {
                // Another member may yet fail and hand its items back, or overrun its pace.
                if (next < n) report.devices[m].leftIdle = true;
                if (recheck == Clock::time_point::max()) changed.wait(lock);
                else changed.wait_until(lock, recheck);
                continue;
            } else if (next < n) {
                // Idle by the rule, but nobody else is working: take one after all.
                tasks.push_back({next, next + 1, 0, false, m, Clock::now()});
                task = &tasks.back();
                ++next;
            } else {
                changed.notify_all();
                return;
            }
            const std::size_t b = task->b, e = task->e;
            if (retried) report.retried += e - b;
            if (copy) ++report.devices[m].copies;
            report.devices[m].leftIdle = false;
            ++inFlight;
            ++task->running;
            current[m] = task;
            const std::size_t before = handed[m];
            handed[m] += e - b;
            lock.unlock();

            BatchCall call;
            call.copy_ = copy;
            call.claim_ = [&, m, task, copy](std::size_t i) {
                PhaseScope locking(BatchPhase::Lock);
                return claim(m, task, copy, i);
            };
            call.claimed_ = [&](std::size_t i) {
                PhaseScope locking(BatchPhase::Lock);
                std::lock_guard<std::mutex> guard(mutex);
                return i < n && done[i] != 0;
            };
            const auto w0 = Clock::now();
            std::string failure;
            bool stopped = false;
            std::size_t failedAt = b;
            try {
                if (fault && static_cast<int>(m) == faultMember && before < faultAt && faultAt <= before + (e - b)) {
                    failedAt = b + (faultAt - before - 1);
                    if (faultDies) std::_Exit(70);
                    throw Error("an injected fault (PORTACL_BATCH_FAULT)");
                }
                if (static_cast<int>(m) == slowMember) {
                    // The slow device of the tests: its wait ends when its items are copied and kept.
                    const auto until = w0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(slowSeconds));
                    while (Clock::now() < until && !ctx.stopRequested()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    if (ctx.stopRequested()) throw WorkAbandoned("stopped");
                }
                PhaseAccount account(report.devices[m].phases);
                work(ctx, b, e, call);
            } catch (const WorkAbandoned&) {
                stopped = true;
            } catch (const std::exception& ex) {
                failure = ex.what();
                if (failure.empty()) failure = "an unnamed failure";
            } catch (...) {
                failure = "an unknown exception";
            }
            const double s = secondsSince(w0);

            lock.lock();
            --inFlight;
            --task->running;
            current[m] = nullptr;
            ctx.requestStop(false);
            report.devices[m].busySeconds += s;
            if (stopped && !taskDone(*task)) {
                // Stopped without a copy to finish its items (a stop meant for an earlier call): they
                // are computed again.
                if (task->running == 0) retry.emplace_back(b, e);
            } else if (stopped) {
                ++report.devices[m].stopped;
            } else if (!failure.empty()) {
                alive[m] = false;
                failures_[m] = failure;
                report.devices[m].failed = true;
                report.devices[m].failure = failure;
                lastFailedItem = itemName(failedAt);
                failures.push_back(labels_[m] + " at " + lastFailedItem + ": " + failure);
                // Its items go back to the queue, unless the other copy still computes them.
                if (task->running == 0 && !taskDone(*task)) retry.emplace_back(b, e);
                log(LogLevel::Warning, "device " + labels_[m] + " failed at " + lastFailedItem + " (" + failure +
                                           "); its items go to the other devices");
            } else {
                // The items the call returned without claiming are its own, unless another copy has them.
                for (std::size_t i = b; i < e; ++i) keep(m, copy, i);
                // Its pace; a call that was stopped says only that the member is slower than this.
                if (first) {
                    firstSeconds[m] += s;
                    firstItems[m] += e - b;
                    first = false;
                } else {
                    paceSeconds[m] += s;
                    paceItems[m] += e - b;
                }
            }
            if (stopped) {
                // What it spent is a lower bound on its pace: enough for the idle rule.
                (first ? firstSeconds[m] : paceSeconds[m]) += s;
                (first ? firstItems[m] : paceItems[m]) += e - b;
                first = false;
            }
            if (task->running == 0)
                tasks.remove_if([&](const Task& t) { return &t == task; });
            changed.notify_all();
            if (!failure.empty()) return;
        }
    };

    // A member's time outside its work calls: the queue, the start together, idle at the end.
    auto member = [&](std::size_t m) {
        memberLoop(m);
        std::lock_guard<std::mutex> lock(mutex);
        report.devices[m].waitSeconds = std::max(0.0, secondsSince(t0) - report.devices[m].busySeconds);
    };

    const bool polled = static_cast<bool>(options.stopWhen);
    if (working() == 1 && !polled) {
        for (std::size_t m = 0; m < members; ++m)
            if (alive[m]) member(m);
    } else {
        // One line for the batch; the members' own progress (a workload's) stays quiet.
        std::optional<Progress> progress;
        if (working() > 1) progress.emplace("batch on " + std::to_string(working()) + " devices", n, "items");
        batchProgress = progress ? &*progress : nullptr;
        std::vector<std::thread> threads;
        threads.reserve(members);
        std::size_t ended = 0;
        for (std::size_t m = 0; m < members; ++m)
            threads.emplace_back([&, m] {
                muteProgressOnThisThread(true);
                member(m);
                std::lock_guard<std::mutex> lock(mutex);
                ++ended;
                changed.notify_all();
            });
        if (polled) {
            // The caller's poll, on this thread (an MPI rank's main thread asks whether rank 0 has
            // the batch's items from another rank already).
            std::unique_lock<std::mutex> lock(mutex);
            while (ended < members) {
                changed.wait_for(lock, std::chrono::milliseconds(5));
                if (abandoned || ended == members) continue;
                lock.unlock();
                const bool stop = options.stopWhen();
                lock.lock();
                if (stop) {
                    abandoned = true;
                    for (auto& c : contexts_) c->requestStop();
                    changed.notify_all();
                }
            }
        }
        for (auto& t : threads) t.join();
        batchProgress = nullptr;
        if (progress) progress->finish();
    }
    report.seconds = secondsSince(t0);
    if (abandoned) {
        for (auto& c : contexts_) c->requestStop(false);
        throw WorkAbandoned("the batch was stopped (BatchOptions::stopWhen)");
    }
    if (completed < n) {
        std::string why;
        for (const auto& f : failures) why += (why.empty() ? "" : "; ") + f;
        throw Error("the batch stopped at " + lastFailedItem + ": every device of the set failed (" + why + ")");
    }
    return report;
}

}  // namespace portacl
