// The distributed 3-D (and 2-D) real-to-complex and complex-to-real transforms over the slab
// decomposition (slab_layout.hpp): each rank's device transforms its planes (the 2-D R2C/C2R of each
// z plane, or the 1-D ones of each y row, through portacl::fft), the global transpose goes through
// host memory by one MPI all-to-all, and the device transforms the slab axis (1-D C2C, in place) in
// the transposed layout. Forward is unscaled, inverse scales by 1/N, as portacl::fft does.
//
// Every rank calls every transform (they are collective). Several components (u_x, u_y, u_z) go
// through one all-to-all.
#pragma once

#include <vector>

#include "portacl/fft.hpp"
#include "slab_layout.hpp"

namespace portacl::kwave::distributed {

class PORTACL_API SlabFft {  // exported for the distributed tests
public:
    SlabFft(Context& ctx, const SlabLayout& layout, Precision precision, fft::Backend backend);
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
    std::size_t deviceBytes() const { return workBytes_; }
    // Seconds spent in the host side of the transposes (device reads and writes, packing, MPI).
    double transposeSeconds() const { return transposeSeconds_; }

    static constexpr int kMaxComponents = 3;

private:
    template <typename C>
    void packForward(int count);
    template <typename C>
    void packInverse(int count);
    void exchange(int count, bool forwardDirection);

    Context& ctx_;
    SlabLayout l_;
    Precision prec_;
    std::size_t complexBytes_;
    std::size_t workBytes_;  // one component's slab spectrum before the transpose
    // One slab spectrum on the device, reused component after component: the blocking transfers of
    // the in-order queue order its reuse.
    cl::Buffer work_;
    fft::Plan* planes_r2c_ = nullptr;
    fft::Plan* planes_c2r_ = nullptr;
    fft::Plan* axis_ = nullptr;  // the slab axis, C2C in place
    // Device-side staging in pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped once): the transfers
    // to and from it run at the bus's DMA rate on GPUs. The all-to-all's buffers are MPI's own.
    cl::Buffer slabPinned_, spectrumPinned_;
    unsigned char* slabHost_ = nullptr;
    unsigned char* spectrumHost_ = nullptr;
    std::vector<unsigned char> send_, recv_;
    double transposeSeconds_ = 0;
};

}  // namespace portacl::kwave::distributed
