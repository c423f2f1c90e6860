// BMP through stb_image / stb_image_write (Debian's libstb). stb fills missing bytes of a short file
// with zeros, so the uncompressed pixel array's extent is checked against the file size first. A BMP
// of at most 8 bits per pixel whose pixels are all grey is returned with one channel (the thesis's
// grey BMPs); stb writes 24-bit RGB or 32-bit RGBA, so grey images are stored as RGB.
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "io/image_formats.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io::detail {
namespace {

std::uint32_t le32(const unsigned char* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (std::uint32_t(p[3]) << 24); }
std::uint16_t le16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

struct BmpHeader {
    int bitsPerPixel = 0;
};

// Reads the headers and refuses, before stb allocates anything, a header cut short, a compression
// stb does not decode, a size beyond stb's limit, and an uncompressed pixel array that would run past
// the end of the file (stb fills missing bytes with zeros, so a 40-byte file could claim gigabytes).
BmpHeader checkBmp(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const auto fileSize = static_cast<std::uint64_t>(in.tellg());
    in.seekg(0);
    unsigned char h[54] = {};
    in.read(reinterpret_cast<char*>(h), sizeof h);
    const auto got = static_cast<std::uint64_t>(in.gcount());
    if (got < 26) throw Error("cannot read BMP " + path + ": the file is truncated inside its header.");
    const std::uint32_t offset = le32(h + 10), infoSize = le32(h + 14);
    BmpHeader header;
    std::int64_t width = 0, height = 0;
    std::uint32_t compression = 0;
    if (infoSize == 12) {  // OS/2 core header: 16-bit unsigned sizes
        width = le16(h + 18);
        height = le16(h + 20);
        header.bitsPerPixel = le16(h + 24);
    } else if (infoSize >= 40) {
        if (got < 54) throw Error("cannot read BMP " + path + ": the file is truncated inside its header.");
        width = static_cast<std::int32_t>(le32(h + 18));
        height = static_cast<std::int32_t>(le32(h + 22));
        header.bitsPerPixel = le16(h + 28);
        compression = le32(h + 30);
    } else {
        throw Error("cannot read BMP " + path + ": its info header of " + std::to_string(infoSize) + " bytes is not a known kind.");
    }
    // BI_RGB, BI_BITFIELDS and BI_ALPHABITFIELDS are what stb decodes; RLE, JPEG and PNG payloads are not.
    if (compression != 0 && compression != 3 && compression != 6)
        throw Error("cannot read BMP " + path + ": compression " + std::to_string(compression) + " is not supported.");
    width = width < 0 ? -width : width;
    height = height < 0 ? -height : height;
    if (width == 0 || height == 0 || width > (1 << 24) || height > (1 << 24))
        throw Error("cannot read BMP " + path + ": its size " + std::to_string(width) + " x " + std::to_string(height) +
                    " is empty or larger than 16777216 pixels a side.");
    const std::uint64_t rowBytes = (static_cast<std::uint64_t>(width) * header.bitsPerPixel + 31) / 32 * 4;
    const std::uint64_t need = offset + rowBytes * static_cast<std::uint64_t>(height);
    if (need > fileSize)
        throw Error("cannot read BMP " + path + ": the file is truncated (" + std::to_string(fileSize) + " of " +
                    std::to_string(need) + " bytes).");
    return header;
}

}  // namespace

Image readBmp(const std::string& path) {
    const BmpHeader header = checkBmp(path);
    int w = 0, h = 0, n = 0;
    std::unique_ptr<unsigned char, void (*)(void*)> pixels(stbi_load(path.c_str(), &w, &h, &n, 0), stbi_image_free);
    if (!pixels) throw Error("cannot read BMP " + path + ": " + stbi_failure_reason() + ".");
    Image img = makeImage(w, h, n, PixelType::U8);
    std::memcpy(img.data.data(), pixels.get(), img.byteCount());
    if (n == 3 && header.bitsPerPixel > 0 && header.bitsPerPixel <= 8) {
        const unsigned char* p = img.data.data();
        bool grey = true;
        for (std::size_t i = 0; grey && i < img.pixelCount(); ++i) grey = p[3 * i] == p[3 * i + 1] && p[3 * i] == p[3 * i + 2];
        if (grey) {
            Image g = makeImage(w, h, 1, PixelType::U8);
            for (std::size_t i = 0; i < img.pixelCount(); ++i) g.data[i] = p[3 * i];
            return g;
        }
    }
    return img;
}

void writeBmp(const std::string& path, const Image& img) {
    const Image* src = &img;
    Image expanded;
    if (img.channels <= 2) {  // grey (+alpha) -> RGB(A), which is what stb writes
        expanded = makeImage(img.width, img.height, img.channels + 2, PixelType::U8);
        for (std::size_t i = 0; i < img.pixelCount(); ++i) {
            const unsigned char* s = img.data.data() + i * img.channels;
            unsigned char* d = expanded.data.data() + i * expanded.channels;
            d[0] = d[1] = d[2] = s[0];
            if (img.channels == 2) d[3] = s[1];
        }
        src = &expanded;
    }
    // stb's own file writer ignores failed writes; this callback counts them, and the close is checked.
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw Error("cannot create " + path + ": " + std::strerror(errno) + ".");
    struct Sink {
        std::FILE* file;
        bool failed;
        int error;
    } sink{f, false, 0};
    auto put = [](void* context, void* data, int size) {
        auto* s = static_cast<Sink*>(context);
        if (s->failed || size <= 0) return;
        if (std::fwrite(data, 1, static_cast<std::size_t>(size), s->file) != static_cast<std::size_t>(size)) {
            s->failed = true;
            s->error = errno;
        }
    };
    const int encoded = stbi_write_bmp_to_func(put, &sink, src->width, src->height, src->channels, src->data.data());
    if (!sink.failed && std::fflush(f) != 0) {
        sink.failed = true;
        sink.error = errno;
    }
    const bool closed = std::fclose(f) == 0;
    if (!encoded) throw Error("cannot write BMP " + path + ".");
    if (sink.failed || !closed)
        throw Error("cannot write " + path + ": " + std::strerror(sink.failed ? sink.error : errno) + ".");
}

}  // namespace portacl::io::detail
