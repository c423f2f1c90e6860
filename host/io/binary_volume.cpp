// Binarisation of grey and labelled volumes, and the choice of the mask's writer by extension (the
// writers of TIFF, NIfTI and HDF5 live beside their readers).
#include <algorithm>
#include <cctype>
#include <sstream>

#include "io/volume_writers.hpp"
#include "portacl/io/binary_volume.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::io {
namespace {

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

std::string lowerExtension(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = path.substr(dot + 1);
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}

}  // namespace

namespace detail {

double micrometresPer(const std::string& unit) {
    std::string u = unit;
    std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (u == "micron" || u == "microns" || u == "um" || u == "\u00b5m" || u == "\\u00b5m" || u == "micrometer" || u == "micrometre") return 1;
    if (u == "nm" || u == "nanometer" || u == "nanometre") return 1e-3;
    if (u == "mm" || u == "millimeter" || u == "millimetre") return 1e3;
    if (u == "cm" || u == "centimeter" || u == "centimetre") return 1e4;
    if (u == "m" || u == "meter" || u == "metre") return 1e6;
    if (u == "inch") return 25400;
    return 0;
}

}  // namespace detail

std::uint64_t BinaryVolume::count() const {
    std::uint64_t n = 0;
    for (auto m : mask) n += m;
    return n;
}

std::string Binarisation::describe() const {
    switch (rule) {
        case Rule::Threshold: return "voxels >= " + number(value);
        case Rule::Label: return "voxels == " + number(value);
        default: return "non-zero voxels";
    }
}

BinaryVolume emptyLike(const BinaryVolume& v) {
    BinaryVolume out;
    out.nz = v.nz, out.ny = v.ny, out.nx = v.nx;
    out.mask.assign(v.size(), 0);
    out.spacing = v.spacing;
    out.unit = v.unit;
    out.worldCode = v.worldCode;
    out.worldFromVoxel = v.worldFromVoxel;
    return out;
}

BinaryVolume binarise(const Volume& v, const Binarisation& b, bool allowFull) {
    if (!v.is3d())
        throw Error("the input is a 2-D image (" + std::to_string(v.nx) + "x" + std::to_string(v.ny) +
                    "); this command needs a 3-D volume (a TIFF stack, a 3-D .npy or HDF5 dataset)");
    BinaryVolume out;
    out.nz = v.nz;
    out.ny = v.ny;
    out.nx = v.nx;
    out.spacing = v.spacing;
    out.unit = v.unit;
    out.worldCode = v.worldCode;
    out.worldFromVoxel = v.worldFromVoxel;
    out.mask.resize(v.size());
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const double d = v.data[i];
        const bool on = b.rule == Binarisation::Rule::Threshold ? d >= b.value
                        : b.rule == Binarisation::Rule::Label   ? d == b.value
                                                                : d != 0;
        out.mask[i] = on ? 1 : 0;
        n += on;
    }
    if (n == 0) throw Error("no voxel is selected (" + b.describe() + "): the object is empty");
    if (n == v.size() && !allowFull)
        throw Error("every voxel is selected (" + b.describe() + "): the object fills the whole volume");
    return out;
}

void checkBinaryVolume(const BinaryVolume& v, const std::string& what) {
    if (v.nz <= 0 || v.ny <= 0 || v.nx <= 0)
        throw Error(what + ": the volume has no voxels (" + std::to_string(v.nz) + "x" + std::to_string(v.ny) + "x" +
                    std::to_string(v.nx) + ")");
    if (v.mask.size() != v.size())
        throw Error(what + ": the mask holds " + std::to_string(v.mask.size()) + " values for " +
                    std::to_string(v.size()) + " voxels");
    for (auto m : v.mask)
        if (m > 1) throw Error(what + ": the mask holds values other than 0 and 1");
}

bool isNiftiGz(const std::string& path) {
    return lowerExtension(path) == "gz" && lowerExtension(path.substr(0, path.size() - 3)) == "nii";
}

void checkBinaryVolumeOutputName(const std::string& path, const std::string& option) {
    if (isNiftiGz(path)) return;
    checkOutputExtension(path, {"tif", "tiff", "npy", "nii", "nii.gz", "h5", "hdf5"}, option);
}

void checkBinaryVolumeFits(const std::string& path, int nz, int ny, int nx, const std::string& option) {
    const std::string ext = lowerExtension(path);
    std::string why;
    if (ext == "tif" || ext == "tiff") why = detail::tiffStackTooLarge(nz, ny, nx);
    if (ext == "nii" || isNiftiGz(path)) why = detail::nifti1TooLarge(nz, ny, nx);
    if (!why.empty()) throw Error("cannot write " + path + " (" + option + "): " + why);
}

void writeBinaryVolume(const std::string& path, const BinaryVolume& v, const std::string& dataset) {
    const std::string ext = lowerExtension(path);
    if (ext == "tif" || ext == "tiff") return detail::writeTiffStack(path, v);
    if (ext == "nii" || isNiftiGz(path)) return detail::writeNifti1(path, v, ext == "gz");
    if (ext == "h5" || ext == "hdf5") return detail::writeHdf5Mask(path, v, dataset);
    Volume g;
    g.nz = v.nz;
    g.ny = v.ny;
    g.nx = v.nx;
    g.data.assign(v.mask.begin(), v.mask.end());
    writeNpyU8(path, g);
}

}  // namespace portacl::io
