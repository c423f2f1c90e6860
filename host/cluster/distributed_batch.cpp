#include "portacl/cluster/distributed_batch.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "portacl/runtime/progress.hpp"

#ifdef PORTACL_HAVE_MPI
#include <mpi.h>
#endif

namespace portacl::cluster {
namespace {

using Range = std::pair<std::size_t, std::size_t>;

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Items [offset + b, offset + e) of the batch as the chunk's items [b, e): results into out[b, e).
DeviceSet::ClaimingWork chunkWork(const ClaimingResults& work, std::size_t offset, std::string* out) {
    return [&work, offset, out](Context& ctx, std::size_t b, std::size_t e, BatchCall& call) {
        BatchCall global([&call, offset](std::size_t i) { return call.claim(i - offset); },
                         [&call, offset](std::size_t i) { return call.claimed(i - offset); }, call.isCopy());
        work(ctx, offset + b, offset + e, out + b, global);
    };
}

// Pure results are computed into the call's own scratch and kept when claimed.
ClaimingResults claimingResults(const RangeResults& work) {
    return [&work](Context& ctx, std::size_t b, std::size_t e, std::string* results, BatchCall& call) {
        std::vector<std::string> mine(e - b);
        work(ctx, b, e, mine.data());
        for (std::size_t i = b; i < e; ++i)
            if (call.claim(i)) results[i - b] = std::move(mine[i - b]);
    };
}

#ifdef PORTACL_HAVE_MPI
// Adds one chunk's report to the batch's.
void accumulate(BatchReport& into, const BatchReport& chunk) {
    if (into.devices.empty()) into.devices = chunk.devices;
    else
        for (std::size_t m = 0; m < chunk.devices.size() && m < into.devices.size(); ++m) {
            into.devices[m].items += chunk.devices[m].items;
            into.devices[m].busySeconds += chunk.devices[m].busySeconds;
            into.devices[m].failed = chunk.devices[m].failed;
            into.devices[m].failure = chunk.devices[m].failure;
            into.devices[m].leftIdle = into.devices[m].leftIdle || chunk.devices[m].leftIdle;
        }
    into.items += chunk.items;
    into.retried += chunk.retried;
}

// Items [b, e) on this rank's devices; throws when every device has failed.
std::vector<std::string> computeChunk(DeviceSet& devices, std::size_t n, Range c, const ClaimingResults& work,
                                      const BatchOptions& options, BatchReport& local) {
    std::vector<std::string> out(c.second - c.first);
    BatchOptions o = options;
    o.itemName = [&](std::size_t i) {
        return options.itemName ? options.itemName(c.first + i) : "item " + std::to_string(c.first + i + 1) + " of " + std::to_string(n);
    };
    const BatchReport r = devices.run(out.size(), chunkWork(work, c.first, out.data()), o);
    accumulate(local, r);
    return out;
}

enum Tag : int { kRequest = 101, kChunk = 102, kResult = 103, kFailed = 104 };

void sendRange(int to, int tag, Range c, const std::string& text = "") {
    std::string msg(2 * sizeof(std::uint64_t), '\0');
    const std::uint64_t v[2] = {c.first, c.second};
    std::memcpy(msg.data(), v, sizeof v);
    msg += text;
    MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

Range rangeOf(const std::string& msg) {
    std::uint64_t v[2] = {0, 0};
    if (msg.size() >= sizeof v) std::memcpy(v, msg.data(), sizeof v);
    return {static_cast<std::size_t>(v[0]), static_cast<std::size_t>(v[1])};
}

// Rank 0: hands out chunks, computes its own from the same queue on a thread of its own, and
// gathers every result. Returns the failure sentence, "" when every item has its result.
std::string serveBatch(const World& world, DeviceSet& devices, std::size_t n, const ClaimingResults& work, const BatchOptions& options,
                       std::vector<std::string>& results, DistributedReport& rep) {
    const int ranks = world.size();
    const std::size_t maxChunk = std::max<std::size_t>(1, options.maxChunk);
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t next = 0, received = 0;
    std::deque<Range> retry;
    std::map<int, Range> remote;  // the chunk each rank holds
    bool localBusy = false;
    std::string lastItem;
    // The next chunk for a rank of `devs` devices (guided: a share of what is left), with the lock held.
    auto take = [&](std::size_t devs) -> std::optional<Range> {
        if (!retry.empty()) {
            const Range c = retry.front();
            retry.pop_front();
            return c;
        }
        if (next >= n) return std::nullopt;
        const std::size_t left = n - next;
        const std::size_t chunk = std::clamp<std::size_t>(left / (3 * static_cast<std::size_t>(ranks)), std::min(devs, left),
                                                          std::max<std::size_t>(1, maxChunk * devs));
        const Range c{next, next + std::min(chunk, left)};
        next = c.second;
        return c;
    };

    Progress progress("batch over " + std::to_string(ranks) + " ranks", n, "items");
    std::thread local([&] {
        muteProgressOnThisThread(true);  // the job's line (below) speaks for rank 0's devices
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            changed.wait(lock, [&] { return !retry.empty() || next < n || remote.empty(); });
            const auto c = take(devices.size());
            if (!c) return;
            localBusy = true;
            lock.unlock();
            std::vector<std::string> out;
            std::string failure;
            try {
                out = computeChunk(devices, n, *c, work, options, rep.local);
            } catch (const std::exception& e) {
                failure = e.what();
            }
            lock.lock();
            localBusy = false;
            if (!failure.empty()) {
                retry.push_back(*c);
                rep.rankFailures[0] = failure;
                changed.notify_all();
                return;
            }
            for (std::size_t i = 0; i < out.size(); ++i) results[c->first + i] = std::move(out[i]);
            rep.rankItems[0] += out.size();
            received += out.size();
            changed.notify_all();
        }
    });

    // The ranks that asked while nothing was left to hand out but chunks were still in flight (a
    // failing rank hands its chunk back).
    std::map<int, std::size_t> waiting;
    int finished = 0;
    auto serve = [&](int rank, std::size_t devs) {
        std::unique_lock<std::mutex> lock(mutex);
        if (const auto c = take(devs)) {
            remote[rank] = *c;
            lock.unlock();
            sendRange(rank, kChunk, *c);
            return true;
        }
        if (localBusy || !remote.empty()) return false;  // wait: a chunk may come back
        lock.unlock();
        sendRange(rank, kChunk, {n, n});  // done
        ++finished;
        return true;
    };
    std::string msg;
    while (finished < ranks - 1) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            for (auto it = waiting.begin(); it != waiting.end();) it = serve(it->first, it->second) ? waiting.erase(it) : std::next(it);
            {
                std::lock_guard<std::mutex> lock(mutex);
                progress.update(received);
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        msg.assign(static_cast<std::size_t>(count), '\0');
        MPI_Recv(msg.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const int from = st.MPI_SOURCE;
        if (st.MPI_TAG == kRequest) {
            std::uint64_t devs = 1;
            if (msg.size() >= sizeof devs) std::memcpy(&devs, msg.data(), sizeof devs);
            {
                std::lock_guard<std::mutex> lock(mutex);
                remote.erase(from);  // its last chunk's results came before this request
                changed.notify_all();
            }
            if (!serve(from, static_cast<std::size_t>(devs))) waiting[from] = static_cast<std::size_t>(devs);
        } else if (st.MPI_TAG == kResult) {
            std::uint64_t item = 0;
            std::memcpy(&item, msg.data(), sizeof item);
            std::lock_guard<std::mutex> lock(mutex);
            if (item < n) {
                results[item] = msg.substr(sizeof item);
                ++rep.rankItems[static_cast<std::size_t>(from)];
                ++received;
            }
        } else if (st.MPI_TAG == kFailed) {
            std::lock_guard<std::mutex> lock(mutex);
            retry.push_back(rangeOf(msg));
            remote.erase(from);
            rep.rankFailures[static_cast<std::size_t>(from)] = msg.substr(2 * sizeof(std::uint64_t));
            ++finished;
            changed.notify_all();
        }
    }
    {
        std::lock_guard<std::mutex> lock(mutex);
        changed.notify_all();
    }
    local.join();
    progress.update(received);
    progress.finish();
    if (retry.empty()) return "";
    const Range lost = retry.front();
    std::string why;
    for (int r = 0; r < ranks; ++r)
        if (!rep.rankFailures[static_cast<std::size_t>(r)].empty())
            why += (why.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + ": " + rep.rankFailures[static_cast<std::size_t>(r)];
    const std::string item = options.itemName ? options.itemName(lost.first) : "item " + std::to_string(lost.first + 1) + " of " + std::to_string(n);
    return "the batch stopped at " + item + ": every rank's devices failed (" + why + ")";
}

// Ranks other than 0: ask for chunks until told there are none, send each item's result.
void workBatch(DeviceSet& devices, std::size_t n, const ClaimingResults& work, const BatchOptions& options, DistributedReport& rep) {
    const std::uint64_t devs = devices.size();
    std::string msg;
    for (;;) {
        MPI_Send(&devs, sizeof devs, MPI_BYTE, 0, kRequest, MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Probe(0, kChunk, MPI_COMM_WORLD, &st);
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        msg.assign(static_cast<std::size_t>(count), '\0');
        MPI_Recv(msg.data(), count, MPI_BYTE, 0, kChunk, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const Range c = rangeOf(msg);
        if (c.first >= c.second) return;
        std::vector<std::string> out;
        try {
            out = computeChunk(devices, n, c, work, options, rep.local);
        } catch (const std::exception& e) {
            sendRange(0, kFailed, c, e.what());
            return;
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::uint64_t item = c.first + i;
            std::string m(sizeof item, '\0');
            std::memcpy(m.data(), &item, sizeof item);
            m += out[i];
            MPI_Send(m.data(), static_cast<int>(m.size()), MPI_BYTE, 0, kResult, MPI_COMM_WORLD);
        }
        rep.rankItems[0] += out.size();  // this rank's own count, in its report
    }
}
#endif

}  // namespace

std::string DistributedReport::describe() const {
    std::ostringstream os;
    char line[160];
    std::size_t items = 0;
    for (auto k : rankItems) items += k;
    std::snprintf(line, sizeof line, "%zu items in %.3f s (%.2f items/s) on %zu ranks:", items, seconds, seconds > 0 ? items / seconds : 0.0,
                  rankItems.size());
    os << line;
    for (std::size_t r = 0; r < rankItems.size(); ++r) {
        os << (r ? ", " : " ") << "rank " << r << " " << rankItems[r];
        if (r < rankFailures.size() && !rankFailures[r].empty()) os << " (failed: " << rankFailures[r] << ")";
    }
    os << "\n";
    for (const auto& d : local.devices) {
        std::snprintf(line, sizeof line, "  this rank's %s: %zu items, %.3f s busy", d.device.c_str(), d.items, d.busySeconds);
        os << line << (d.failed ? ", failed (" + d.failure + ")" : std::string()) << "\n";
    }
    return os.str();
}

std::vector<std::string> runDistributedBatch(const World& world, DeviceSet& devices, std::size_t n, const RangeResults& work,
                                             const BatchOptions& options, DistributedReport* report) {
    return runDistributedBatch(world, devices, n, claimingResults(work), options, report);
}

std::vector<std::string> runDistributedBatch(const World& world, DeviceSet& devices, std::size_t n, const ClaimingResults& work,
                                             const BatchOptions& options, DistributedReport* report) {
    DistributedReport rep;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> results;
    if (!world.distributed()) {
        results.resize(n);
        rep.local = devices.run(n, chunkWork(work, 0, results.data()), options);
        rep.rankItems = {n};
        rep.rankFailures = {""};
        rep.seconds = secondsSince(t0);
        if (report) *report = std::move(rep);
        return results;
    }
#ifdef PORTACL_HAVE_MPI
    rep.rankItems.assign(world.isRoot() ? static_cast<std::size_t>(world.size()) : 1, 0);
    rep.rankFailures.assign(rep.rankItems.size(), "");
    std::string failure;
    if (world.isRoot()) {
        results.resize(n);
        failure = serveBatch(world, devices, n, work, options, results, rep);
    } else {
        workBatch(devices, n, work, options, rep);
    }
    failure = world.broadcast(failure);
    rep.seconds = secondsSince(t0);
    if (report) *report = std::move(rep);
    if (!failure.empty()) {
        if (world.isRoot()) throw Error(failure);
        throw ReportedByRoot(failure);
    }
    if (!world.isRoot()) results.clear();
    return results;
#else
    throw Error("this build has no MPI, so a world of several ranks cannot exist");
#endif
}

}  // namespace portacl::cluster
