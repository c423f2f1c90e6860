// Binarisation of grey and labelled volumes, and the mask's writers (.npy, multi-page TIFF).
#include <tiffio.h>

#include <algorithm>
#include <cctype>
#include <sstream>

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

void writeTiffStack(const std::string& target, const BinaryVolume& v) {
    TIFFSetWarningHandler(nullptr);
    TIFFSetErrorHandler(nullptr);
    AtomicOutput out(target);
    TIFF* tif = TIFFOpen(out.writePath().c_str(), "w");
    if (!tif) throw Error("cannot write " + target);
    std::vector<unsigned char> row(std::size_t(v.nx));
    bool ok = true;
    for (int z = 0; z < v.nz && ok; ++z) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, std::uint32_t(v.nx));
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, std::uint32_t(v.ny));
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, std::uint32_t(v.ny));
        TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
        TIFFSetField(tif, TIFFTAG_PAGENUMBER, z, v.nz);
        for (int y = 0; y < v.ny && ok; ++y) {
            for (int x = 0; x < v.nx; ++x) row[std::size_t(x)] = v.at(z, y, x) ? 255 : 0;
            ok = TIFFWriteScanline(tif, row.data(), std::uint32_t(y), 0) >= 0;
        }
        ok = ok && TIFFWriteDirectory(tif);
    }
    TIFFClose(tif);
    if (!ok) throw Error("cannot write " + target + " (is the disk full?)");
    out.commit();
}

}  // namespace

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

BinaryVolume binarise(const Volume& v, const Binarisation& b, bool allowFull) {
    if (!v.is3d())
        throw Error("the input is a 2-D image (" + std::to_string(v.nx) + "x" + std::to_string(v.ny) +
                    "); this command needs a 3-D volume (a TIFF stack, a 3-D .npy or HDF5 dataset)");
    BinaryVolume out;
    out.nz = v.nz;
    out.ny = v.ny;
    out.nx = v.nx;
    out.spacing = v.spacing;
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

void writeBinaryVolume(const std::string& path, const BinaryVolume& v) {
    const std::string ext = lowerExtension(path);
    if (ext == "tif" || ext == "tiff") return writeTiffStack(path, v);
    Volume g;
    g.nz = v.nz;
    g.ny = v.ny;
    g.nx = v.nx;
    g.data.assign(v.mask.begin(), v.mask.end());
    writeNpyU8(path, g);
}

}  // namespace portacl::io
