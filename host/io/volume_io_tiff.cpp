// Multi-page TIFF stacks through libtiff: every directory is one z slice of the same size, one sample
// per pixel, 8/16/32-bit integers or 32/64-bit floats, in strips or tiles. The voxel size: x and y
// from the first page's XResolution and YResolution (pixels per unit), z and the unit from the
// ImageDescription ImageJ and Fiji write ("ImageJ=...", "spacing=", "unit="), as Fiji reads them;
// a file that gives x but no z spacing has cubic voxels. The binary stack writer puts them back the
// same way.
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "io/tiff_limits.hpp"
#include "io/volume_writers.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

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

// The value of `key=` in an ImageJ description (one key=value per line), or empty.
std::string imageJValue(const std::string& description, const std::string& key) {
    std::istringstream lines(description);
    std::string line;
    while (std::getline(lines, line))
        if (line.compare(0, key.size() + 1, key + "=") == 0) return line.substr(key.size() + 1);
    return "";
}

// Spacing and unit from the first page's tags; anything missing, zero or not finite stays as it was.
void readSpacing(TIFF* tif, Volume& v) {
    float xres = 0, yres = 0;
    std::uint16_t resUnit = RESUNIT_INCH;
    const bool hasX = TIFFGetField(tif, TIFFTAG_XRESOLUTION, &xres) == 1;
    const bool hasY = TIFFGetField(tif, TIFFTAG_YRESOLUTION, &yres) == 1;
    TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &resUnit);
    if (hasX && std::isfinite(xres) && xres > 0) v.spacing[2] = 1.0 / double(xres);
    if (hasY && std::isfinite(yres) && yres > 0) v.spacing[1] = 1.0 / double(yres);
    if ((hasX || hasY) && resUnit == RESUNIT_INCH) v.unit = "inch";
    if ((hasX || hasY) && resUnit == RESUNIT_CENTIMETER) v.unit = "cm";
    v.spacing[0] = v.spacing[2];  // no z spacing given: cubic voxels
    char* text = nullptr;
    if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &text) != 1 || !text) return;
    const std::string description(text);
    if (description.compare(0, 7, "ImageJ=") != 0) return;
    std::string unit = imageJValue(description, "unit");
    while (!unit.empty() && (unit.back() == ' ' || unit.back() == '\r')) unit.pop_back();
    while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
    if (unit == "\\u00B5m" || unit == "\u00b5m" || unit == "um") unit = "micron";  // ImageJ's escape of "µm"
    if (!unit.empty()) v.unit = unit;
    const std::string z = imageJValue(description, "spacing");
    char* end = nullptr;
    const double dz = z.empty() ? 0 : std::strtod(z.c_str(), &end);
    if (!z.empty() && end && *end == 0 && std::isfinite(dz) && dz > 0) v.spacing[0] = dz;
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
            readSpacing(tif, v);
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
    if (pages == 1) v.spacing[0] = 1;  // a picture has no z spacing
    return v;
}

