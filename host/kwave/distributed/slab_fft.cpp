#include "slab_fft.hpp"

#include <algorithm>
#include <chrono>

#include "kwave/box_copy.hpp"

namespace portacl::kwave::distributed {
namespace {

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Complex elements rank r sends and receives per component in the forward direction (its own block
// excluded): its planes' share of every other rank's rows, and every other rank's planes of its rows.
std::size_t sendElements(const SlabLayout& l, std::size_t r) { return l.count0[r] * (l.n1 - l.count1[r]) * l.P; }
std::size_t recvElements(const SlabLayout& l, std::size_t r) { return (l.n0 - l.count0[r]) * l.count1[r] * l.P; }

BoxCopy box(std::size_t e0, std::size_t e1, std::size_t srcOffset, std::size_t s0, std::size_t s1, std::size_t dstOffset,
            std::size_t d0, std::size_t d1) {
    BoxCopy b;
    b.extent[0] = e0;
    b.extent[1] = e1;
    b.srcOffset = srcOffset;
    b.srcStride[0] = s0;
    b.srcStride[1] = s1;
    b.dstOffset = dstOffset;
    b.dstStride[0] = d0;
    b.dstStride[1] = d1;
    return b;
}

}  // namespace

std::size_t SlabFft::deviceBytes(const SlabLayout& l, Precision precision) {
    const std::size_t cb = precision == Precision::Double ? 16 : 8, r = static_cast<std::size_t>(l.rank);
    return (l.slabSpectrumPoints() + std::max(sendElements(l, r), recvElements(l, r))) * cb;
}

SlabFft::SlabFft(Context& ctx, const SlabLayout& layout, Precision precision, fft::Backend backend, Overlap overlap)
    : ctx_(ctx), l_(layout), prec_(precision), complexBytes_(precision == Precision::Double ? 16 : 8),
      overlap_(overlap == Overlap::Auto ? !ctx.device().isCpu : overlap == Overlap::On) {
    fft::PlanDesc d;
    d.precision = prec_;
    d.backend = backend;
    d.shape = l_.is3D ? std::vector<std::size_t>{l_.ny, l_.nx} : std::vector<std::size_t>{l_.nx};
    d.batch = l_.planes();
    d.kind = fft::Kind::R2C;
    planes_r2c_ = &fft::plan(ctx_, d);
    d.kind = fft::Kind::C2R;
    planes_c2r_ = &fft::plan(ctx_, d);
    d.kind = fft::Kind::C2C;
    d.shape = {l_.n0};
    d.batch = l_.count1[l_.rank] * l_.P;
    d.inPlace = true;
    axis_ = &fft::plan(ctx_, d);

    const std::size_t R = static_cast<std::size_t>(l_.ranks), me = static_cast<std::size_t>(l_.rank);
    sendCount_.assign(R, 0);
    sendOffset_.assign(R, 0);
    recvCount_.assign(R, 0);
    recvOffset_.assign(R, 0);
    for (std::size_t r = 0; r < R; ++r) {
        if (r == me) continue;
        sendOffset_[r] = sendElems_;
        sendCount_[r] = l_.count0[me] * l_.count1[r] * l_.P;
        sendElems_ += sendCount_[r];
        recvOffset_[r] = recvElems_;
        recvCount_[r] = l_.count0[r] * l_.count1[me] * l_.P;
        recvElems_ += recvCount_[r];
    }
    blockBytes_ = std::max<std::size_t>(std::max(sendElems_, recvElems_) * complexBytes_, 8);
    work_ = ctx_.buffer(std::max<std::size_t>(l_.slabSpectrumPoints() * complexBytes_, 8), "slab spectrum");
    exchange_ = ctx_.buffer(blockBytes_, "transpose block");
    auto pinned = [&](cl::Buffer& b, const std::string& what) {
        const std::size_t bytes = blockBytes_ * kMaxComponents;
        b = ctx_.buffer(bytes, what, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
        return static_cast<unsigned char*>(ctx_.map(b, CL_MAP_READ | CL_MAP_WRITE, bytes, "map " + what));
    };
    sendHost_ = pinned(sendPinned_, "transpose blocks sent (host)");
    recvHost_ = pinned(recvPinned_, "transpose blocks received (host)");
    // The forward and the inverse direction send sendElems_ and recvElems_ elements in turn.
    rankExchange_ = std::make_unique<cluster::BlockExchange>(std::max(sendElems_, recvElems_) * complexBytes_,
                                                             "the " + l_.describe() + " transform's transpose");
}

SlabFft::~SlabFft() {
    try {
        ctx_.finish();
        if (sendHost_) ctx_.unmap(sendPinned_, sendHost_, "unmap transpose blocks sent (host)");
        if (recvHost_) ctx_.unmap(recvPinned_, recvHost_, "unmap transpose blocks received (host)");
        ctx_.finish();
    } catch (...) {
    }
}

// Forward, component by component: work_ [z local][y][P] holds the planes' spectra. Rank s gets its
// rows of them as [y of s][P][z local] (z fastest, the receiver's order); this rank's own rows go
// straight into the spectrum [y local][P][z].
void SlabFft::packForward(const cl::Buffer& spectrum) {
    const std::size_t me = static_cast<std::size_t>(l_.rank), P = l_.P, rowStride = l_.n1 * P, c0 = l_.count0[me];
    for (std::size_t s = 0; s < sendCount_.size(); ++s) {
        const std::size_t run = l_.count1[s] * P;  // (y of s, kx) pairs, contiguous in a plane
        if (s == me)
            copyBox(ctx_, work_, spectrum, box(c0, run, l_.start1[s] * P, rowStride, 1, l_.start0[me], 1, l_.n0), prec_);
        else
            copyBox(ctx_, work_, exchange_, box(c0, run, l_.start1[s] * P, rowStride, 1, sendOffset_[s], 1, c0), prec_);
    }
}

// What came from rank q, [y local][P][z of q], into the spectrum's z range of q.
void SlabFft::unpackForward(const cl::Buffer& spectrum) {
    const std::size_t me = static_cast<std::size_t>(l_.rank), run = l_.count1[me] * l_.P;
    for (std::size_t q = 0; q < recvCount_.size(); ++q)
        if (q != me)
            copyBox(ctx_, exchange_, spectrum, box(l_.count0[q], run, recvOffset_[q], 1, l_.count0[q], l_.start0[q], 1, l_.n0), prec_);
}

// Inverse: the spectrum [y local][P][z]; rank q gets its planes of it as [z of q][y local][P] (the
// receiver's order). This rank's own block stays in the spectrum until the unpack.
void SlabFft::packInverse(const cl::Buffer& spectrum) {
    const std::size_t me = static_cast<std::size_t>(l_.rank), run = l_.count1[me] * l_.P;
    // The forward direction's receive blocks are the inverse's send blocks.
    for (std::size_t q = 0; q < recvCount_.size(); ++q)
        if (q != me)
            copyBox(ctx_, spectrum, exchange_, box(run, l_.count0[q], l_.start0[q], l_.n0, 1, recvOffset_[q], 1, run), prec_);
}

// What came from rank s, [z local][y of s][P], and this rank's own block from the spectrum, into
// work_ [z local][y][P] for the planes' C2R.
void SlabFft::unpackInverse(const cl::Buffer& spectrum) {
    const std::size_t me = static_cast<std::size_t>(l_.rank), P = l_.P, rowStride = l_.n1 * P, c0 = l_.count0[me];
    for (std::size_t s = 0; s < sendCount_.size(); ++s) {
        const std::size_t run = l_.count1[s] * P;
        if (s == me)
            copyBox(ctx_, spectrum, work_, box(run, c0, l_.start0[me], l_.n0, 1, l_.start1[s] * P, 1, rowStride), prec_);
        else
            copyBox(ctx_, exchange_, work_, box(run, c0, sendOffset_[s], 1, run, l_.start1[s] * P, 1, rowStride), prec_);
    }
}

void SlabFft::exchange(int c, const cl::Event& read, bool forwardDirection) {
    const std::size_t at = static_cast<std::size_t>(c) * blockBytes_;
    auto t0 = std::chrono::steady_clock::now();
    if (read()) ctx_.wait(read, "the transpose's read to host memory");
    times_.waitSeconds += since(t0);
    t0 = std::chrono::steady_clock::now();
    rankExchange_->allToAll(sendHost_ + at, forwardDirection ? sendCount_ : recvCount_, forwardDirection ? sendOffset_ : recvOffset_,
                            recvHost_ + at, forwardDirection ? recvCount_ : sendCount_, forwardDirection ? recvOffset_ : sendOffset_,
                            complexBytes_);
    times_.exchangeSeconds += since(t0);
    times_.transposes += 1;
    times_.hostBytes += (sendElems_ + recvElems_) * complexBytes_;
}

void SlabFft::writeBack(int c, bool forwardDirection) {
    // The pinned block stays untouched until the write has run: the next exchange into it waits for
    // a read queued after this write.
    const std::size_t in = (forwardDirection ? recvElems_ : sendElems_) * complexBytes_;
    if (in) ctx_.writeAsync(exchange_, recvHost_ + static_cast<std::size_t>(c) * blockBytes_, in, "transpose: to device", nullptr);
}

// Stage one of a component (transform, pack, the read of its blocks), the exchange, and stage two
// (the write of what arrived, unpack, transform); every component's stage one is queued before the
// first exchange. Pipelined, each component's stage two is queued as soon as its exchange is done,
// so that the device works while the host exchanges the next; in turn, every exchange waits for the
// device to be idle and stage two is queued after the last (the device's threads and MPI never
// compete for the cores).
template <typename First, typename Second>
void SlabFft::pipeline(int count, bool forwardDirection, const First& first, const Second& second) {
    if (count < 1 || count > kMaxComponents) throw Error("the distributed transform takes 1 to 3 components at once");
    cl::Event reads[kMaxComponents];
    for (int c = 0; c < count; ++c) reads[c] = first(c);
    if (!overlap_) {
        const auto t0 = std::chrono::steady_clock::now();
        ctx_.finish();
        times_.waitSeconds += since(t0);
    }
    for (int c = 0; c < count; ++c) {
        exchange(c, reads[c], forwardDirection);
        if (overlap_) {
            writeBack(c, forwardDirection);
            second(c);
        }
    }
    if (!overlap_)
        for (int c = 0; c < count; ++c) {
            writeBack(c, forwardDirection);
            second(c);
        }
}

void SlabFft::forward(const cl::Buffer* real, const cl::Buffer* spectrum, int count) {
    const std::size_t out = sendElems_ * complexBytes_;
    pipeline(
        count, true,
        [&](int c) {
            planes_r2c_->execute(real[c], work_, fft::Direction::Forward);
            packForward(spectrum[c]);
            return out ? ctx_.readAsync(exchange_, sendHost_ + static_cast<std::size_t>(c) * blockBytes_, out, "transpose: to host")
                       : cl::Event();
        },
        [&](int c) {
            unpackForward(spectrum[c]);
            axis_->execute(spectrum[c], spectrum[c], fft::Direction::Forward);
        });
}

void SlabFft::inverse(const cl::Buffer* spectrum, const cl::Buffer* real, int count) {
    const std::size_t out = recvElems_ * complexBytes_;
    pipeline(
        count, false,
        [&](int c) {
            axis_->execute(spectrum[c], spectrum[c], fft::Direction::Inverse);
            packInverse(spectrum[c]);
            return out ? ctx_.readAsync(exchange_, sendHost_ + static_cast<std::size_t>(c) * blockBytes_, out, "transpose: to host")
                       : cl::Event();
        },
        [&](int c) {
            unpackInverse(spectrum[c]);
            planes_c2r_->execute(work_, real[c], fft::Direction::Inverse);
        });
}

}  // namespace portacl::kwave::distributed
