// A batch over the ranks of an MPI job, each rank sharing its part among the devices of its own
// device set. Rank 0 hands out chunks of items as ranks ask for them (its own devices take theirs
// from the same queue), so a rank with faster devices takes more: no fixed split. Each item's result
// (bytes the work function makes) reaches rank 0, which gets them all in input order, so that it
// alone writes the output, the same bytes as a one-process run. A rank whose devices all fail hands
// its chunk back and drops out; the job fails, in one sentence from rank 0, only when no rank is left.
// In a world of one rank this is DeviceSet::run.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "portacl/cluster/world.hpp"
#include "portacl/runtime/device_set.hpp"

namespace portacl::cluster {

struct PORTACL_API DistributedReport {
    BatchReport local;                   // this rank's devices (on rank 0 only its own share)
    std::vector<std::size_t> rankItems;  // items each rank computed (rank 0: every rank's)
    std::vector<std::string> rankFailures;  // per rank: "" or the sentence its devices failed with
    double seconds = 0;                  // wall time of the batch on this rank
    // Rank 0: "N items in S s (X items/s) on R ranks: rank 0 n0, rank 1 n1 ..." and this rank's devices.
    std::string describe() const;
};

// Computes items [begin, end) on ctx and puts item i's result, as bytes, in results[i - begin].
using RangeResults = std::function<void(Context& ctx, std::size_t begin, std::size_t end, std::string* results)>;

// The same for work that writes outputs of its own (files) besides its results: two calls may
// compute one item at once (an idle device copies a straggler's items, DeviceSet::run), and only the
// one whose call.claim(i) succeeds writes item i's outputs and results[i - begin].
using ClaimingResults =
    std::function<void(Context& ctx, std::size_t begin, std::size_t end, std::string* results, BatchCall& call)>;

// Rank 0's use of each item's result as it arrives (the first to arrive, once per item), in place
// of keeping it for the returned vector: so that rank 0 writes items while the ranks compute others,
// and holds only those in flight. Called on rank 0's threads (its main thread, or the thread of its
// own devices), never with the batch's lock held; it may block (a writer's queue that is full), which
// holds back that thread only.
using ResultSink = std::function<void(std::size_t item, std::string&& bytes)>;

// Collective over every rank of `world`: items [0, n) computed by `work` on the ranks' devices
// (DeviceSet::run hands each device ranges of at most options.maxChunk items). On
// rank 0 returns the n results in input order (empty strings where `sink` took them); on the other
// ranks an empty vector. Throws on every rank when the batch fails (rank 0: Error naming the item and
// the failures; others: ReportedByRoot). A rank takes chunks of at most options.maxChunk x its devices.
PORTACL_API std::vector<std::string> runDistributedBatch(const World& world, DeviceSet& devices, std::size_t n,
                                                         const RangeResults& work, const BatchOptions& options = {},
                                                         DistributedReport* report = nullptr, const ResultSink& sink = {});
PORTACL_API std::vector<std::string> runDistributedBatch(const World& world, DeviceSet& devices, std::size_t n,
                                                         const ClaimingResults& work, const BatchOptions& options = {},
                                                         DistributedReport* report = nullptr, const ResultSink& sink = {});

}  // namespace portacl::cluster
