// The binary volume's writers, one per format, each in its format's file beside the reader; the
// dispatch by extension is writeBinaryVolume (binary_volume.cpp). Each writes a temporary and
// renames it over `path` only when every write and the close succeeded.
#pragma once

#include <string>

#include "portacl/io/binary_volume.hpp"

namespace portacl::io::detail {

void writeTiffStack(const std::string& path, const BinaryVolume& v);
void writeNifti1(const std::string& path, const BinaryVolume& v, bool gzipped);
void writeHdf5Mask(const std::string& path, const BinaryVolume& v, const std::string& dataset);

// Why a volume of this shape cannot be written in the format, or "" when it can.
std::string tiffStackTooLarge(int nz, int ny, int nx);
std::string nifti1TooLarge(int nz, int ny, int nx);

// The spacing's unit in micrometres ("micron", "um", "µm", "mm", "nm", "m", ...), or 0 when the
// unit is unknown or empty.
double micrometresPer(const std::string& unit);

}  // namespace portacl::io::detail
