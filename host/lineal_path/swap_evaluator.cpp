// Incremental lineal path counts under pixel swaps: on the device (cl/lineal_path_anneal.cl) and the
// serial reference, with the same placement rule (see the kernel's header comment).
#include <optional>
#include <cmath>

#include "portacl/lineal_path/reconstruct.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::lineal {
namespace {

using Swaps = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// Segments of every displacement of the target's map, concatenated, with start offsets.
struct SegmentTable {
    std::vector<cl_int4> offsets;
    std::vector<cl_int> start;  // nd + 1 entries
    explicit SegmentTable(const Target& t) {
        const int ml = t.maxLength, mlz = t.nz > 1 ? ml : 0;
        for (int dz = -mlz; dz <= mlz; ++dz)
            for (int dy = -ml; dy <= ml; ++dy)
                for (int dx = -ml; dx <= ml; ++dx) {
                    start.push_back(cl_int(offsets.size()));
                    for (const auto& o : bresenhamSegment({dz, dy, dx})) {
                        cl_int4 v;
                        v.s[0] = o[0];
                        v.s[1] = o[1];
                        v.s[2] = o[2];
                        v.s[3] = 0;
                        offsets.push_back(v);
                    }
                }
        start.push_back(cl_int(offsets.size()));
    }
    int displacements() const { return int(start.size()) - 1; }
    // The offsets as linear offsets in a window of side 2 ML + 1 (cl/lineal_path_anneal.cl's anneal_window).
    std::vector<cl_int> windowOffsets(int ml) const {
        const int w = 2 * ml + 1;
        std::vector<cl_int> lin;
        lin.reserve(offsets.size());
        for (const auto& o : offsets) lin.push_back((o.s[0] * w + o.s[1]) * w + o.s[2]);
        return lin;
    }
};

std::vector<std::uint64_t> fullCounts(const PhaseImage& img, const Target& t) {
    return linealPathReference(img, {t.maxLength, true}).count;
}

void checkStart(const Target& t, const PhaseImage& img) {
    if (img.nz != t.nz || img.ny != t.ny || img.nx != t.nx)
        throw Error("the start image does not have the target's cell size");
}

class ReferenceEvaluator : public SwapEvaluator {
public:
    ReferenceEvaluator(const Target& t, const PhaseImage& start) : t_(t), seg_(t), img_(start) {
        checkStart(t, start);
        counts_ = fullCounts(start, t);
        if (!t.S2.empty()) counts2_ = twoPointCounts(start, t.maxLength);
    }
    std::vector<double> deltaErrors(const Swaps& swaps) override {
        const int nd = seg_.displacements();
        const double invN = 1.0 / double(img_.size());
        last_.assign(swaps.size() * std::size_t(nd), 0);
        last2_.assign(counts2_.empty() ? 0 : swaps.size() * std::size_t(nd), 0);
        std::vector<double> dE(swaps.size(), 0.0);
        for (std::size_t i = 0; i < swaps.size(); ++i) {
            const auto [a, b] = swaps[i];
            for (int d = 0; d < nd; ++d) {
                int change = 0;
                const int s0 = seg_.start[d], len = seg_.start[d + 1] - s0;
                for (int j = 0; j < len; ++j) {
                    const auto& o = seg_.offsets[s0 + j];
                    change -= fits(coords(a), o, s0, len, -1, -1);
                    change += fits(coords(b), o, s0, len, int(a), int(b));
                }
                last_[i * nd + d] = change;
                const double e = double(counts_[d]) * invN - t_.L[d], dl = change * invN;
                dE[i] += dl * (2 * e + dl);
                if (!counts2_.empty()) {
                    const int c2 = s2Change(a, b, seg_.offsets[s0 + len - 1]);
                    last2_[i * nd + d] = c2;
                    const double e2 = double(counts2_[d]) * invN - t_.S2[d], d2 = c2 * invN;
                    dE[i] += t_.s2Weight * d2 * (2 * e2 + d2);
                }
            }
        }
        swaps_ = swaps;
        return dE;
    }
    void apply(std::size_t i) override {
        const int nd = seg_.displacements();
        for (int d = 0; d < nd; ++d) counts_[d] = std::uint64_t(std::int64_t(counts_[d]) + last_[i * nd + d]);
        for (std::size_t d = 0; d < counts2_.size(); ++d)
            counts2_[d] = std::uint64_t(std::int64_t(counts2_[d]) + last2_[i * nd + d]);
        img_.mask[swaps_[i].first] = 0;
        img_.mask[swaps_[i].second] = 1;
    }
    std::vector<std::uint64_t> counts() override { return counts_; }
    std::vector<std::uint64_t> s2Counts() override { return counts2_; }
    const PhaseImage& image() const override { return img_; }
    // Every candidate costs the same and there is no launch to amortize: one at a time wastes nothing.
    std::uint64_t nextBatch(std::uint64_t, std::uint64_t, std::uint64_t) const override { return 1; }

private:
    int at(int z, int y, int x) const {
        return img_.mask[(std::size_t(wrap(z, img_.nz)) * img_.ny + wrap(y, img_.ny)) * img_.nx + wrap(x, img_.nx)];
    }
    // The S2 count change of displacement d: pairs (p, p + d) with p in {a, a - d, b, b - d}.
    int s2Change(std::uint32_t a, std::uint32_t b, const cl_int4& d) const {
        const auto ca = coords(a), cb = coords(b);
        const std::array<int, 3> ps[4] = {ca, {ca[0] - d.s[0], ca[1] - d.s[1], ca[2] - d.s[2]}, cb,
                                          {cb[0] - d.s[0], cb[1] - d.s[1], cb[2] - d.s[2]}};
        auto lin = [&](const std::array<int, 3>& c) {
            return (wrap(c[0], img_.nz) * img_.ny + wrap(c[1], img_.ny)) * img_.nx + wrap(c[2], img_.nx);
        };
        auto after = [&](int q) { return q == int(a) ? 0 : q == int(b) ? 1 : int(img_.mask[q]); };
        int change = 0;
        for (int k = 0; k < 4; ++k) {
            bool seen = false;
            for (int m = 0; m < k; ++m) seen |= lin(ps[m]) == lin(ps[k]);
            if (seen) continue;
            const int p = lin(ps[k]), q = lin({ps[k][0] + d.s[0], ps[k][1] + d.s[1], ps[k][2] + d.s[2]});
            change += after(p) * after(q) - int(img_.mask[p]) * int(img_.mask[q]);
        }
        return change;
    }
    std::array<int, 3> coords(std::uint32_t i) const {
        return {int(i / std::uint32_t(img_.ny * img_.nx)), int((i / img_.nx) % img_.ny), int(i % img_.nx)};
    }
    static int wrap(int i, int n) { return ((i % n) + n) % n; }
    int fits(const std::array<int, 3>& c, const cl_int4& o, int s0, int len, int cleared, int set) const {
        const int pz = c[0] - o.s[0], py = c[1] - o.s[1], px = c[2] - o.s[2];
        for (int m = 0; m < len; ++m) {
            const auto& q4 = seg_.offsets[s0 + m];
            const int q = (wrap(pz + q4.s[0], img_.nz) * img_.ny + wrap(py + q4.s[1], img_.ny)) * img_.nx +
                          wrap(px + q4.s[2], img_.nx);
            const int v = q == cleared ? 0 : (q == set ? 1 : img_.mask[q]);
            if (!v) return 0;
        }
        return 1;
    }

