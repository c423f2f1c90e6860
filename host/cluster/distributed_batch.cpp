#include "portacl/cluster/distributed_batch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
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
            into.devices[m].phases += chunk.devices[m].phases;
            into.devices[m].failed = chunk.devices[m].failed;
            into.devices[m].failure = chunk.devices[m].failure;
            into.devices[m].leftIdle = into.devices[m].leftIdle || chunk.devices[m].leftIdle;
        }
    into.items += chunk.items;
    into.retried += chunk.retried;
}

// Items [b, e) on this rank's devices; throws when every device has failed.
std::vector<std::string> computeChunk(DeviceSet& devices, std::size_t n, Range c, const ClaimingResults& work,
                                      const BatchOptions& options, BatchReport& local, std::function<bool()> stopWhen) {
    std::vector<std::string> out(c.second - c.first);
    BatchOptions o = options;
    o.stopWhen = std::move(stopWhen);
    o.itemName = [&](std::size_t i) {
        return options.itemName ? options.itemName(c.first + i) : "item " + std::to_string(c.first + i + 1) + " of " + std::to_string(n);
    };
    if (options.chunkStarting) options.chunkStarting(c.first, c.second);
    BatchReport r;
    try {
        r = devices.run(out.size(), chunkWork(work, c.first, out.data()), o);
    } catch (...) {
        if (options.chunkDone) options.chunkDone(c.first, c.second);
        throw;
    }
    if (options.chunkDone) options.chunkDone(c.first, c.second);
    accumulate(local, r);
    return out;
}

enum Tag : int { kRequest = 101, kChunk = 102, kResult = 103, kFailed = 104, kStop = 105 };

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

