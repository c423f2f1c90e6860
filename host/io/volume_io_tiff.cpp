// Multi-page TIFF stacks through libtiff: every directory is one z slice of the same size, one sample
// per pixel, 8/16/32-bit integers or 32/64-bit floats, in strips or tiles.
#include <tiffio.h>

#include <cstring>
#include <limits>
#include <vector>

#include "io/tiff_limits.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io {
namespace {

double sampleAt(const unsigned char* p, int bits, int format) {
    switch (bits) {
        case 8: return format == SAMPLEFORMAT_INT ? double(*reinterpret_cast<const std::int8_t*>(p)) : double(*p);
        case 16: {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            return format == SAMPLEFORMAT_INT ? double(std::int16_t(v)) : double(v);
        }
        case 32: {
            if (format == SAMPLEFORMAT_IEEEFP) {
                float f;
                std::memcpy(&f, p, 4);
                return f;
            }
            std::uint32_t v;
            std::memcpy(&v, p, 4);
            return format == SAMPLEFORMAT_INT ? double(std::int32_t(v)) : double(v);
        }
        default: {
            double d;
            std::memcpy(&d, p, 8);
            return d;
        }
    }
}

}  // namespace

Volume readTiffStack(const std::string& path) {
    TIFFSetWarningHandler(nullptr);
    TIFFSetErrorHandler(nullptr);
    TIFF* tif = TIFFOpen(path.c_str(), "r");
    if (!tif) throw Error("cannot open " + path + " as a TIFF file");
    struct Closer {
        TIFF* t;
        ~Closer() { TIFFClose(t); }
    } closer{tif};
    Volume v;
    int pages = 0;
    const std::uint64_t fileBytes = fileSizeOf(path);
    std::uint64_t declaredTotal = 0;  // decoded bytes of every page so far, held against the file too
    do {
        std::uint32_t w = 0, h = 0;
        std::uint16_t bits = 8, spp = 1, format = SAMPLEFORMAT_UINT;
        TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
        TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
        TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
        if (spp != 1) throw Error(path + " has " + std::to_string(spp) + " samples per pixel; a stack needs grey pages");
        const bool okBits = bits == 8 || bits == 16 || bits == 32 || (bits == 64 && format == SAMPLEFORMAT_IEEEFP);
        if (!okBits || format == SAMPLEFORMAT_COMPLEXINT || format == SAMPLEFORMAT_COMPLEXIEEEFP)
            throw Error(path + " has " + std::to_string(bits) + "-bit samples of a kind this reader does not handle");
        if (pages == 0) {
            v.ny = int(h);
            v.nx = int(w);
            v.elementType = std::string(format == SAMPLEFORMAT_IEEEFP ? "float" : format == SAMPLEFORMAT_INT ? "int" : "uint") +
                            std::to_string(bits);
        } else if (int(h) != v.ny || int(w) != v.nx) {
            throw Error(path + ": page " + std::to_string(pages + 1) + " is " + std::to_string(w) + "x" + std::to_string(h) +
                        ", unlike the first page's " + std::to_string(v.nx) + "x" + std::to_string(v.ny));
        }
        const std::size_t bps = bits / 8, base = v.data.size();
        detail::checkTiffPage(tif, path, pages + 1, w, h, bps, fileBytes);
        declaredTotal = checkedAdd(declaredTotal, std::uint64_t(w) * h * bps, "TIFF stack " + path);
        checkDeclaredSize(declaredTotal, fileBytes, detail::tiffExpansionLimit(tif), "TIFF stack " + path);
        checkHostAllocation(checkedMul(base + std::size_t(w) * h, sizeof(double), "TIFF stack " + path), "TIFF stack " + path);
        if (pages == std::numeric_limits<int>::max()) throw Error(path + " has more pages than this reader can hold");
        v.data.resize(base + std::size_t(w) * h);
        if (TIFFIsTiled(tif)) {
            std::uint32_t tw = 0, th = 0;
            TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
            TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
            std::vector<unsigned char> tile(TIFFTileSize(tif));
            for (std::uint32_t ty = 0; ty < h; ty += th)
                for (std::uint32_t tx = 0; tx < w; tx += tw) {
                    if (TIFFReadTile(tif, tile.data(), tx, ty, 0, 0) < 0) throw Error(path + " has an unreadable tile");
                    for (std::uint32_t y = ty; y < std::min(h, ty + th); ++y)
                        for (std::uint32_t x = tx; x < std::min(w, tx + tw); ++x)
                            v.data[base + std::size_t(y) * w + x] =
                                sampleAt(tile.data() + (std::size_t(y - ty) * tw + (x - tx)) * bps, bits, format);
                }
        } else {
            std::vector<unsigned char> line(TIFFScanlineSize(tif));
            for (std::uint32_t y = 0; y < h; ++y) {
                if (TIFFReadScanline(tif, line.data(), y, 0) < 0)
                    throw Error(path + " is truncated or corrupt (page " + std::to_string(pages + 1) + ", row " + std::to_string(y) + ")");
                for (std::uint32_t x = 0; x < w; ++x) v.data[base + std::size_t(y) * w + x] = sampleAt(line.data() + x * bps, bits, format);
            }
        }
        ++pages;
    } while (TIFFReadDirectory(tif));
    v.nz = pages;
    return v;
}

}  // namespace portacl::io
