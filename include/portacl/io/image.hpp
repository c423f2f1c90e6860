// Raster images on the host: one in-memory layout for every workload, read and written through
// well-kept libraries (libpng, libtiff, stb for BMP, libnetpbm for PGM/PPM), chosen by the file's
// extension on write and by its leading bytes on read.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace portacl::io {

// Sample type of every channel: 8-bit unsigned, 16-bit unsigned, 32-bit IEEE float.
enum class PixelType { U8, U16, F32 };

// "u8", "u16", "f32"
PORTACL_API const char* pixelTypeName(PixelType t);
// 1, 2 or 4
PORTACL_API std::size_t bytesPerSample(PixelType t);

// Row-major, channels interleaved (grey, grey+alpha, RGB, RGBA), samples in native byte order.
// data.size() == width * height * channels * bytesPerSample(type).
struct PORTACL_API Image {
    int width = 0, height = 0, channels = 0;
    PixelType type = PixelType::U8;
    std::vector<unsigned char> data;

    std::size_t pixelCount() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
    std::size_t sampleCount() const { return pixelCount() * static_cast<std::size_t>(channels); }
    std::size_t byteCount() const { return sampleCount() * bytesPerSample(type); }

    // Typed views of data (T must match type: unsigned char, unsigned short or float).
    template <typename T> T* samples() { return reinterpret_cast<T*>(data.data()); }
    template <typename T> const T* samples() const { return reinterpret_cast<const T*>(data.data()); }
};

// An image of this shape with every sample zero. Throws portacl::Error for a non-positive size or a
// channel count other than 1 to 4.
PORTACL_API Image makeImage(int width, int height, int channels, PixelType type);

// Reads PNG (8/16-bit grey, grey+alpha, RGB, RGBA; palette expanded to RGB/RGBA), TIFF (8/16-bit
// unsigned or 32-bit float, 1 to 4 samples per pixel, contiguous or separate planes), BMP (any depth
// stb reads; grey when the file's palette is grey) and PGM/PPM (maxval up to 65535; maxval > 255
// gives U16, other maxvals are kept as read, not rescaled). Throws portacl::Error with one sentence
// for an unreadable, truncated or unsupported file.
PORTACL_API Image readImage(const std::string& path);

// Writes by extension: .png (U8/U16), .tif/.tiff (U8/U16/F32), .bmp (U8; grey and grey+alpha are
// stored as RGB/RGBA), .pgm (1 channel) / .ppm (3 channels) / .pnm (U8/U16). Atomic: writes
// <path>.tmp.<pid> and renames it, so a failure leaves no file at <path>. Throws portacl::Error for a
// format that cannot hold the image (float PNG, 2-channel PPM ...) or a write failure.
PORTACL_API void writeImage(const std::string& path, const Image& img);

// The extensions writeImage takes (lower case, no dot), for checking an output name before the work.
PORTACL_API const std::vector<std::string>& writableImageExtensions();

}  // namespace portacl::io
