// Reconstruction of a periodic two-phase image whose lineal path function matches a target, by
// simulated annealing (the thesis's Sec. 3.2): swap a phase pixel with a non-phase pixel (the volume
// fraction stays), objective E = sum over displacements d of (L(d) - L_target(d))^2, Metropolis
// acceptance at a temperature that cools exponentially from Tmax to Tmin, restarting at Tmax for each
// reheat. A swap changes only the placements whose segment passes through one of the two pixels, so
// the exact counts are updated incrementally; many candidate swaps are evaluated at once on the device.
//
// Reproducibility: candidate k of the chain (its two pixels and its acceptance draw) comes from a
// counter-based generator keyed by (seed, k) and the current image, so the chain does not depend on how
// many candidates the device evaluates per batch: a batch is walked in order, the first accepted swap is
// applied and the candidates after it are drawn again from the new image.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "portacl/lineal_path.hpp"

namespace portacl::lineal {

// What to match: L of one phase for every displacement of [-ML, ML]^D, on a periodic cell, and
// optionally its two-point probability S2 on the same displacements:
// E = sum_d (L - L_target)^2 + s2Weight * sum_d (S2 - S2_target)^2.
struct PORTACL_API Target {
    int nz = 1, ny = 0, nx = 0;  // the cell to reconstruct
    int maxLength = 0;
    std::vector<double> L;       // map order of Result
    std::vector<double> S2;      // same order; empty when S2 is not matched
    double s2Weight = 0;
    std::uint64_t phasePixels = 0;  // round(L(0) * N)
    std::string fingerprint() const;  // identifies the target in checkpoints
};
// s2Weight > 0 also matches S2 (exact, from the serial sums).
PORTACL_API Target targetFromImage(Context& ctx, const PhaseImage& img, int maxLength, double s2Weight = 0);
// An HDF5 file written by `portacl lineal-path -o` of a periodic image (its /L and shape attribute;
// /S2 too when s2Weight > 0, which needs a file written with --s2).
PORTACL_API Target targetFromFile(const std::string& path, double s2Weight = 0);
// Exact S2 counts #{p : p and p + d in the phase} of a periodic image, in map order.
PORTACL_API std::vector<std::uint64_t> twoPointCounts(const PhaseImage& img, int maxLength);

// Incremental counts of one image under candidate swaps.
class PORTACL_API SwapEvaluator {
public:
    virtual ~SwapEvaluator() = default;
    // Change of E for each candidate (a = index of a phase pixel, b = of a non-phase pixel).
    virtual std::vector<double> deltaErrors(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& swaps) = 0;
    // Applies candidate i of the last deltaErrors call: the image and its exact counts.
    virtual void apply(std::size_t i) = 0;
    virtual std::vector<std::uint64_t> counts() = 0;
    // Exact S2 counts (empty when the target has no S2).
    virtual std::vector<std::uint64_t> s2Counts() = 0;
    virtual const PhaseImage& image() const = 0;
    // Candidates of the next evaluation, at most maxBatch, after one of k candidates of which the walk
    // used the first `used` (used < k: the used-th was accepted). The default suits devices on which a
    // few more candidates cost almost nothing (GPUs): twice as many after a full rejection, twice the
    // used count after an acceptance. Any choice gives the same chain; only the wasted work differs.
    virtual std::uint64_t nextBatch(std::uint64_t k, std::uint64_t used, std::uint64_t maxBatch) const;
};
// On the device, in float or double (the ΔE sums; the counts are exact either way). `windows` reads
// each candidate's pixels from a window around it (true) or from the whole image (false), whatever
// the profile's [lineal_path] anneal_windows says; unset, the profile decides.
PORTACL_API std::unique_ptr<SwapEvaluator> makeDeviceEvaluator(Context& ctx, const Target& t, const PhaseImage& start, Precision p,
                                                               std::optional<bool> windows = std::nullopt);
// Serial C++ reference, ΔE in double.
PORTACL_API std::unique_ptr<SwapEvaluator> makeReferenceEvaluator(const Target& t, const PhaseImage& start);

struct AnnealState;

struct PORTACL_API AnnealOptions {
    std::uint64_t steps = 100000;  // candidate swaps evaluated, at most
    double tMax = 1e-3, tMin = 1e-6;
    int reheats = 0;                // extra cooling cycles from Tmax
    std::uint64_t seed = 1;
    bool biased = true;             // the thesis's boundary/isolated pixel choice
    int maxBatch = 256;             // candidates per device evaluation, at most
    std::uint64_t historyEvery = 1000;
    std::uint64_t checkpointEvery = 0;  // 0: none
    std::string checkpointPath;
    bool progress = true;
    // Called after every batch of candidates with the chain's state (step, error, accepted; the image
    // is brought up to date only at the end): returning true stops the chain there, complete and
    // resumable. What a caller uses to report progress or to be interrupted (the Python package).
    std::function<bool(const AnnealState&)> afterBatch;
};

// Refuses options outside their ranges with one sentence: temperatures positive and finite with
// Tmin <= Tmax, reheats in [0, steps - 1], a batch in [1, 2^20], a history interval of at least 1.
PORTACL_API void validate(const AnnealOptions& opt);

struct PORTACL_API AnnealRecord {
    std::uint64_t step;
    double temperature, error;
    std::uint64_t accepted;
};

struct PORTACL_API AnnealState {
    PhaseImage image;
    std::uint64_t step = 0, accepted = 0;
    double error = 0;
    std::vector<AnnealRecord> history;
};

// A random image with the target's number of phase pixels (seeded).
PORTACL_API PhaseImage randomStart(const Target& t, std::uint64_t seed);
// Runs the chain from `state` (a fresh random start or a resumed checkpoint) until the step budget is
// spent or E is exactly 0. `evaluator` must hold state.image.
PORTACL_API void anneal(SwapEvaluator& evaluator, const Target& t, const AnnealOptions& opt, AnnealState& state);
PORTACL_API double temperatureAt(const AnnealOptions& opt, std::uint64_t step);
// Exact E of counts (and S2 counts when the target has S2) against the target (N = cell size).
PORTACL_API double errorOf(const Target& t, const std::vector<std::uint64_t>& counts, const std::vector<std::uint64_t>& s2Counts = {});

// Checkpoints: magic, version, target fingerprint, options that define the chain, step, image,
// history, and a checksum. readCheckpoint rejects a corrupt file or one of another target with one
// sentence.
PORTACL_API void writeCheckpoint(const std::string& path, const Target& t, const AnnealOptions& opt, const AnnealState& s);
PORTACL_API AnnealState readCheckpoint(const std::string& path, const Target& t, AnnealOptions& opt);

}  // namespace portacl::lineal