// Receives the message `st` announced.
std::string receive(const MPI_Status& st) {
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    std::string msg(static_cast<std::size_t>(count), '\0');
    MPI_Recv(msg.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return msg;
}

// Rank 0: hands out chunks, computes its own from the same queue on a thread of its own, and
// gathers every result. When nothing is left to hand out, a rank that asks (or rank 0's own thread)
// gets a copy of the chunk another rank has held longest; the first result of each item is kept,
// and once every item of a chunk is in, the rank still computing it is told to stop. Returns the
// failure sentence, "" when every item has its result.
std::string serveBatch(const World& world, DeviceSet& devices, std::size_t n, const ClaimingResults& work, const BatchOptions& options,
                       std::vector<std::string>& results, DistributedReport& rep, const ResultSink& sink) {
    using Clock = std::chrono::steady_clock;
    const int ranks = world.size();
    const std::size_t maxChunk = std::max<std::size_t>(1, options.rankChunk ? options.rankChunk : options.maxChunk);
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t next = 0, received = 0;
    std::vector<char> have(n, 0);
    std::deque<Range> retry;
    struct Holding {
        Range chunk;
        Clock::time_point since;
    };
    std::map<int, Holding> held;                 // the chunk each rank computes (0: rank 0's thread)
    std::set<Range> copied;                      // chunks handed out a second time
    std::vector<std::pair<int, Range>> stops;    // stop messages for the main thread to send
    std::atomic<bool> localStop{false};
    auto complete = [&](Range c) {
        for (std::size_t i = c.first; i < c.second; ++i)
            if (!have[i]) return false;
        return true;
    };
    auto heldByOther = [&](int rank, Range c) {
        for (const auto& [r, h] : held)
            if (r != rank && h.chunk == c) return true;
        return false;
    };
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
    // Nothing left to hand out: a copy of the unfinished chunk another rank has held longest.
    auto straggler = [&](int rank) -> std::optional<Range> {
        if (!options.copyStragglers) return std::nullopt;
        const Holding* best = nullptr;
        for (const auto& [r, h] : held)
            if (r != rank && !copied.count(h.chunk) && !complete(h.chunk) && (!best || h.since < best->since)) best = &h;
        if (!best) return std::nullopt;
        copied.insert(best->chunk);
        return best->chunk;
    };
    auto hand = [&](int rank, std::size_t devs) {
        auto c = take(devs);
        if (!c && received < n) c = straggler(rank);
        if (c) held[rank] = {*c, Clock::now()};
        return c;
    };
    // Item `item`'s result from rank `from`: the first to come is kept (true: the caller hands it to
    // the sink, after the lock). A chunk it completes is stopped where another rank still computes it.
    auto store = [&](int from, std::size_t item, std::string&& bytes) {
        if (item >= n || have[item]) return false;
        have[item] = 1;
        if (!sink) results[item] = std::move(bytes);
        ++rep.rankItems[static_cast<std::size_t>(from)];
        ++received;
        for (const auto& [r, h] : held)
            if (r != from && h.chunk.first <= item && item < h.chunk.second && complete(h.chunk)) {
                if (r == 0) localStop = true;
                else stops.emplace_back(r, h.chunk);
            }
        return true;
    };
    // A chunk given back by a rank that failed: computed again unless another rank has it in hand.
    auto giveBack = [&](int rank, Range c) {
        if (!complete(c) && !heldByOther(rank, c)) {
            copied.erase(c);
            retry.push_back(c);
        }
    };

    Progress progress("batch over " + std::to_string(ranks) + " ranks", n, "items");
    std::thread local([&] {
        muteProgressOnThisThread(true);  // the job's line (below) speaks for rank 0's devices
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            const auto c = hand(0, devices.size());
            if (!c) {
                if (received == n || held.empty()) return;  // done, or nothing can come back
                changed.wait(lock);
                continue;
            }
            localStop = false;
            lock.unlock();
            std::vector<std::string> out;
            std::string failure;
            bool stopped = false;
            try {
                out = computeChunk(devices, n, *c, work, options, rep.local, [&] { return localStop.load(); });
            } catch (const WorkAbandoned&) {
                stopped = true;
                if (devices.working() == 0) failure = devices.failedSentence();  // it failed before the stop
            } catch (const std::exception& e) {
                failure = e.what();
            }
            lock.lock();
            held.erase(0);
            if (!failure.empty()) {
                giveBack(0, *c);
                rep.rankFailures[0] = failure;
                changed.notify_all();
                return;
            }
            std::vector<std::size_t> kept;
            if (!stopped)
                for (std::size_t i = 0; i < out.size(); ++i)
                    if (store(0, c->first + i, std::move(out[i])) && sink) kept.push_back(i);
            changed.notify_all();
            if (!kept.empty()) {
                lock.unlock();
                for (std::size_t i : kept) sink(c->first + i, std::move(out[i]));
                lock.lock();
            }
        }
    });

    // The ranks that asked while nothing was left to hand out but chunks were still in flight (a
    // failing rank hands its chunk back; a slow one's chunk becomes worth a copy).
    std::map<int, std::size_t> waiting;
    int finished = 0;
    auto serve = [&](int rank, std::size_t devs) {
        std::unique_lock<std::mutex> lock(mutex);
        if (const auto c = hand(rank, devs)) {
            lock.unlock();
            sendRange(rank, kChunk, *c);
            return true;
        }
        if (received < n && !held.empty()) return false;  // wait: a chunk may come back
        lock.unlock();
        sendRange(rank, kChunk, {n, n});  // done
        ++finished;
        return true;
    };
    auto sendStops = [&] {
        std::vector<std::pair<int, Range>> now;
        {
            std::lock_guard<std::mutex> lock(mutex);
            now.swap(stops);
        }
        for (const auto& [r, c] : now) sendRange(r, kStop, c);
    };
    while (finished < ranks - 1) {
        sendStops();
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
        const std::string msg = receive(st);
        const int from = st.MPI_SOURCE;
        if (st.MPI_TAG == kRequest) {
            std::uint64_t devs = 1;
            if (msg.size() >= sizeof devs) std::memcpy(&devs, msg.data(), sizeof devs);
            {
                std::lock_guard<std::mutex> lock(mutex);
                held.erase(from);  // its last chunk's results (or its stop) came before this request
                changed.notify_all();
            }
            if (!serve(from, static_cast<std::size_t>(devs))) waiting[from] = static_cast<std::size_t>(devs);
        } else if (st.MPI_TAG == kResult) {
            std::uint64_t item = 0;
            std::memcpy(&item, msg.data(), sizeof item);
            std::string bytes = msg.substr(sizeof item);
            bool kept = false;
            {
                std::lock_guard<std::mutex> lock(mutex);
                kept = store(from, static_cast<std::size_t>(item), std::move(bytes));
                changed.notify_all();
            }
            if (kept && sink) sink(static_cast<std::size_t>(item), std::move(bytes));
        } else if (st.MPI_TAG == kFailed) {
            std::lock_guard<std::mutex> lock(mutex);
            held.erase(from);
            giveBack(from, rangeOf(msg));
            rep.rankFailures[static_cast<std::size_t>(from)] = msg.substr(2 * sizeof(std::uint64_t));
            ++finished;
            changed.notify_all();
        }
    }
    {
        // Rank 0's thread ends its chunk (stopped when every item is in: a copy it no longer needs).
        std::lock_guard<std::mutex> lock(mutex);
        if (received == n) localStop = true;
        changed.notify_all();
    }
    local.join();
    progress.update(received);
    progress.finish();
    if (received == n) return "";
    std::size_t lost = 0;
    while (lost < n && have[lost]) ++lost;
    std::string why;
    for (int r = 0; r < ranks; ++r)
        if (!rep.rankFailures[static_cast<std::size_t>(r)].empty())
            why += (why.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + ": " + rep.rankFailures[static_cast<std::size_t>(r)];
    const std::string item = options.itemName ? options.itemName(lost) : "item " + std::to_string(lost + 1) + " of " + std::to_string(n);
    return "the batch stopped at " + item + ": every rank's devices failed (" + why + ")";
}

// Ranks other than 0: ask for chunks until told there are none, send each item's result. A chunk
// rank 0 has from another rank already (a copy finished first) is stopped when rank 0 says so.
void workBatch(DeviceSet& devices, std::size_t n, const ClaimingResults& work, const BatchOptions& options, DistributedReport& rep) {
    const std::uint64_t devs = devices.size();
    // Whether rank 0 has asked to stop chunk c; stop messages for other chunks are old: dropped.
    auto stopArrived = [](Range c) {
        for (;;) {
            int flag = 0;
            MPI_Status st;
            MPI_Iprobe(0, kStop, MPI_COMM_WORLD, &flag, &st);
            if (!flag) return false;
            if (rangeOf(receive(st)) == c) return true;
        }
    };
    for (;;) {
        MPI_Send(&devs, sizeof devs, MPI_BYTE, 0, kRequest, MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Probe(0, kChunk, MPI_COMM_WORLD, &st);
        const Range c = rangeOf(receive(st));
        if (c.first >= c.second) {
            stopArrived(c);  // drops what is left
            return;
        }
        std::vector<std::string> out;
        try {
            out = computeChunk(devices, n, c, work, options, rep.local, [&] { return stopArrived(c); });
        } catch (const WorkAbandoned&) {
            // Another rank's copy came first; a set that failed before the stop drops out.
            if (devices.working() == 0) {
                sendRange(0, kFailed, c, devices.failedSentence());
                return;
            }
            continue;
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
    // How this rank's busy time divides between the host and its devices (BatchReport's phases).
    const PhaseTimes all = local.phases();
    if (all.total() > 0) {
        const char* names[kBatchPhases] = {"read", "host", "device", "write", "locks", "builds"};
        os << "  this rank's busy time:";
        for (std::size_t p = 0; p < kBatchPhases; ++p) {
            std::snprintf(line, sizeof line, "%s %s %.0f %%", p ? "," : "", names[p], 100 * all.seconds[p] / all.total());
            os << line;
        }
        if (all[BatchPhase::Device] < 0.5 * all.total()) os << "; the host, not the devices, limits this rank";
        os << "\n";
    }
    return os.str();
}

std::vector<std::string> runDistributedBatch(const World& world, DeviceSet& devices, std::size_t n, const RangeResults& work,
                                             const BatchOptions& options, DistributedReport* report, const ResultSink& sink) {
    return runDistributedBatch(world, devices, n, claimingResults(work), options, report, sink);
}

std::vector<std::string> runDistributedBatch(const World& world, DeviceSet& devices, std::size_t n, const ClaimingResults& work,
                                             const BatchOptions& options, DistributedReport* report, const ResultSink& sink) {
    DistributedReport rep;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> results;
    if (!world.distributed()) {
        results.resize(n);
        rep.local = devices.run(n, chunkWork(work, 0, results.data()), options);
        if (sink)
            for (std::size_t i = 0; i < n; ++i) sink(i, std::move(results[i])), results[i] = std::string();
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
        failure = serveBatch(world, devices, n, work, options, results, rep, sink);
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
