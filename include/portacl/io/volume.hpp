// Scalar 2-D images and 3-D volumes for the microstructure workloads, read from NumPy .npy, HDF5
// datasets, multi-page TIFF, NIfTI, and the picture formats of io/image.hpp (PNG, TIFF, BMP, PGM).
#pragma once

#include "portacl/export.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace portacl::io {

// Values in C order (z, y, x), x fastest; a 2-D image has nz = 1. Every element type (8- to 64-bit
// integers, float, double, bool) is held as double, which is exact for labels up to 2^53.
struct PORTACL_API Volume {
    int nz = 1, ny = 0, nx = 0;
    std::vector<double> data;
    std::string elementType;  // what the file held: "uint8", "int32", "float64", ...
    // Voxel size (z, y, x) as the file gives it (NIfTI's pixdim; a TIFF's resolution tags and ImageJ's
    // spacing; HDF5's element_size_um or spacing attribute), else 1; and its unit as the file names
    // it ("micron", "mm"), empty when the file names none.
    std::array<double, 3> spacing{1.0, 1.0, 1.0};
    std::string unit;
    // Where the voxels lie, from a NIfTI file: the matrix (row-major 4x4) taking voxel (i, j, k, 1),
    // i along x, to world (x, y, z, 1), from its sform, else its qform; worldCode is that form's
    // NIFTI_XFORM_* code (1 scanner, 2 aligned, 3 Talairach, 4 MNI), 0 when the file gives none.
    int worldCode = 0;
    std::array<double, 16> worldFromVoxel{};

    std::size_t size() const { return std::size_t(nz) * std::size_t(ny) * std::size_t(nx); }
    bool is3d() const { return nz > 1; }
};

// By extension: .npy; .h5/.hdf5/.he5 (the dataset named by `dataset`, or the file's only dataset);
// .tif/.tiff (every page a z slice; one page gives a 2-D image; x and y spacing from XResolution and
// YResolution, z from ImageJ's spacing= in the ImageDescription); .nii/.nii.gz (NIfTI-1 or -2, one
// time point, scaled by scl_slope/scl_inter, spacing from pixdim); .png/.bmp/.pgm/.ppm (colour pictures
// are averaged over their colour channels, alpha ignored). Throws portacl::Error with one sentence
// for a missing, truncated or unsupported file, or an array that is not 2-D or 3-D.
PORTACL_API Volume readVolume(const std::string& path, const std::string& dataset = "");

PORTACL_API Volume readNpy(const std::string& path);
PORTACL_API Volume readHdf5Dataset(const std::string& path, const std::string& dataset);
PORTACL_API Volume readTiffStack(const std::string& path);
PORTACL_API Volume readNifti(const std::string& path);

// Writes an .npy (uint8) of the volume's values (rounded and clamped to 0..255), atomically.
PORTACL_API void writeNpyU8(const std::string& path, const Volume& v);

}  // namespace portacl::io
