#include "file_batch.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <thread>
#include <filesystem>
#include <iostream>
#include <memory>

#include "portacl/cluster/collectives.hpp"
#include "portacl/cluster/distributed_batch.hpp"
#include "write_behind.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::cli {
namespace {

namespace fs = std::filesystem;

// An item's slot: 'o' and its line, or 'f' and its failure sentence ("" while not computed); under
// mpirun 'p' when its rank writes it behind and sends the slot after the batch.
constexpr char kDone = 'o', kFailed = 'f', kPending = 'p';

}  // namespace

std::string lowerCase(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::unique_lock<std::mutex> hdf5TurnFor(const std::string& path) {
    static std::mutex hdf5;
    const std::string ext = lowerCase(fs::path(path).extension().string());
    if (ext != ".h5" && ext != ".hdf5") return {};
    PhaseScope waiting(BatchPhase::Lock);
    return std::unique_lock<std::mutex>(hdf5);
}

std::vector<std::string> listBatchInputs(const std::vector<std::string>& named, const std::vector<std::string>& extensions,
                                         const std::string& kinds) {
    if (named.size() == 1 && fs::is_directory(named[0])) {
        std::vector<std::string> found;
        for (const auto& e : fs::directory_iterator(named[0]))
            if (e.is_regular_file() && std::find(extensions.begin(), extensions.end(), lowerCase(e.path().extension().string())) != extensions.end())
                found.push_back(e.path().string());
        std::sort(found.begin(), found.end());
        if (found.empty()) throw Error("the folder '" + named[0] + "' holds no " + kinds);
        return found;
    }
    for (const auto& f : named) {
        if (fs::is_directory(f)) throw Error("'" + f + "' is a folder; give either one folder or a list of files");
        if (!fs::is_regular_file(f)) throw Error("the input '" + f + "' does not exist");
    }
    return named;
}

std::string batchOutputPath(const std::string& outDir, const std::string& input, const std::string& ext) {
    std::string stem = fs::path(input).filename().string();
    if (lowerCase(stem).size() > 7 && lowerCase(stem).compare(stem.size() - 7, 7, ".nii.gz") == 0) stem.resize(stem.size() - 7);
    else stem = fs::path(stem).stem().string();
    return (fs::path(outDir) / (stem + "." + ext)).string();
}

void checkBatchOutputs(const std::string& outDir, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
    if (!fs::is_directory(outDir)) throw Error("with several inputs, -o names an existing folder for the outputs ('" + outDir + "' is none)");
    for (const auto& out : outputs) checkOutputPath(out, inputs, "-o");
    for (std::size_t i = 1; i < outputs.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (outputs[i] == outputs[j]) throw Error("'" + inputs[j] + "' and '" + inputs[i] + "' would both write '" + outputs[i] + "'; rename one");
}

std::optional<std::vector<std::string>> runFileBatch(const FileBatch& fb, const CommonOptions& common, const BatchCliOptions& batchOptions) {
    const std::size_t n = fb.items;
    std::vector<std::string> slots(n);
    // The outputs are written by host threads behind the devices. In one process a writer fills the
    // item's slot; under mpirun it fills `written` (the slot that travels to rank 0 when the call
    // returns says "pending"), whose entries every rank sends rank 0 after the batch.
    cluster::World* world = fb.serial ? nullptr : ranks();
    std::vector<std::string> written(world ? n : 0);
    std::unique_ptr<WriteBehind> behind;  // after what its jobs fill, so that it ends first
    // Item i's slot ("" when written behind in one process, kPending under mpirun), or nothing when
    // another copy of it claimed it first.
    auto one = [&](Context* ctx, std::size_t i, BatchCall* call) -> std::optional<std::string> {
        std::function<std::string()> commit;
        std::string failure;
        try {
            commit = fb.compute(ctx, i);
        } catch (const ClError&) {
            throw;  // the device's failure: the set retires it and the item goes to another device
        } catch (const Error& e) {
            failure = e.what();
        }
        if (call && !call->claim(i)) return std::nullopt;
        if (failure.empty() && behind && !(world && fb.lineCarriesData)) {
            // Written behind the devices: the job fills the item's slot itself.
            std::string& target = world ? written[i] : slots[i];
            behind->submit([&fb, &target, i, commit = std::move(commit)] {
                try {
                    target = kDone + commit();
                } catch (const std::exception& e) {
                    target = kFailed + fb.itemName(i) + ": " + e.what();
                }
            });
            return world ? std::string(1, kPending) : std::string();
        }
        if (failure.empty()) {
            try {
                PhaseScope writing(BatchPhase::Write);
                return kDone + commit();
            } catch (const Error& e) {  // writing, on the host: the item's failure, never its device's
                failure = e.what();
            }
        }
        return kFailed + fb.itemName(i) + ": " + failure;
    };
    if (fb.serial) {
        if (ranks()) throw Error("--serial runs in one process; run it without mpirun");
        for (std::size_t i = 0; i < n; ++i) slots[i] = *one(nullptr, i, nullptr);
    } else {
        std::unique_ptr<DeviceSet> opened;
        if (!fb.devices) opened = openDeviceSet(common, batchOptions, fb.precision);
        // Every output is written into folders read once here (not once per file).
        OutputFolderScan folderScan(fb.outputs);
        DeviceSet* devices = fb.devices ? fb.devices : opened.get();
        BatchOptions bo;
        bo.itemName = fb.itemName;
        bo.chunkStarting = fb.chunkStarting;
        bo.chunkDone = fb.chunkDone;
        bo.rankChunk = fb.rankChunk;
        const unsigned threads = writerThreads();
        behind = std::make_unique<WriteBehind>(threads, 2 * threads);
        if (world) {
            // Each item's outputs are written by the rank that computed it (the ranks share the
            // folders, as they share the inputs); rank 0 gathers the slots.
            passRankGate();
            cluster::DistributedReport report;
            try {
                slots = cluster::runDistributedBatch(*world, *devices, n, cluster::ClaimingResults(
                    [&](Context& ctx, std::size_t b, std::size_t e, std::string* out, BatchCall& call) {
                        for (std::size_t i = b; i < e; ++i) {
                            if (call.claimed(i)) continue;
                            if (auto slot = one(&ctx, i, &call)) out[i - b] = std::move(*slot);
                        }
                    }), bo, &report);
            } catch (...) {
                behind->drain();
                throw;
            }
            const auto devicesDone = std::chrono::steady_clock::now();
            behind->drain();
            // Every rank's slots of the items it wrote behind, to rank 0 (a straggler's copy may
            // have been written by two ranks: a written output wins over a failed one).
            std::string mine;
            for (std::size_t i = 0; i < n; ++i)
                if (!written[i].empty()) {
                    const std::uint64_t head[2] = {i, written[i].size()};
                    mine.append(reinterpret_cast<const char*>(head), sizeof head);
                    mine += written[i];
                }
            const std::vector<unsigned char> all = cluster::gatherOnRoot(mine.data(), mine.size(), 1, *world);
            const double tail = std::chrono::duration<double>(std::chrono::steady_clock::now() - devicesDone).count();
            if (!world->isRoot()) return std::nullopt;
            for (std::size_t at = 0; at + 2 * sizeof(std::uint64_t) <= all.size();) {
                std::uint64_t head[2];
                std::memcpy(head, all.data() + at, sizeof head);
                at += sizeof head;
                const std::string slot(reinterpret_cast<const char*>(all.data() + at), static_cast<std::size_t>(head[1]));
                at += static_cast<std::size_t>(head[1]);
                std::string& kept = slots[static_cast<std::size_t>(head[0])];
                if (!kept.empty() && (kept[0] == kPending || (kept[0] == kFailed && !slot.empty() && slot[0] == kDone))) kept = slot;
            }
            report.seconds += tail;
            std::cerr << report.describe() << behind->describe(report.seconds, tail);
        } else {
            BatchReport report;
            try {
                report = devices->run(n, DeviceSet::ClaimingWork([&](Context& ctx, std::size_t b, std::size_t e, BatchCall& call) {
                    for (std::size_t i = b; i < e; ++i) {
                        if (call.claimed(i)) continue;
                        auto slot = one(&ctx, i, &call);
                        if (slot && !slot->empty()) slots[i] = std::move(*slot);
                    }
                }), bo);
            } catch (...) {
                behind->drain();
                throw;
            }
            // The batch ends when its last output is written.
            const auto devicesDone = std::chrono::steady_clock::now();
            behind->drain();
            const double tail = std::chrono::duration<double>(std::chrono::steady_clock::now() - devicesDone).count();
            report.seconds += tail;
            printBatchReport(report, *devices);
            std::cerr << behind->describe(report.seconds, tail);
        }
        printProfile(*devices, common);
    }
    std::size_t failed = 0;
    std::string first;
    std::vector<std::string> lines(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (slots[i].empty() || slots[i][0] == kPending) throw Error("internal: " + fb.itemName(i) + " has no result");
        if (slots[i][0] == kFailed && failed++ == 0) first = slots[i].substr(1);
        if (slots[i][0] == kDone) lines[i] = slots[i].substr(1);
    }
    if (failed)
        throw Error(std::to_string(failed) + " of " + std::to_string(n) + " " + fb.noun + " failed, the first " + first +
                    " (" + fb.afterFailure + ")");
    return lines;
}

}  // namespace portacl::cli
