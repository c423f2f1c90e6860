#include "slab_fft.hpp"

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstring>

#include "mpi_world.hpp"

namespace portacl::kwave::distributed {
namespace {

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// dst[j * dstStride + i] = src[i * srcStride + j] for i < rows, j < cols, in tiles that keep both
// sides in cache (the slab axis lies fastest on one side of the transpose and slowest on the other).
template <typename C>
void transposeTiles(const C* src, std::size_t srcStride, C* dst, std::size_t dstStride, std::size_t rows, std::size_t cols) {
    constexpr std::size_t tile = 32;
    for (std::size_t i0 = 0; i0 < rows; i0 += tile)
        for (std::size_t j0 = 0; j0 < cols; j0 += tile) {
            const std::size_t i1 = std::min(rows, i0 + tile), j1 = std::min(cols, j0 + tile);
            for (std::size_t j = j0; j < j1; ++j)
                for (std::size_t i = i0; i < i1; ++i) dst[j * dstStride + i] = src[i * srcStride + j];
        }
}

}  // namespace

SlabFft::SlabFft(Context& ctx, const SlabLayout& layout, Precision precision, fft::Backend backend)
    : ctx_(ctx), l_(layout), prec_(precision), complexBytes_(precision == Precision::Double ? 16 : 8) {
    workBytes_ = l_.slabSpectrumPoints() * complexBytes_;
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
    work_ = ctx_.buffer(std::max<std::size_t>(workBytes_, 8), "slab spectrum");
    const std::size_t most = std::max(workBytes_, l_.spectralPoints() * complexBytes_) * kMaxComponents;
    auto pinned = [&](cl::Buffer& b, std::size_t bytes, const std::string& what) {
        bytes = std::max<std::size_t>(bytes, 8);
        b = ctx_.buffer(bytes, what, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
        return static_cast<unsigned char*>(ctx_.map(b, CL_MAP_READ | CL_MAP_WRITE, bytes, "map " + what));
    };
    slabHost_ = pinned(slabPinned_, workBytes_ * kMaxComponents, "slab spectra (host)");
    spectrumHost_ = pinned(spectrumPinned_, l_.spectralPoints() * complexBytes_ * kMaxComponents, "transposed spectra (host)");
    send_.resize(most);
    recv_.resize(most);
}

SlabFft::~SlabFft() {
    try {
        ctx_.finish();
        if (slabHost_) ctx_.unmap(slabPinned_, slabHost_, "unmap slab spectra (host)");
        if (spectrumHost_) ctx_.unmap(spectrumPinned_, spectrumHost_, "unmap transposed spectra (host)");
        ctx_.finish();
    } catch (...) {
    }
}

// Forward: the slab's spectrum [c][z local][y][P] is sent to rank s as [c][z local][y of s][P]; what
// comes from rank q, [c][z of q][y local][P], lands at [c][y local][P][z].
template <typename C>
void SlabFft::packForward(int count) {
    const std::size_t me = static_cast<std::size_t>(l_.rank), R = static_cast<std::size_t>(l_.ranks), P = l_.P, n1 = l_.n1,
                      n0 = l_.n0;
    const C* slab = reinterpret_cast<const C*>(slabHost_);
    C* send = reinterpret_cast<C*>(send_.data());
    const std::size_t c0 = l_.count0[me];
    std::size_t at = 0;
    for (std::size_t s = 0; s < R; ++s)
        for (int c = 0; c < count; ++c)
            for (std::size_t z = 0; z < c0; ++z) {
                const C* row = slab + (static_cast<std::size_t>(c) * c0 + z) * n1 * P + l_.start1[s] * P;
                std::memcpy(send + at, row, l_.count1[s] * P * sizeof(C));
                at += l_.count1[s] * P;
            }
    exchange(count, true);
    const C* recv = reinterpret_cast<const C*>(recv_.data());
    C* spec = reinterpret_cast<C*>(spectrumHost_);
    const std::size_t c1 = l_.count1[me];
    at = 0;
    for (std::size_t q = 0; q < R; ++q)
        for (int c = 0; c < count; ++c) {
            C* out = spec + static_cast<std::size_t>(c) * c1 * P * n0 + l_.start0[q];
            const std::size_t cq = l_.count0[q];
            for (std::size_t y = 0; y < c1; ++y)
                transposeTiles(recv + at + y * P, c1 * P, out + y * P * n0, n0, cq, P);
            at += cq * c1 * P;
        }
}

// Inverse: the transposed spectrum [c][y local][P][z] is sent to rank q as [c][z of q][y local][P];
// what comes from rank s, [c][z local][y of s][P], lands at [c][z local][y][P].
template <typename C>
void SlabFft::packInverse(int count) {
    const std::size_t me = static_cast<std::size_t>(l_.rank), R = static_cast<std::size_t>(l_.ranks), P = l_.P, n1 = l_.n1,
                      n0 = l_.n0;
    const C* spec = reinterpret_cast<const C*>(spectrumHost_);
    C* send = reinterpret_cast<C*>(send_.data());
    const std::size_t c1 = l_.count1[me];
    std::size_t at = 0;
    for (std::size_t q = 0; q < R; ++q)
        for (int c = 0; c < count; ++c) {
            const C* in = spec + static_cast<std::size_t>(c) * c1 * P * n0 + l_.start0[q];
            const std::size_t cq = l_.count0[q];
            for (std::size_t y = 0; y < c1; ++y)
                transposeTiles(in + y * P * n0, n0, send + at + y * P, c1 * P, P, cq);
            at += cq * c1 * P;
        }
    exchange(count, false);
    const C* recv = reinterpret_cast<const C*>(recv_.data());
    C* slab = reinterpret_cast<C*>(slabHost_);
    const std::size_t c0 = l_.count0[me];
    at = 0;
    for (std::size_t s = 0; s < R; ++s)
        for (int c = 0; c < count; ++c)
            for (std::size_t z = 0; z < c0; ++z) {
                C* row = slab + (static_cast<std::size_t>(c) * c0 + z) * n1 * P + l_.start1[s] * P;
                std::memcpy(row, recv + at, l_.count1[s] * P * sizeof(C));
                at += l_.count1[s] * P;
            }
}

// Block sizes in complex elements: between ranks a and b, count * count0[a] * count1[b] * P going
// forward (a sends its planes' share of b's rows), the reverse going back.
void SlabFft::exchange(int count, bool forwardDirection) {
    const std::size_t R = static_cast<std::size_t>(l_.ranks), me = static_cast<std::size_t>(l_.rank);
    std::vector<std::size_t> sc(R), so(R), rc(R), ro(R);
    std::size_t sAt = 0, rAt = 0;
    for (std::size_t r = 0; r < R; ++r) {
        const std::size_t out = forwardDirection ? l_.count0[me] * l_.count1[r] : l_.count0[r] * l_.count1[me];
        const std::size_t in = forwardDirection ? l_.count0[r] * l_.count1[me] : l_.count0[me] * l_.count1[r];
        sc[r] = static_cast<std::size_t>(count) * out * l_.P;
        rc[r] = static_cast<std::size_t>(count) * in * l_.P;
        so[r] = sAt;
        ro[r] = rAt;
        sAt += sc[r];
        rAt += rc[r];
    }
    allToAll(send_.data(), sc, so, recv_.data(), rc, ro, complexBytes_, "the " + l_.describe() + " transform's transpose");
}

void SlabFft::forward(const cl::Buffer* real, const cl::Buffer* spectrum, int count) {
    if (count < 1 || count > kMaxComponents) throw Error("the distributed transform takes 1 to 3 components at once");
    double deviceSeconds = 0;  // the transforms this rank waits for, not part of the transpose
    const auto t0 = std::chrono::steady_clock::now();
    for (int c = 0; c < count; ++c) {
        planes_r2c_->execute(real[c], work_, fft::Direction::Forward);
        const auto tw = std::chrono::steady_clock::now();
        ctx_.finish();
        deviceSeconds += since(tw);
        ctx_.read(work_, slabHost_ + static_cast<std::size_t>(c) * workBytes_, workBytes_, "slab spectrum to host");
    }
    if (prec_ == Precision::Double) packForward<std::complex<double>>(count);
    else packForward<std::complex<float>>(count);
    const std::size_t specBytes = l_.spectralPoints() * complexBytes_;
    for (int c = 0; c < count; ++c)
        ctx_.write(spectrum[c], spectrumHost_ + static_cast<std::size_t>(c) * specBytes, specBytes, "transposed spectrum to device");
    transposeSeconds_ += since(t0) - deviceSeconds;
    for (int c = 0; c < count; ++c) axis_->execute(spectrum[c], spectrum[c], fft::Direction::Forward);
}

void SlabFft::inverse(const cl::Buffer* spectrum, const cl::Buffer* real, int count) {
    if (count < 1 || count > kMaxComponents) throw Error("the distributed transform takes 1 to 3 components at once");
    for (int c = 0; c < count; ++c) axis_->execute(spectrum[c], spectrum[c], fft::Direction::Inverse);
    ctx_.finish();
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t specBytes = l_.spectralPoints() * complexBytes_;
    for (int c = 0; c < count; ++c)
        ctx_.read(spectrum[c], spectrumHost_ + static_cast<std::size_t>(c) * specBytes, specBytes, "transposed spectrum to host");
    if (prec_ == Precision::Double) packInverse<std::complex<double>>(count);
    else packInverse<std::complex<float>>(count);
    transposeSeconds_ += since(t0);
    for (int c = 0; c < count; ++c) {
        // Each write waits for the previous component's C2R out of work_: device time, not counted.
        if (c > 0) ctx_.finish();
        const auto tc = std::chrono::steady_clock::now();
        ctx_.write(work_, slabHost_ + static_cast<std::size_t>(c) * workBytes_, workBytes_, "slab spectrum to device");
        transposeSeconds_ += since(tc);
        planes_c2r_->execute(work_, real[c], fft::Direction::Inverse);
    }
}

}  // namespace portacl::kwave::distributed
