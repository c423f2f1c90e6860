// The distributed 3-D (and 2-D) real-to-complex and complex-to-real transforms over the slab
// decomposition (slab_layout.hpp): each rank's device transforms its planes (the 2-D R2C/C2R of each
// z plane, or the 1-D ones of each y row, through portacl::fft), the global transpose goes through
// host memory by one MPI all-to-all per component, and the device transforms the slab axis (1-D C2C,
// in place) in the transposed layout. Forward is unscaled, inverse scales by 1/N, as portacl::fft does.
//
// The transpose: the device packs what goes to each other rank into one contiguous block, already in
// the receiver's order (kwave/box_copy.hpp), and writes its own block straight into place; the host
// reads the packed blocks into pinned memory, exchanges them (cluster::BlockExchange: a shared-memory
// window copied by several threads when every rank runs on one node, else MPI_Alltoallv) and writes what arrives back,
// and the device moves each arriving block into place. Several components are pipelined: every
// component's transform, pack and read are queued first, and on GPUs each component's write-back and
// transform are queued as soon as its exchange is done, so that the device works while the host
// exchanges the next (on CPU devices after the last exchange, see overlap_).
//
// Every rank calls every transform (they are collective).
#pragma once

#include <memory>
#include <vector>

#include "portacl/cluster/block_exchange.hpp"
#include "portacl/fft.hpp"
#include "slab_layout.hpp"

namespace portacl::kwave::distributed {

// Where a rank's transposes spend their time (host clocks; device times are the profiler's events
// "transpose: to host", "transpose: to device" and kwave_box_copy, with --profile).
struct TransposeTimes {
    double exchangeSeconds = 0;  // in the exchange (cluster::BlockExchange)
    double waitSeconds = 0;      // waiting for the packed blocks' reads (and the device work queued before them)
    std::size_t transposes = 0;  // components transposed
    std::size_t hostBytes = 0;   // bytes this rank read to and wrote from host memory
    // The local Fourier basis's overlap exchanges: the device's time waiting for the planes written
    // back, beyond the work that ran beside their transfers (profiled; -1: the queues give no timestamps).
    double deviceWaitSeconds = 0;
};

class PORTACL_API SlabFft {  // exported for the distributed tests
public:
    // Pipelined components (see overlap_ below): Auto is on except on CPU devices.
    enum class Overlap { Auto, On, Off };
    SlabFft(Context& ctx, const SlabLayout& layout, Precision precision, fft::Backend backend, Overlap overlap = Overlap::Auto);
    ~SlabFft();  // unmaps the staging memory once the queue is done with it
    SlabFft(const SlabFft&) = delete;
    SlabFft& operator=(const SlabFft&) = delete;

    // real[c] (the rank's slab, layout.realPoints() reals) -> spectrum[c] (layout.spectralPoints()
    // complex values, transposed), for c < count (at most 3).
    void forward(const cl::Buffer* real, const cl::Buffer* spectrum, int count);
    // spectrum[c] -> real[c]; the spectra are overwritten.
    void inverse(const cl::Buffer* spectrum, const cl::Buffer* real, int count);
    void forward(const cl::Buffer& real, const cl::Buffer& spectrum) { forward(&real, &spectrum, 1); }
    void inverse(const cl::Buffer& spectrum, const cl::Buffer& real) { inverse(&spectrum, &real, 1); }

    const SlabLayout& layout() const { return l_; }
    std::size_t deviceBytes() const { return deviceBytes(l_, prec_); }
    // The device bytes of the transforms' own buffers for a layout (the slab spectrum and the
    // exchange block), for the memory check before anything is allocated.
    static std::size_t deviceBytes(const SlabLayout& layout, Precision precision);
    const TransposeTimes& times() const { return times_; }
    // How the blocks move between the ranks (BlockExchange::describe).
    const std::string& exchangeMethod() const { return rankExchange_->describe(); }

    static constexpr int kMaxComponents = 3;

private:
    // The box copies of one component's pack (before the exchange) and unpack (after it).
    void packForward(const cl::Buffer& spectrum);
    void unpackForward(const cl::Buffer& spectrum);
    void packInverse(const cl::Buffer& spectrum);
    void unpackInverse(const cl::Buffer& spectrum);
    // Component c's blocks: wait for its read, exchange; then queue the write of what arrived.
    void exchange(int c, const cl::Event& read, bool forwardDirection);
    void writeBack(int c, bool forwardDirection);
    template <typename First, typename Second>
    void pipeline(int count, bool forwardDirection, const First& first, const Second& second);

    Context& ctx_;
    SlabLayout l_;
    Precision prec_;
    std::size_t complexBytes_;
    // Queue each component's write, unpack and transform as soon as its exchange is done, so that the
    // device works while the host exchanges the next. Not on CPU devices, whose threads would compete
    // for the cores the host's MPI waits on: there every exchange comes first, then the device work.
    bool overlap_;
    // Complex elements this rank sends and receives per component (its own block excluded), the
    // forward direction's; the inverse swaps them. Per rank: counts and offsets of the blocks.
    std::size_t sendElems_ = 0, recvElems_ = 0;
    std::vector<std::size_t> sendCount_, sendOffset_, recvCount_, recvOffset_;
    // One slab spectrum [z local][y][P] and one exchange block on the device, reused component after
    // component: the in-order queue orders their reuse (each component's read is queued before the
    // next pack, every write after the last read).
    cl::Buffer work_, exchange_;
    fft::Plan* planes_r2c_ = nullptr;
    fft::Plan* planes_c2r_ = nullptr;
    fft::Plan* axis_ = nullptr;  // the slab axis, C2C in place
    // Pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped once), one block per component each way: the
    // transfers run at the bus's DMA rate on GPUs and MPI reads and writes them directly.
    cl::Buffer sendPinned_, recvPinned_;
    unsigned char* sendHost_ = nullptr;
    unsigned char* recvHost_ = nullptr;
    std::size_t blockBytes_ = 0;  // one component's share of sendHost_ and recvHost_
    // One component's blocks at a time, from sendHost_ to recvHost_.
    std::unique_ptr<cluster::BlockExchange> rankExchange_;
    TransposeTimes times_;
};

}  // namespace portacl::kwave::distributed
