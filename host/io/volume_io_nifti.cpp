// NIfTI-1 and NIfTI-2 volumes (.nii, .nii.gz) through the NIfTI reference library (Debian's
// libnifti2-dev, which reads both): the header first, its sizes held against the file before the
// data is read; values scaled by scl_slope/scl_inter when the slope is set; the grid spacing, its
// unit and the voxel-to-world matrix (sform, else qform) kept. The binary volume writer makes a single-file NIfTI-1 (the header of nifti1.h, written
// through zlib when gzipped), since the library picks compression from the name, and the name
// written is a temporary.
#include <nifti2_io.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "io/volume_writers.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

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
    if (h.dx > 0 && h.dy > 0 && dz > 0 && std::isfinite(h.dx) && std::isfinite(h.dy) && std::isfinite(dz)) {
        v.spacing = {dz, h.dy, h.dx};
        v.unit = h.xyz_units == NIFTI_UNITS_METER ? "m" : h.xyz_units == NIFTI_UNITS_MM ? "mm" : h.xyz_units == NIFTI_UNITS_MICRON ? "micron" : "";
    }
    const bool sform = h.sform_code > 0 && h.sform_code <= 4, qform = h.qform_code > 0 && h.qform_code <= 4;
    if (sform || qform) {
        const nifti_dmat44& m = sform ? h.sto_xyz : h.qto_xyz;
        bool finite = true;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) {
                v.worldFromVoxel[std::size_t(4 * r + c)] = m.m[r][c];
                finite = finite && std::isfinite(m.m[r][c]);
            }
        v.worldCode = finite ? (sform ? h.sform_code : h.qform_code) : 0;
        if (!finite) v.worldFromVoxel = {};
    }
    return v;
}

namespace detail {

std::string nifti1TooLarge(int nz, int ny, int nx) {
    if (nz <= 32767 && ny <= 32767 && nx <= 32767) return "";
    return "NIfTI-1 holds at most 32767 voxels along an axis, and this volume is " + std::to_string(nz) + "x" +
           std::to_string(ny) + "x" + std::to_string(nx) + "; write .h5 or .npy instead";
}

void writeNifti1(const std::string& target, const BinaryVolume& v, bool gzipped) {
    nifti_1_header h;
    std::memset(&h, 0, sizeof h);
    h.sizeof_hdr = 348;
    h.dim[0] = 3;
    const int extents[3] = {v.nx, v.ny, v.nz};
    if (const std::string why = nifti1TooLarge(v.nz, v.ny, v.nx); !why.empty()) throw Error("cannot write " + target + ": " + why);
    for (int i = 0; i < 3; ++i) h.dim[i + 1] = short(extents[i]);
    for (int i = 4; i < 8; ++i) h.dim[i] = 1;
    h.datatype = DT_UINT8;
    h.bitpix = 8;
    h.pixdim[0] = 1;  // qfac
    h.pixdim[1] = float(v.spacing[2]);
    h.pixdim[2] = float(v.spacing[1]);
    h.pixdim[3] = float(v.spacing[0]);
    for (int i = 4; i < 8; ++i) h.pixdim[i] = 1;
    h.vox_offset = 352;
    h.cal_min = 0;
    h.cal_max = 1;
    const double um = micrometresPer(v.unit);
    h.xyzt_units = um == 1e6 ? NIFTI_UNITS_METER : um == 1e3 ? NIFTI_UNITS_MM : um == 1 ? NIFTI_UNITS_MICRON : NIFTI_UNITS_UNKNOWN;
    if (v.worldCode > 0) {  // the input's place in the world, as sform and as the qform nearest it
        nifti_dmat44 m;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) m.m[r][c] = v.worldFromVoxel[std::size_t(4 * r + c)];
        for (int c = 0; c < 4; ++c) {
            h.srow_x[c] = float(m.m[0][c]);
            h.srow_y[c] = float(m.m[1][c]);
            h.srow_z[c] = float(m.m[2][c]);
        }
        double qb, qc, qd, qx, qy, qz, dx, dy, dz, qfac;
        nifti_dmat44_to_quatern(m, &qb, &qc, &qd, &qx, &qy, &qz, &dx, &dy, &dz, &qfac);
        h.quatern_b = float(qb), h.quatern_c = float(qc), h.quatern_d = float(qd);
        h.qoffset_x = float(qx), h.qoffset_y = float(qy), h.qoffset_z = float(qz);
        h.pixdim[0] = float(qfac);
        h.sform_code = h.qform_code = short(v.worldCode);
    }
    std::snprintf(h.descrip, sizeof h.descrip, "binary volume, 1 = object");
    std::memcpy(h.magic, "n+1", 4);
    const char extension[4] = {0, 0, 0, 0};  // no header extensions

    AtomicOutput out(target);
    bool ok = true;
    if (gzipped) {
        gzFile f = gzopen(out.writePath().c_str(), "wb6");
        if (!f) throw Error("cannot write " + target);
        ok = gzwrite(f, &h, sizeof h) == int(sizeof h) && gzwrite(f, extension, 4) == 4;
        // gzwrite takes an unsigned count: write the mask in slices.
        const std::size_t slice = std::size_t(v.ny) * std::size_t(v.nx);
        for (int z = 0; z < v.nz && ok; ++z)
            ok = gzwrite(f, v.mask.data() + std::size_t(z) * slice, unsigned(slice)) == int(slice);
        ok = gzclose(f) == Z_OK && ok;
    } else {
        std::FILE* f = std::fopen(out.writePath().c_str(), "wb");
        if (!f) throw Error("cannot write " + target);
        ok = std::fwrite(&h, sizeof h, 1, f) == 1 && std::fwrite(extension, 4, 1, f) == 1 &&
             std::fwrite(v.mask.data(), 1, v.mask.size(), f) == v.mask.size();
        ok = std::fclose(f) == 0 && ok;
    }
    if (!ok) throw Error("cannot write " + target + " (is the disk full?)");
    out.commit();
}

}  // namespace detail

}  // namespace portacl::io
