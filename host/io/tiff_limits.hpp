// The checks both TIFF readers (pictures and stacks) make on a page before allocating for it: a size
// that fits the reader's int extents, tiles that are not empty and not larger than the page needs,
// and declared samples that the file's bytes can hold at the compression's largest expansion.
#pragma once

#include <tiffio.h>

#include <cstdint>
#include <limits>
#include <string>

#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io::detail {

// How far one byte of a strip can expand: 1 uncompressed, 1032 deflate (zlib's bound), 64 PackBits,
// and a stated 65536 for every other codec (LZW stays near 1300, JPEG near 256).
inline std::uint64_t tiffExpansionLimit(TIFF* tif) {
    std::uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    switch (compression) {
        case COMPRESSION_NONE: return 1;
        case COMPRESSION_ADOBE_DEFLATE:
        case COMPRESSION_DEFLATE: return kDeflateMaxRatio;
        case COMPRESSION_PACKBITS: return 64;
        default: return 65536;
    }
}

// Throws one sentence naming the file and page when the page's declared size is absurd.
inline void checkTiffPage(TIFF* tif, const std::string& path, int page, std::uint32_t w, std::uint32_t h,
                          std::uint64_t bytesPerPixel, std::uint64_t fileBytes) {
    const std::string where = "TIFF " + path + " (page " + std::to_string(page) + ")";
    if (w == 0 || h == 0 || w > std::uint32_t(std::numeric_limits<int>::max()) || h > std::uint32_t(std::numeric_limits<int>::max()))
        throw Error("cannot read " + where + ": its size " + std::to_string(w) + " x " + std::to_string(h) + " is empty or too large.");
    if (TIFFIsTiled(tif)) {
        std::uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        const std::uint64_t wMax = (std::uint64_t(w) + 15) / 16 * 16, hMax = (std::uint64_t(h) + 15) / 16 * 16;
        if (tw == 0 || th == 0 || tw > wMax || th > hMax)
            throw Error("cannot read " + where + ": its tiles of " + std::to_string(tw) + " x " + std::to_string(th) +
                        " do not fit a page of " + std::to_string(w) + " x " + std::to_string(h) + ".");
    }
    checkDeclaredSize(checkedProduct({w, h, bytesPerPixel}, where), fileBytes, tiffExpansionLimit(tif), where);
}

}  // namespace portacl::io::detail
