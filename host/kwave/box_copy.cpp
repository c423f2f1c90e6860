#include "box_copy.hpp"

#include <algorithm>
#include <string>

#include "portacl/runtime/buffer_check.hpp"
#include "portacl/runtime/kernel_args.hpp"

namespace portacl::kwave {

void copyBox(Context& ctx, const cl::Buffer& src, const cl::Buffer& dst, const BoxCopy& box, Precision precision) {
    const std::size_t n = box.count();
    if (!n) return;
    if (precision != Precision::Float && precision != Precision::Double) throw Error("the box copy moves float or double complex values");
    const std::size_t bytes = precision == Precision::Double ? 16 : 8;
    requireBytes(src, box.srcEnd() * bytes, std::to_string(n) + " complex values", "the source of a box copy");
    requireBytes(dst, box.dstEnd() * bytes, std::to_string(n) + " complex values", "the destination of a box copy");
    // A box that transposes (the source not contiguous along dimension 0) goes through local-memory
    // tiles of 16 x 16; the others copy point by point with work-groups along dimension 0, as wide as
    // it is (up to 128), so that a narrow box wastes few work-items.
    constexpr std::size_t tile = 16;
    const bool transpose = box.srcStride[0] != 1 && ctx.device().maxWorkGroupSize >= tile * tile;
    cl::Kernel& k = ctx.kernel("kwave_box_copy.cl", transpose ? "kwave_box_transpose" : "kwave_box_copy", precision);
    auto u64 = [](std::size_t v) { return static_cast<cl_ulong>(v); };
    setArgs(k, 0, src, u64(box.srcOffset), u64(box.srcStride[0]), u64(box.srcStride[1]), u64(box.srcStride[2]), dst,
            u64(box.dstOffset), u64(box.dstStride[0]), u64(box.dstStride[1]), u64(box.dstStride[2]), u64(box.extent[0]),
            u64(box.extent[1]));
    const cl::NDRange global(box.extent[0], box.extent[1], box.extent[2]);
    if (transpose) {
        ctx.launch(k, global, cl::NDRange(tile, tile, 1));
        return;
    }
    std::size_t group = 1;
    while (group < box.extent[0] && group < 128 && group * 2 <= ctx.device().maxWorkGroupSize) group *= 2;
    ctx.launch(k, global, cl::NDRange(group, 1, 1));
}

}  // namespace portacl::kwave