    Target t_;
    SegmentTable seg_;
    PhaseImage img_;
    std::vector<std::uint64_t> counts_, counts2_;
    std::vector<int> last_, last2_;
    Swaps swaps_;
};

template <typename T>
class DeviceEvaluator : public SwapEvaluator {
public:
    DeviceEvaluator(Context& ctx, const Target& t, const PhaseImage& start, std::optional<bool> windowsAsked)
        : ctx_(ctx), seg_(t), img_(start) {
        checkStart(t, start);
        nd_ = seg_.displacements();
        invN_ = T(1) / T(double(start.size()));
        const auto c = linealPath(ctx, start, {t.maxLength, true}).count;
        std::vector<cl_long> counts(c.begin(), c.end());
        std::vector<T> target(t.L.begin(), t.L.end()), e(nd_);
        for (int d = 0; d < nd_; ++d) e[d] = T(double(c[d]) / double(start.size()) - t.L[d]);
        X_ = ctx.upload(img_.mask, "anneal image");
        seg = ctx.upload(seg_.offsets, "anneal segments", CL_MEM_READ_ONLY);
        start_ = ctx.upload(seg_.start, "anneal segment starts", CL_MEM_READ_ONLY);
        counts_ = ctx.upload(counts, "anneal counts");
        target_ = ctx.upload(target, "anneal target", CL_MEM_READ_ONLY);
        e_ = ctx.upload(e, "anneal residuals");
        s2_ = !t.S2.empty();
        w2_ = T(t.s2Weight);
        if (s2_) {
            const auto c2 = twoPointCounts(start, t.maxLength);
            std::vector<cl_long> counts2(c2.begin(), c2.end());
            std::vector<T> target2(t.S2.begin(), t.S2.end()), e2(nd_);
            for (int d = 0; d < nd_; ++d) e2[d] = T(double(c2[d]) / double(start.size()) - t.S2[d]);
            counts2_ = ctx.upload(counts2, "anneal S2 counts");
            target2_ = ctx.upload(target2, "anneal S2 target", CL_MEM_READ_ONLY);
            e2_ = ctx.upload(e2, "anneal S2 residuals");
        } else {
            e2_ = ctx.buffer(sizeof(T), "anneal S2 residuals (unused)");
        }
        const Precision p = precisionOf<T>();
        delta_ = ctx.newKernel("lineal_path_anneal.cl", "anneal_delta", p);
        energy_ = ctx.newKernel("lineal_path_anneal.cl", "anneal_energy", p);
        apply_ = ctx.newKernel("lineal_path_anneal.cl", "anneal_apply", p);
        ls_ = std::min<std::size_t>(std::size_t(ctx.tuning().getInt("lineal_path", "anneal_work_group", 128, 1, 1L << 16)),
                                    ctx.device().maxWorkGroupSize);
        while (ls_ & (ls_ - 1)) ls_ &= ls_ - 1;
        // 512 work-items (8 work-groups) per compute unit balance PoCL's cores; 2^16 placements per
        // compute unit take about 0.25 ms (4 ns each on a 2-core Xeon), a few launch round trips.
        if (!ctx.device().isGpu) {
            const std::uint64_t units = std::max(1u, ctx.device().computeUnits);
            fullBatch_ = (units * 512 + std::uint64_t(nd_) - 1) / std::uint64_t(nd_);
            cheapPlacements_ = units << 16;
        }
        ml_ = t.maxLength;
        mlz_ = t.nz > 1 ? ml_ : 0;
        windowSize_ = std::size_t(2 * mlz_ + 1) * std::size_t(2 * ml_ + 1) * std::size_t(2 * ml_ + 1);
        // Windows are measured on CPU devices (docs/engineering/lineal_path.md); GPUs keep anneal_delta
        // on the whole image unless their profile sets anneal_windows = 1.
        const bool windows = windowsAsked ? *windowsAsked
                                          : ctx.tuning().getInt("lineal_path", "anneal_windows", ctx.device().isGpu ? 0 : 1, 0, 1) != 0;
        // Device memory for the candidates' windows of one evaluation at most (profile key
        // anneal_window_bytes): a batch whose windows need more is evaluated in parts, and a cell whose
        // single window needs more (3-D, large ML) takes anneal_delta on the whole image instead.
        const auto windowBytes = std::size_t(ctx.tuning().getInt("lineal_path", "anneal_window_bytes", 64L << 20, 1, 1L << 40));
        if (windows && windowSize_ <= windowBytes) {
            windowCandidates_ = int(std::min<std::size_t>(windowBytes / windowSize_, std::size_t(1) << 20));
            segLin_ = ctx.upload(seg_.windowOffsets(ml_), "anneal segment window offsets", CL_MEM_READ_ONLY);
            window_ = ctx.newKernel("lineal_path_anneal.cl", "anneal_window", p);
            deltaWindow_ = ctx.newKernel("lineal_path_anneal.cl", "anneal_delta_window", p);
        }
    }
    std::vector<double> deltaErrors(const Swaps& swaps) override {
        const int K = int(swaps.size());
        if (K > capacity_) {
            capacity_ = K;
            swapBuf_ = ctx_.buffer(std::size_t(K) * sizeof(cl_int2), "anneal candidates", CL_MEM_READ_ONLY);
            deltaBuf_ = ctx_.buffer(std::size_t(K) * nd_ * sizeof(cl_int), "anneal count changes");
            dEBuf_ = ctx_.buffer(std::size_t(K) * sizeof(T), "anneal error changes");
            delta2Buf_ = ctx_.buffer(s2_ ? std::size_t(K) * nd_ * sizeof(cl_int) : sizeof(cl_int), "anneal S2 count changes");
        }
        std::vector<cl_int2> s(K);
        for (int i = 0; i < K; ++i) {
            s[i].s[0] = cl_int(swaps[i].first);
            s[i].s[1] = cl_int(swaps[i].second);
        }
        // Queued behind the last accepted swap's anneal_apply without waiting for it: the blocking
        // read of ΔE below is the step's only round trip.
        ctx_.writeAsync(swapBuf_, std::move(s), "upload anneal candidates");
        if (windowCandidates_ > 0)
            deltasFromWindows(K);
        else
            deltasFromImage(K);
        setArg(energy_, 0, deltaBuf_);
        setArg(energy_, 1, e_);
        setArg(energy_, 2, invN_);
        setArg(energy_, 3, cl_int(nd_));
        setArg(energy_, 4, dEBuf_);
        setArg(energy_, 5, cl::Local(ls_ * sizeof(T)));
        setArg(energy_, 6, cl_int(s2_ ? 1 : 0));
        setArg(energy_, 7, delta2Buf_);
        setArg(energy_, 8, e2_);
        setArg(energy_, 9, w2_);
        ctx_.launch(energy_, cl::NDRange(std::size_t(K) * ls_), cl::NDRange(ls_));
        const auto dE = ctx_.download<T>(dEBuf_, std::size_t(K), "anneal error changes");
        swaps_ = swaps;
        return std::vector<double>(dE.begin(), dE.end());
    }
    void apply(std::size_t i) override {
        setArg(apply_, 0, counts_);
        setArg(apply_, 1, e_);
        setArg(apply_, 2, target_);
        setArg(apply_, 3, deltaBuf_);
        setArg(apply_, 4, cl_int(i));
        setArg(apply_, 5, cl_int(nd_));
        setArg(apply_, 6, invN_);
        const auto [a, b] = swaps_[i];
        setArg(apply_, 7, X_);
        setArg(apply_, 8, cl_int(a));
        setArg(apply_, 9, cl_int(b));
        ctx_.launch(apply_, cl::NDRange(roundUp(std::size_t(nd_), 64)), cl::NDRange(64));
        if (s2_) {
            setArg(apply_, 0, counts2_);
            setArg(apply_, 1, e2_);
            setArg(apply_, 2, target2_);
            setArg(apply_, 3, delta2Buf_);
            setArg(apply_, 8, cl_int(-1));
            ctx_.launch(apply_, cl::NDRange(roundUp(std::size_t(nd_), 64)), cl::NDRange(64));
        }
        img_.mask[a] = 0;
        img_.mask[b] = 1;
    }
    std::vector<std::uint64_t> counts() override {
        const auto c = ctx_.download<cl_long>(counts_, std::size_t(nd_), "anneal counts");
        return std::vector<std::uint64_t>(c.begin(), c.end());
    }
    std::vector<std::uint64_t> s2Counts() override {
        if (!s2_) return {};
        const auto c = ctx_.download<cl_long>(counts2_, std::size_t(nd_), "anneal S2 counts");
        return std::vector<std::uint64_t>(c.begin(), c.end());
    }
    const PhaseImage& image() const override { return img_; }
    // A CPU device's evaluation time grows with every candidate, and the candidates after an accepted
    // one are wasted: it takes the fewest that keep its cores busy (fullBatch_), and doubles on a full
    // rejection only while the batch is cheap beside a launch and its read-back (cheapPlacements_).
    // GPUs keep the default.
    std::uint64_t nextBatch(std::uint64_t k, std::uint64_t used, std::uint64_t maxBatch) const override {
        if (fullBatch_ == 0) return SwapEvaluator::nextBatch(k, used, maxBatch);
        const bool widen = used == k && 2 * k * seg_.offsets.size() <= cheapPlacements_;
        return std::min(std::max(widen ? 2 * k : 1, fullBatch_), maxBatch);
    }

private:
    void deltasFromImage(int K) {
        setArgs(delta_, 0, X_, cl_int(img_.nz), cl_int(img_.ny), cl_int(img_.nx), seg, start_, cl_int(nd_), swapBuf_, cl_int(K),
                deltaBuf_, cl_int(s2_ ? 1 : 0), delta2Buf_);
        ctx_.launch(delta_, cl::NDRange(roundUp(std::size_t(nd_), 64), std::size_t(K)), cl::NDRange(64, 1));
    }
    // The windows of up to windowCandidates_ candidates at a time, then their count changes.
    void deltasFromWindows(int K) {
        const int part = std::min(K, windowCandidates_);
        if (part > windowCapacity_) {
            windowCapacity_ = part;
            windowBuf_ = ctx_.buffer(std::size_t(part) * windowSize_, "anneal candidate windows");
        }
        for (int i0 = 0; i0 < K; i0 += part) {
            const int k = std::min(part, K - i0);
            setArgs(window_, 0, X_, cl_int(img_.nz), cl_int(img_.ny), cl_int(img_.nx), swapBuf_, cl_int(i0), cl_int(ml_), cl_int(mlz_),
                    windowBuf_);
            ctx_.launch(window_, cl::NDRange(roundUp(windowSize_ / std::size_t(2 * ml_ + 1), 64), std::size_t(k)), cl::NDRange(64, 1));
            setArgs(deltaWindow_, 0, windowBuf_, cl_int(ml_), cl_int(mlz_), segLin_, start_, cl_int(nd_), cl_int(i0), cl_int(k),
                    deltaBuf_, X_, cl_int(img_.nz), cl_int(img_.ny), cl_int(img_.nx), seg, swapBuf_, cl_int(s2_ ? 1 : 0), delta2Buf_);
            ctx_.launch(deltaWindow_, cl::NDRange(roundUp(std::size_t(nd_), 64), std::size_t(k)), cl::NDRange(64, 1));
        }
    }