namespace detail {

std::string tiffStackTooLarge(int nz, int ny, int nx) {
    // The pixels, the directories (at most 174 bytes a page) and 4 KiB for the header and description.
    const std::uint64_t bytes = std::uint64_t(nz) * ny * nx + 174ull * std::uint64_t(nz) + 4096;
    if (bytes <= 0xFFFFFFFFull) return "";
    return "a TIFF stack of " + std::to_string(nz) + "x" + std::to_string(ny) + "x" + std::to_string(nx) + " needs " +
           std::to_string(bytes >> 20) + " MiB, past the 4 GiB a classic TIFF holds; write .nii.gz, .h5 or .npy instead";
}

// The stack as ImageJ lays it out: the header, the description and the two resolutions, every page's
// directory, then the pages' pixels one after another. Readers of ImageJ files (ImageJ itself,
// tifffile) read a stack whose description counts its images as one block from the first page's
// offset, so the pixels must be contiguous, which libtiff's writer (data, directory, data, ...) is not.
void writeTiffStack(const std::string& target, const BinaryVolume& v) {
    const std::uint64_t slice = std::uint64_t(v.ny) * std::uint64_t(v.nx);
    std::ostringstream description;
    description.precision(17);
    description << "ImageJ=1.54f\nimages=" << v.nz << "\nslices=" << v.nz << "\n";
    if (!v.unit.empty()) description << "unit=" << v.unit << "\n";
    description << "spacing=" << v.spacing[0] << "\nloop=false\n";
    std::string text = description.str();
    text.push_back('\0');
    text.resize((text.size() + 1) / 2 * 2, '\0');  // keep what follows on a word boundary

    // 14 entries on the first page, 13 (no description) on the others.
    const std::uint64_t firstBytes = 2 + 12 * 14 + 4, otherBytes = 2 + 12 * 13 + 4;
    const std::uint64_t resolutions = 8 + text.size(), firstIfd = resolutions + 16;
    auto ifdAt = [&](int z) { return z == 0 ? firstIfd : firstIfd + firstBytes + otherBytes * std::uint64_t(z - 1); };
    const std::uint64_t pixels = ifdAt(v.nz);
    const std::uint64_t total = pixels + slice * std::uint64_t(v.nz);
    if (total > 0xFFFFFFFFull) throw Error("cannot write " + target + ": " + tiffStackTooLarge(v.nz, v.ny, v.nx));

    // 1/spacing as a rational num/den with both in 32 bits.
    auto rational = [](double spacing, std::string& out) {
        const double r = 1.0 / spacing;
        double den = 1e6;
        if (r * den > 4e9) den = std::max(1.0, std::floor(4e9 / r));
        if (r * den < 1e6) den = std::min(4e9, std::floor(1e6 / r));
        const std::uint32_t n = std::uint32_t(std::min(4e9, std::max(1.0, std::round(r * den)))), d = std::uint32_t(den);
        for (int k = 0; k < 4; ++k) out.push_back(char((n >> (8 * k)) & 0xFF));
        for (int k = 0; k < 4; ++k) out.push_back(char((d >> (8 * k)) & 0xFF));
    };
    auto put16 = [](std::string& out, std::uint32_t x) {
        out.push_back(char(x & 0xFF));
        out.push_back(char((x >> 8) & 0xFF));
    };
    auto put32 = [](std::string& out, std::uint64_t x) {
        for (int k = 0; k < 4; ++k) out.push_back(char((x >> (8 * k)) & 0xFF));
    };
    // A directory entry: a SHORT (3) or LONG (4) value held in the entry, or a count and an offset.
    auto entry = [&](std::string& out, std::uint16_t tag, std::uint16_t type, std::uint32_t count, std::uint64_t value) {
        put16(out, tag);
        put16(out, type);
        put32(out, count);
        if (type == 3) {
            put16(out, std::uint32_t(value));
            put16(out, 0);
        } else {
            put32(out, value);
        }
    };

    std::string head = "II";
    put16(head, 42);
    put32(head, firstIfd);
    head += text;
    rational(v.spacing[2], head);
    rational(v.spacing[1], head);
    for (int z = 0; z < v.nz; ++z) {
        std::string& o = head;
        put16(o, z == 0 ? 14 : 13);
        entry(o, 254, 4, 1, 0);                         // NewSubfileType
        entry(o, 256, 4, 1, std::uint32_t(v.nx));       // ImageWidth
        entry(o, 257, 4, 1, std::uint32_t(v.ny));       // ImageLength
        entry(o, 258, 3, 1, 8);                         // BitsPerSample
        entry(o, 259, 3, 1, 1);                         // Compression: none
        entry(o, 262, 3, 1, 1);                         // PhotometricInterpretation: black is zero
        if (z == 0) entry(o, 270, 2, std::uint32_t(std::strlen(text.c_str()) + 1), 8);  // ImageDescription
        entry(o, 273, 4, 1, pixels + slice * std::uint64_t(z));  // StripOffsets
        entry(o, 277, 3, 1, 1);                                  // SamplesPerPixel
        entry(o, 278, 4, 1, std::uint32_t(v.ny));                // RowsPerStrip
        entry(o, 279, 4, 1, slice);                              // StripByteCounts
        entry(o, 282, 5, 1, resolutions);                        // XResolution
        entry(o, 283, 5, 1, resolutions + 8);                    // YResolution
        entry(o, 296, 3, 1, 1);                                  // ResolutionUnit: none
        put32(o, z + 1 < v.nz ? ifdAt(z + 1) : 0);
    }
    writeFileAtomically(
        target,
        [&](std::ostream& out) {
            out.write(head.data(), std::streamsize(head.size()));
            std::vector<char> row(std::size_t(v.nx));
            for (std::size_t i = 0; i < v.mask.size(); i += row.size()) {
                for (std::size_t x = 0; x < row.size(); ++x) row[x] = v.mask[i + x] ? char(255) : char(0);
                out.write(row.data(), std::streamsize(row.size()));
            }
        },
        true);
}

}  // namespace detail

}  // namespace portacl::io
