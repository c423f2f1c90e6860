// PNG through libpng's classic API: palette and low-bit grey expanded to 8 bits, tRNS to alpha,
// 16-bit samples swapped to native order. libpng reports errors by longjmp; the error callback keeps
// the message so that the caller can throw it as one sentence after setjmp returns.
#include <png.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/image_formats.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io::detail {
namespace {

struct PngMessage {
    char text[256] = "unknown libpng error";
};

void onPngError(png_structp png, png_const_charp msg) {
    auto* m = static_cast<PngMessage*>(png_get_error_ptr(png));
    std::snprintf(m->text, sizeof m->text, "%s", msg);
    png_longjmp(png, 1);
}
void onPngWarning(png_structp, png_const_charp) {}

bool littleEndianHost() {
    const unsigned short one = 1;
    return *reinterpret_cast<const unsigned char*>(&one) == 1;
}

// Fills img from an opened file; false (with msg set) when libpng failed.
// `fileBytes` bounds the decoded size (a deflate stream expands at most 1032 : 1), checked before the
// pixels are allocated; a refusal is reported through msg like libpng's own errors.
bool readPngInto(std::FILE* f, std::uint64_t fileBytes, Image& img, std::vector<png_bytep>& rows,
                 PngMessage& msg) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &msg, onPngError, onPngWarning);
    if (!png) return false;
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
        return false;
    }
    png_init_io(png, f);
    png_read_info(png, info);
    png_set_expand(png);  // palette -> RGB, grey < 8 bits -> 8 bits, tRNS -> alpha
    if (png_get_bit_depth(png, info) == 16 && littleEndianHost()) png_set_swap(png);
    png_read_update_info(png, info);
    const int depth = png_get_bit_depth(png, info);
    img.width = static_cast<int>(png_get_image_width(png, info));
    img.height = static_cast<int>(png_get_image_height(png, info));
    img.channels = png_get_channels(png, info);
    img.type = depth == 16 ? PixelType::U16 : PixelType::U8;
    const std::uint64_t declared = std::uint64_t(png_get_rowbytes(png, info)) * png_get_image_height(png, info);
    try {
        if (img.width <= 0 || img.height <= 0) throw Error("the image is empty");
        checkDeclaredSize(declared, fileBytes, kDeflateMaxRatio, "its pixel data");
    } catch (const Error& e) {
        png_destroy_read_struct(&png, &info, nullptr);
        std::snprintf(msg.text, sizeof msg.text, "%s", e.what());
        return false;
    }
    img.data.resize(img.byteCount());
    rows.resize(img.height);
    const std::size_t stride = static_cast<std::size_t>(img.width) * img.channels * bytesPerSample(img.type);
    for (int y = 0; y < img.height; ++y) rows[y] = img.data.data() + y * stride;
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return true;
}

bool writePngFrom(std::FILE* f, const Image& img, std::vector<png_bytep>& rows, PngMessage& msg) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &msg, onPngError, onPngWarning);
    if (!png) return false;
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : nullptr);
        return false;
    }
    static const int colorTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                     PNG_COLOR_TYPE_RGB_ALPHA};
    png_init_io(png, f);
    png_set_IHDR(png, info, img.width, img.height, img.type == PixelType::U16 ? 16 : 8, colorTypes[img.channels - 1],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (img.type == PixelType::U16 && littleEndianHost()) png_set_swap(png);
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

}  // namespace

Image readPng(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error("cannot open image " + path + ": " + std::strerror(errno) + ".");
    Image img;
    std::vector<png_bytep> rows;
    PngMessage msg;
    const bool ok = readPngInto(f, fileSizeOf(path), img, rows, msg);
    std::fclose(f);
    if (!ok) {
        std::string why = msg.text;
        if (!why.empty() && why.back() == '.') why.pop_back();
        throw Error("cannot read PNG " + path + ": " + why + ".");
    }
    return img;
}

void writePng(const std::string& path, const Image& img) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw Error("cannot create " + path + ": " + std::strerror(errno) + ".");
    std::vector<png_bytep> rows(img.height);
    const std::size_t stride = static_cast<std::size_t>(img.width) * img.channels * bytesPerSample(img.type);
    for (int y = 0; y < img.height; ++y) rows[y] = const_cast<png_bytep>(img.data.data() + y * stride);
    PngMessage msg;
    const bool ok = writePngFrom(f, img, rows, msg);
    const bool closed = std::fclose(f) == 0;
    if (!ok) throw Error("cannot write PNG " + path + ": " + msg.text + ".");
    if (!closed) throw Error("cannot write " + path + ": " + std::strerror(errno) + ".");
}

}  // namespace portacl::io::detail
