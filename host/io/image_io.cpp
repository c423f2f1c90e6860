// readImage/writeImage: format by leading bytes (read) or extension (write), atomic writes.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "io/image_formats.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::io {

const char* pixelTypeName(PixelType t) {
    switch (t) {
        case PixelType::U8: return "u8";
        case PixelType::U16: return "u16";
        case PixelType::F32: return "f32";
    }
    return "?";
}

std::size_t bytesPerSample(PixelType t) {
    switch (t) {
        case PixelType::U8: return 1;
        case PixelType::U16: return 2;
        case PixelType::F32: return 4;
    }
    return 1;
}

Image makeImage(int width, int height, int channels, PixelType type) {
    if (width <= 0 || height <= 0)
        throw Error("an image must have a positive size, not " + std::to_string(width) + "x" + std::to_string(height) + ".");
    if (channels < 1 || channels > 4)
        throw Error("an image must have 1 to 4 channels, not " + std::to_string(channels) + ".");
    checkHostAllocation(checkedProduct({std::uint64_t(width), std::uint64_t(height), std::uint64_t(channels), bytesPerSample(type)},
                                       "an image of " + std::to_string(width) + "x" + std::to_string(height)),
                        "an image of " + std::to_string(width) + "x" + std::to_string(height));
    Image img;
    img.width = width;
    img.height = height;
    img.channels = channels;
    img.type = type;
    img.data.assign(img.byteCount(), 0);
    return img;
}

namespace {

std::string lowerExtension(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

}  // namespace

Image readImage(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open image " + path + ": " + std::strerror(errno) + ".");
    unsigned char magic[8] = {};
    in.read(reinterpret_cast<char*>(magic), sizeof magic);
    const auto got = in.gcount();
    in.close();
    if (got >= 8 && std::memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0) return detail::readPng(path);
    if (got >= 4 && (std::memcmp(magic, "II*\0", 4) == 0 || std::memcmp(magic, "MM\0*", 4) == 0))
        return detail::readTiff(path);
    if (got >= 2 && magic[0] == 'B' && magic[1] == 'M') return detail::readBmp(path);
    if (got >= 2 && magic[0] == 'P' && magic[1] >= '1' && magic[1] <= '7')  // PBM too, to refuse it by name
        return detail::readPnm(path);
    if (got == 0) throw Error("image " + path + " is empty.");
    throw Error("image " + path + " is not a PNG, TIFF, BMP, PGM or PPM file.");
}

const std::vector<std::string>& writableImageExtensions() {
    static const std::vector<std::string> all = {"png", "tif", "tiff", "bmp", "pgm", "ppm", "pnm"};
    return all;
}

void writeImage(const std::string& path, const Image& img) {
    if (img.width <= 0 || img.height <= 0 || img.channels < 1 || img.channels > 4 || img.data.size() != img.byteCount())
        throw Error("cannot write " + path + ": the image is empty or its data does not match its size.");
    const std::string ext = lowerExtension(path);
    void (*writer)(const std::string&, const Image&) = nullptr;
    if (ext == "png") writer = detail::writePng;
    else if (ext == "tif" || ext == "tiff") writer = detail::writeTiff;
    else if (ext == "bmp") writer = detail::writeBmp;
    else if (ext == "pgm" || ext == "ppm" || ext == "pnm") writer = detail::writePnm;
    else
        throw Error("cannot write " + path + ": the extension must be .png, .tif, .tiff, .bmp, .pgm, .ppm or .pnm.");

    // What each format can hold, checked before anything is written.
    const bool pnm = ext == "pgm" || ext == "ppm" || ext == "pnm";
    if (img.type == PixelType::F32 && ext != "tif" && ext != "tiff")
        throw Error("cannot write " + path + ": ." + ext + " holds 8- or 16-bit samples, not float (write a .tif instead).");
    if (ext == "bmp" && img.type != PixelType::U8)
        throw Error("cannot write " + path + ": BMP holds 8-bit samples only (write a .png or .tif instead).");
    if (pnm && img.channels != 1 && img.channels != 3)
        throw Error("cannot write " + path + ": PGM/PPM hold 1 or 3 channels, not " + std::to_string(img.channels) + ".");
    if ((ext == "pgm" && img.channels != 1) || (ext == "ppm" && img.channels != 3))
        throw Error("cannot write " + path + ": a ." + ext + " file holds " + (ext == "pgm" ? "1 channel" : "3 channels") +
                    ", the image has " + std::to_string(img.channels) + ".");

    // Write a temporary beside the target and rename it: readers never see a half-written image.
    AtomicOutput out(path);
    try {
        writer(out.writePath(), img);
    } catch (const Error& e) {
        // The writers name the file they opened, the temporary; the user gave the final name.
        std::string message = e.what();
        for (auto at = message.find(out.writePath()); at != std::string::npos; at = message.find(out.writePath(), at))
            message.replace(at, out.writePath().size(), path);
        throw Error(message);
    }
    out.commit();
}

}  // namespace portacl::io
