// NIfTI-1 and NIfTI-2 volumes (.nii, .nii.gz) through the NIfTI reference library (Debian's
// libnifti2-dev, which reads both): the header first, its sizes held against the file before the
// data is read; values scaled by scl_slope/scl_inter when the slope is set; the grid spacing kept.
#include <nifti2_io.h>

#include <cmath>
#include <cstring>

#include "portacl/io/volume.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io {
namespace {

struct NiftiImage {
    nifti_image* p = nullptr;
    ~NiftiImage() {
        if (p) nifti_image_free(p);
    }
};

template <typename T>
void convert(const void* data, std::size_t n, std::vector<double>& out) {
    const auto* s = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, s + i * sizeof(T), sizeof(T));
        out[i] = double(v);
    }
}

}  // namespace

Volume readNifti(const std::string& path) {
    nifti_set_debug_level(0);  // the library's own messages would repeat ours on stderr
    NiftiImage img;
    img.p = nifti_image_read(path.c_str(), 0);
    if (!img.p) throw Error("cannot read " + path + " as a NIfTI file (its header is missing or malformed)");
    const nifti_image& h = *img.p;
    for (int d = 4; d <= 7 && d <= h.ndim; ++d)
        if (h.dim[d] > 1) throw Error(path + " has " + std::to_string(h.ndim) + " dimensions; a volume has 2 or 3 (one time point)");
    if (h.nx < 1 || h.ny < 1 || h.nz < 1 || h.nx > 1 << 30 || h.ny > 1 << 30 || h.nz > 1 << 30)
        throw Error(path + " declares a grid of " + std::to_string(h.nx) + "x" + std::to_string(h.ny) + "x" + std::to_string(h.nz));
    const char* type = nullptr;
    switch (h.datatype) {
        case DT_UINT8: type = "uint8"; break;
        case DT_INT8: type = "int8"; break;
        case DT_INT16: type = "int16"; break;
        case DT_UINT16: type = "uint16"; break;
        case DT_INT32: type = "int32"; break;
        case DT_UINT32: type = "uint32"; break;
        case DT_INT64: type = "int64"; break;
        case DT_UINT64: type = "uint64"; break;
        case DT_FLOAT32: type = "float32"; break;
        case DT_FLOAT64: type = "float64"; break;
        default:
            throw Error(path + " holds NIfTI data type " + std::to_string(h.datatype) +
                        "; this reader takes integers and float32/float64 (one value per voxel)");
    }
    const std::size_t n = checkedProduct({std::uint64_t(h.nx), std::uint64_t(h.ny), std::uint64_t(h.nz)}, "NIfTI volume " + path);
    const std::size_t bytes = checkedMul(n, std::size_t(h.nbyper), "NIfTI volume " + path);
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    checkDeclaredSize(bytes, fileSizeOf(path), gz ? kDeflateMaxRatio : 1, "NIfTI volume " + path);
    checkHostAllocation(checkedAdd(bytes, checkedMul(n, sizeof(double), "NIfTI volume " + path), "NIfTI volume " + path),
                        "NIfTI volume " + path);
    if (nifti_image_load(img.p) != 0 || !img.p->data) throw Error(path + " is truncated or its data cannot be read");

    Volume v;
    v.nz = int(h.nz), v.ny = int(h.ny), v.nx = int(h.nx);
    v.elementType = type;
    v.data.resize(n);
    switch (h.datatype) {
        case DT_UINT8: convert<std::uint8_t>(h.data, n, v.data); break;
        case DT_INT8: convert<std::int8_t>(h.data, n, v.data); break;
        case DT_INT16: convert<std::int16_t>(h.data, n, v.data); break;
        case DT_UINT16: convert<std::uint16_t>(h.data, n, v.data); break;
        case DT_INT32: convert<std::int32_t>(h.data, n, v.data); break;
        case DT_UINT32: convert<std::uint32_t>(h.data, n, v.data); break;
        case DT_INT64: convert<std::int64_t>(h.data, n, v.data); break;
        case DT_UINT64: convert<std::uint64_t>(h.data, n, v.data); break;
        case DT_FLOAT32: convert<float>(h.data, n, v.data); break;
        default: convert<double>(h.data, n, v.data); break;
    }
    if (h.scl_slope != 0 && std::isfinite(h.scl_slope) && std::isfinite(h.scl_inter) && (h.scl_slope != 1 || h.scl_inter != 0))
        for (auto& d : v.data) d = h.scl_slope * d + h.scl_inter;
    const double dz = h.nz > 1 ? h.dz : 1;
    if (h.dx > 0 && h.dy > 0 && dz > 0 && std::isfinite(h.dx) && std::isfinite(h.dy) && std::isfinite(dz)) v.spacing = {dz, h.dy, h.dx};
    return v;
}

}  // namespace portacl::io
