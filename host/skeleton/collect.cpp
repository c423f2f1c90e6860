// A thinning's result back on the host: the skeleton's voxels as a list, then as a volume.
#include "portacl/runtime/kernel_args.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton::detail {

std::vector<cl_uint> collectSkeleton(Context& ctx, cl::Kernel& collect, const cl::Buffer& img, const cl::Buffer& list, std::size_t padded,
                                     int py, int px) {
    cl::Buffer count = ctx.buffer(sizeof(cl_uint), "thinning skeleton size");
    ctx.fill(count, 0, sizeof(cl_uint), "clear thinning skeleton size");
    setArgs(collect, 0, img, list, count, cl_uint(padded), cl_int(py), cl_int(px));
    ctx.launch(collect, cl::NDRange(roundUp(padded, 256)), cl::NDRange(256));
    cl_uint kept = 0;
    ctx.read(count, &kept, sizeof kept, "read skeleton size");
    std::vector<cl_uint> voxels(kept);
    if (kept) ctx.read(list, voxels.data(), kept * sizeof(cl_uint), "download skeleton voxels");
    return voxels;
}

io::BinaryVolume volumeOfVoxels(const io::BinaryVolume& v, const std::vector<cl_uint>& voxels) {
    io::BinaryVolume out = io::emptyLike(v);
    for (const cl_uint i : voxels) out.mask[i] = 1;
    return out;
}

}  // namespace portacl::skeleton::detail
