// Binary 3-D volumes (object = 1, background = 0) for the volume workloads (box counting, thinning):
// a grey or labelled io::Volume binarised by a threshold or a label, with the refusals those
// workloads share (a 2-D image, a selection that is empty or fills the whole volume).
#pragma once

#include "portacl/export.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "portacl/io/volume.hpp"

namespace portacl::io {

// Voxels in C order (z, y, x), x fastest; mask is 0 or 1.
struct PORTACL_API BinaryVolume {
    int nz = 0, ny = 0, nx = 0;
    std::vector<std::uint8_t> mask;
    std::array<double, 3> spacing{1.0, 1.0, 1.0};  // voxel size (z, y, x), kept from the file
    std::string unit;                                // the spacing's unit as the file named it, or empty
    int worldCode = 0;                               // as io::Volume: kept from a NIfTI input
    std::array<double, 16> worldFromVoxel{};

    std::size_t size() const { return std::size_t(nz) * std::size_t(ny) * std::size_t(nx); }
    std::size_t index(int z, int y, int x) const { return (std::size_t(z) * ny + std::size_t(y)) * nx + std::size_t(x); }
    std::uint8_t at(int z, int y, int x) const { return mask[index(z, y, x)]; }
    std::uint64_t count() const;  // object voxels
};

// A volume of v's shape and metadata (spacing, unit, world transform) whose voxels are all background.
PORTACL_API BinaryVolume emptyLike(const BinaryVolume& v);

// How grey values become the object.
struct PORTACL_API Binarisation {
    enum class Rule { NonZero, Threshold, Label } rule = Rule::NonZero;
    double value = 0;  // Threshold: voxels >= value; Label: voxels == value
    std::string describe() const;  // "voxels >= 90", "voxels == 3", "non-zero voxels"
};

// The object of `v` under `b`. Throws one sentence when `v` is 2-D (`what` names the command's need,
// "thinning needs a 3-D volume"), when the rule selects no voxel, or, unless allowFull, every voxel.
PORTACL_API BinaryVolume binarise(const Volume& v, const Binarisation& b, bool allowFull = false);

// The same checks for a mask built by hand (tests, the library): dimensions positive, mask size, 0/1 values.
PORTACL_API void checkBinaryVolume(const BinaryVolume& v, const std::string& what);

// Writes the mask by extension, atomically, with its spacing and unit where the format holds them:
// .npy (uint8 0/1; no spacing); .tif/.tiff (uint8 0/255, one page per z slice, as Fiji writes it;
// x and y spacing as XResolution/YResolution, z spacing and the unit in an ImageJ ImageDescription);
// .nii/.nii.gz (NIfTI-1, uint8 0/1, spacing in pixdim, unit in xyzt_units when it is m, mm or micron,
// and a NIfTI input's voxel-to-world matrix as both its sform and qform);
// .h5/.hdf5 (uint8 0/1 in the dataset `dataset`, deflated in slices; float64[3] attributes spacing
// and, when the unit converts to micrometres, element_size_um, as Fiji and ilastik read it; a unit
// string attribute).
PORTACL_API void writeBinaryVolume(const std::string& path, const BinaryVolume& v, const std::string& dataset = "mask");

// Writes a picture (any format writeImage takes: .png, .tif, ...) of `object` and `overlay` (a mask
// of the same shape, its skeleton say) projected along z, y and x, side by side: a pixel is red
// where any overlay voxel lies on its ray, grey where only object voxels do, white elsewhere. Each
// voxel is a square of `scale` pixels (0: the largest that keeps the picture under 1600 pixels wide).
PORTACL_API void writeProjectionPicture(const std::string& path, const BinaryVolume& object, const BinaryVolume& overlay,
                                        int scale = 0);

// Throws one sentence naming `option` unless `path` ends in an extension writeBinaryVolume takes
// (.npy, .tif, .tiff, .nii, .nii.gz, .h5, .hdf5), or is a special file such as /dev/null.
PORTACL_API void checkBinaryVolumeOutputName(const std::string& path, const std::string& option);
// Throws one sentence naming `option` when a volume of this shape cannot be written to `path`'s
// format (a TIFF stack past 4 GiB, a NIfTI-1 extent past 32767), so that a command refuses before
// its work rather than after it.
PORTACL_API void checkBinaryVolumeFits(const std::string& path, int nz, int ny, int nx, const std::string& option);

}  // namespace portacl::io
