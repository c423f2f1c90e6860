// A box of complex values copied between two strided layouts of device buffers (cl/kwave_box_copy.cl,
// point by point or, where it transposes, through local-memory tiles):
// the pack and unpack of the distributed solver's global transposes (distributed/slab_fft.cpp), with
// the serial reference the tests hold it to.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>

#include "portacl/runtime/context.hpp"

namespace portacl::kwave {

// extent[0] x extent[1] x extent[2] complex values; point (a, b, c) is read at
// srcOffset + a srcStride[0] + b srcStride[1] + c srcStride[2] and written at the same place of the
// destination's layout (offsets and strides in complex elements). Dimension 0 runs fastest across
// work-items: give it the destination's unit stride where there is one.
struct PORTACL_API BoxCopy {
    std::size_t extent[3] = {1, 1, 1};
    std::size_t srcOffset = 0, srcStride[3] = {1, 0, 0};
    std::size_t dstOffset = 0, dstStride[3] = {1, 0, 0};
    std::size_t count() const { return extent[0] * extent[1] * extent[2]; }
    // One past the last element read (src) or written (dst); 0 for an empty box.
    std::size_t srcEnd() const { return end(srcOffset, srcStride); }
    std::size_t dstEnd() const { return end(dstOffset, dstStride); }

private:
    std::size_t end(std::size_t offset, const std::size_t* stride) const {
        if (!count()) return 0;
        return offset + (extent[0] - 1) * stride[0] + (extent[1] - 1) * stride[1] + (extent[2] - 1) * stride[2] + 1;
    }
};

// Enqueues the copy on ctx's queue (complex elements of `precision`: float2 or double2); an empty box
// enqueues nothing. Throws portacl::Error when the box reaches past either buffer. src and dst must
// not overlap.
PORTACL_API void copyBox(Context& ctx, const cl::Buffer& src, const cl::Buffer& dst, const BoxCopy& box, Precision precision);

// The serial reference: the same copy on host arrays of complex values (std::complex<float|double>).
template <typename C>
void copyBoxReference(const C* src, C* dst, const BoxCopy& box) {
    for (std::size_t c = 0; c < box.extent[2]; ++c)
        for (std::size_t b = 0; b < box.extent[1]; ++b)
            for (std::size_t a = 0; a < box.extent[0]; ++a)
                dst[box.dstOffset + a * box.dstStride[0] + b * box.dstStride[1] + c * box.dstStride[2]] =
                    src[box.srcOffset + a * box.srcStride[0] + b * box.srcStride[1] + c * box.srcStride[2]];
}

}  // namespace portacl::kwave