    Context& ctx_;
    SegmentTable seg_;
    PhaseImage img_;
    int nd_ = 0, capacity_ = 0;
    int ml_ = 0, mlz_ = 0, windowCandidates_ = 0, windowCapacity_ = 0;  // windowCandidates_ 0: no windows
    std::size_t windowSize_ = 0;
    std::uint64_t fullBatch_ = 0, cheapPlacements_ = 0;  // fullBatch_ 0: a GPU (the default batch rule)
    cl::Buffer segLin_, windowBuf_;
    cl::Kernel window_, deltaWindow_;
    T invN_, w2_ = 0;
    bool s2_ = false;
    cl::Buffer counts2_, target2_, e2_, delta2Buf_;
    std::size_t ls_ = 128;
    cl::Buffer X_, seg, start_, counts_, target_, e_, swapBuf_, deltaBuf_, dEBuf_;
    cl::Kernel delta_, energy_, apply_;
    Swaps swaps_;
};

}  // namespace

std::unique_ptr<SwapEvaluator> makeDeviceEvaluator(Context& ctx, const Target& t, const PhaseImage& start, Precision p,
                                                   std::optional<bool> windows) {
    if (p == Precision::Double) {
        ctx.requirePrecision(p);
        return std::make_unique<DeviceEvaluator<double>>(ctx, t, start, windows);
    }
    if (p != Precision::Float) throw Error("the reconstruction runs in float or double, not mixed");
    return std::make_unique<DeviceEvaluator<float>>(ctx, t, start, windows);
}

std::unique_ptr<SwapEvaluator> makeReferenceEvaluator(const Target& t, const PhaseImage& start) {
    return std::make_unique<ReferenceEvaluator>(t, start);
}

}  // namespace portacl::lineal
