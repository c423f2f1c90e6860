// TIFF through libtiff: 8/16-bit unsigned and 32-bit float samples, 1 to 4 per pixel (grey, grey +
// alpha, RGB, RGBA), strips or tiles, contiguous or separate planes; one page, or the pages of a
// multi-page stack. libtiff's error handler is process-wide; it keeps the last message for the
// one-sentence error.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "io/image_formats.hpp"
#include "io/tiff_limits.hpp"
#include "portacl/io/image_stack.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::io::detail {
namespace {

thread_local std::string lastTiffError;

void onTiffError(const char* module, const char* fmt, va_list ap) {
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    lastTiffError = buf;
}

struct TiffCloser {
    void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

TiffHandle openTiff(const std::string& path, const char* mode) {
    TIFFSetErrorHandler(onTiffError);
    TIFFSetWarningHandler(nullptr);
    lastTiffError = "unknown libtiff error";
    return TiffHandle(TIFFOpen(path.c_str(), mode));
}

[[noreturn]] void fail(const std::string& what, const std::string& path) {
    throw Error("cannot read TIFF " + path + ": " + what + ".");
}

// The current page of an open file.
Image readPage(TIFF* tif, const std::string& path, std::size_t page) {
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bps = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photometric = PHOTOMETRIC_MINISBLACK;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);

    PixelType type;
    if (bps == 8 && format == SAMPLEFORMAT_UINT) type = PixelType::U8;
    else if (bps == 16 && format == SAMPLEFORMAT_UINT) type = PixelType::U16;
    else if (bps == 32 && format == SAMPLEFORMAT_IEEEFP) type = PixelType::F32;
    else
        fail("unsupported sample type (" + std::to_string(bps) + "-bit " +
                 (format == SAMPLEFORMAT_IEEEFP ? "float" : format == SAMPLEFORMAT_INT ? "signed" : "unsigned") +
                 "; 8/16-bit unsigned and 32-bit float are supported)",
             path);
    if (spp < 1 || spp > 4) fail("unsupported channel count " + std::to_string(spp) + " (1 to 4 are supported)", path);
    if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_RGB)
        fail("unsupported photometric interpretation " + std::to_string(photometric) + " (grey or RGB are supported)", path);
    if (w == 0 || h == 0 || w > (1u << 30) / std::max<uint32_t>(h, 1)) fail("its size is empty or too large", path);
    checkTiffPage(tif, path, static_cast<int>(page + 1), w, h, bytesPerSample(type) * spp, fileSizeOf(path));

    Image img = makeImage(static_cast<int>(w), static_cast<int>(h), spp, type);
    const std::size_t bpsBytes = bytesPerSample(type);
    const std::size_t pixelBytes = bpsBytes * spp;
    const int planes = planar == PLANARCONFIG_SEPARATE ? spp : 1;
    // Copies a run of samples of plane p (or all channels when contiguous) into the interleaved image.
    auto place = [&](const unsigned char* src, uint32_t x0, uint32_t y, uint32_t count, int p) {
        unsigned char* dst = img.data.data() + (static_cast<std::size_t>(y) * w + x0) * pixelBytes;
        if (planes == 1) {
            std::memcpy(dst, src, count * pixelBytes);
        } else {
            for (uint32_t i = 0; i < count; ++i) std::memcpy(dst + i * pixelBytes + p * bpsBytes, src + i * bpsBytes, bpsBytes);
        }
    };
    if (TIFFIsTiled(tif)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        std::vector<unsigned char> tile(TIFFTileSize(tif));
        const std::size_t tileRow = static_cast<std::size_t>(tw) * (planes == 1 ? pixelBytes : bpsBytes);
        for (int p = 0; p < planes; ++p)
            for (uint32_t ty = 0; ty < h; ty += th)
                for (uint32_t tx = 0; tx < w; tx += tw) {
                    if (TIFFReadTile(tif, tile.data(), tx, ty, 0, static_cast<uint16_t>(p)) < 0) fail(lastTiffError, path);
                    for (uint32_t y = ty; y < std::min(h, ty + th); ++y)
                        place(tile.data() + (y - ty) * tileRow, tx, y, std::min(tw, w - tx), p);
                }
    } else {
        std::vector<unsigned char> line(TIFFScanlineSize(tif));
        for (int p = 0; p < planes; ++p)
            for (uint32_t y = 0; y < h; ++y) {
                if (TIFFReadScanline(tif, line.data(), y, static_cast<uint16_t>(p)) < 0) fail(lastTiffError, path);
                place(line.data(), 0, y, w, p);
            }
    }
    return img;
}

// One page's tags: its shape, deflate, and strips of libtiff's default size (or `rowsPerStrip`).
void setPageTags(TIFF* tif, const Image& img, uint32_t rowsPerStrip = 0) {
    const uint16_t bps = static_cast<uint16_t>(8 * bytesPerSample(img.type));
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<uint32_t>(img.width));
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<uint32_t>(img.height));
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, static_cast<uint16_t>(img.channels));
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bps);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, img.type == PixelType::F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, img.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    if (img.channels == 2 || img.channels == 4) {
        const uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &alpha);
    }
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rowsPerStrip ? rowsPerStrip : TIFFDefaultStripSize(tif, 0));
}

// One page's tags and samples into an open file (its directory is written by the caller).
void writePage(TIFF* tif, const std::string& path, const Image& img) {
    setPageTags(tif, img);
    const std::size_t stride = static_cast<std::size_t>(img.width) * img.channels * bytesPerSample(img.type);
    std::vector<unsigned char> line(stride);  // libtiff may modify the buffer it is given
    for (int y = 0; y < img.height; ++y) {
        std::memcpy(line.data(), img.data.data() + y * stride, stride);
        if (TIFFWriteScanline(tif, line.data(), static_cast<uint32_t>(y), 0) < 0)
            throw Error("cannot write TIFF " + path + ": " + lastTiffError + ".");
    }
}

// A TIFF file in memory, for libtiff's client procedures: a page is compressed into it on any thread.
struct MemoryTiff {
    std::vector<unsigned char> bytes;
    std::uint64_t at = 0;
};
tmsize_t memoryRead(thandle_t h, void* buf, tmsize_t n) {
    auto* m = static_cast<MemoryTiff*>(h);
    const std::uint64_t take = m->at >= m->bytes.size() ? 0 : std::min<std::uint64_t>(n, m->bytes.size() - m->at);
    std::memcpy(buf, m->bytes.data() + m->at, take);
    m->at += take;
    return static_cast<tmsize_t>(take);
}
tmsize_t memoryWrite(thandle_t h, void* buf, tmsize_t n) {
    auto* m = static_cast<MemoryTiff*>(h);
    if (m->at + n > m->bytes.size()) m->bytes.resize(m->at + n);
    std::memcpy(m->bytes.data() + m->at, buf, static_cast<std::size_t>(n));
    m->at += n;
    return n;
}
toff_t memorySeek(thandle_t h, toff_t off, int whence) {
    auto* m = static_cast<MemoryTiff*>(h);
    m->at = whence == SEEK_SET ? off : whence == SEEK_CUR ? m->at + off : m->bytes.size() + off;
    return m->at;
}
int memoryClose(thandle_t) { return 0; }
toff_t memorySize(thandle_t h) { return static_cast<MemoryTiff*>(h)->bytes.size(); }
int memoryMap(thandle_t, void**, toff_t*) { return 0; }
void memoryUnmap(thandle_t, void*, toff_t) {}

}  // namespace

Image readTiff(const std::string& path) {
    TiffHandle tif = openTiff(path, "r");
    if (!tif) fail(lastTiffError, path);
    return readPage(tif.get(), path, 0);
}

void writeTiff(const std::string& path, const Image& img) {
    TiffHandle tif = openTiff(path, "w");
    if (!tif) throw Error("cannot create TIFF " + path + ": " + lastTiffError + ".");
    writePage(tif.get(), path, img);
    TIFF* raw = tif.release();
    if (!TIFFFlush(raw)) {
        TIFFClose(raw);
        throw Error("cannot write TIFF " + path + ": " + lastTiffError + ".");
    }
    TIFFClose(raw);
}

}  // namespace portacl::io::detail

namespace portacl::io {

using detail::lastTiffError;

std::size_t tiffPageCount(const std::string& path) {
    detail::TiffHandle tif = detail::openTiff(path, "r");
    if (!tif) detail::fail(lastTiffError, path);
    return TIFFNumberOfDirectories(tif.get());
}

Image readTiffPage(const std::string& path, std::size_t page) {
    detail::TiffHandle tif = detail::openTiff(path, "r");
    if (!tif) detail::fail(lastTiffError, path);
    if (page > 0xffffu || !TIFFSetDirectory(tif.get(), static_cast<tdir_t>(page)))
        detail::fail("it has no page " + std::to_string(page + 1), path);
    return detail::readPage(tif.get(), path, page);
}

// A page's shape and its strips, compressed by libtiff's codec as the stack's own writing would.
struct TiffStackPage::Data {
    Image shape;  // without its pixels
    uint32_t rowsPerStrip = 0;
    std::vector<std::vector<unsigned char>> strips;
};

TiffStackPage TiffStackWriter::encode(const Image& page) {
    if (page.width <= 0 || page.height <= 0 || page.channels < 1 || page.channels > 4 || page.data.size() != page.byteCount())
        throw Error("cannot write a TIFF page: it is empty or its data does not match its size.");
    detail::MemoryTiff memory;
    TIFFSetErrorHandler(detail::onTiffError);
    TIFFSetWarningHandler(nullptr);
    lastTiffError = "unknown libtiff error";
    detail::TiffHandle tif(TIFFClientOpen("page", "w", &memory, detail::memoryRead, detail::memoryWrite, detail::memorySeek,
                                          detail::memoryClose, detail::memorySize, detail::memoryMap, detail::memoryUnmap));
    if (!tif) throw Error("cannot compress a TIFF page: " + lastTiffError + ".");
    detail::writePage(tif.get(), "a TIFF page", page);
    if (!TIFFFlushData(tif.get())) throw Error("cannot compress a TIFF page: " + lastTiffError + ".");
    auto data = std::make_shared<TiffStackPage::Data>();
    data->shape = makeImage(page.width, page.height, page.channels, page.type);
    data->shape.data.clear();
    data->shape.data.shrink_to_fit();
    TIFFGetField(tif.get(), TIFFTAG_ROWSPERSTRIP, &data->rowsPerStrip);
    toff_t* offsets = nullptr;
    toff_t* counts = nullptr;
    if (!TIFFGetField(tif.get(), TIFFTAG_STRIPOFFSETS, &offsets) || !TIFFGetField(tif.get(), TIFFTAG_STRIPBYTECOUNTS, &counts))
        throw Error("cannot compress a TIFF page: libtiff kept no strip offsets.");
    const uint32_t strips = TIFFNumberOfStrips(tif.get());
    for (uint32_t k = 0; k < strips; ++k) {
        if (offsets[k] + counts[k] > memory.bytes.size()) throw Error("cannot compress a TIFF page: a strip lies outside its file.");
        data->strips.emplace_back(memory.bytes.begin() + static_cast<std::ptrdiff_t>(offsets[k]),
                                  memory.bytes.begin() + static_cast<std::ptrdiff_t>(offsets[k] + counts[k]));
    }
    TiffStackPage out;
    out.data_ = std::move(data);
    return out;
}

struct TiffStackWriter::State {
    AtomicOutput out;
    detail::TiffHandle tif;
    std::size_t pages = 0;
    explicit State(const std::string& path) : out(path) {}
};

TiffStackWriter::TiffStackWriter(const std::string& path) : state_(std::make_unique<State>(path)) {
    state_->tif = detail::openTiff(state_->out.writePath(), "w");
    if (!state_->tif) throw Error("cannot create TIFF " + path + ": " + lastTiffError + ".");
}

TiffStackWriter::~TiffStackWriter() = default;  // uncommitted: AtomicOutput removes the temporary

void TiffStackWriter::append(const Image& page) {
    const std::string& path = state_->out.path();
    if (!state_->tif) throw Error("cannot add a page to TIFF " + path + ": it was committed.");
    if (page.width <= 0 || page.height <= 0 || page.channels < 1 || page.channels > 4 || page.data.size() != page.byteCount())
        throw Error("cannot write TIFF " + path + ": page " + std::to_string(state_->pages + 1) + " is empty or its data does not match its size.");
    try {
        detail::writePage(state_->tif.get(), state_->out.writePath(), page);
    } catch (const Error&) {
        throw Error("cannot write page " + std::to_string(state_->pages + 1) + " of TIFF " + path + ": " + lastTiffError + ".");
    }
    if (!TIFFWriteDirectory(state_->tif.get()))
        throw Error("cannot write page " + std::to_string(state_->pages + 1) + " of TIFF " + path + ": " + lastTiffError + ".");
    ++state_->pages;
}

void TiffStackWriter::append(const TiffStackPage& page) {
    const std::string& path = state_->out.path();
    if (!state_->tif) throw Error("cannot add a page to TIFF " + path + ": it was committed.");
    if (!page.data_) throw Error("cannot write TIFF " + path + ": page " + std::to_string(state_->pages + 1) + " was never encoded.");
    TIFF* tif = state_->tif.get();
    const auto fail = [&] {
        throw Error("cannot write page " + std::to_string(state_->pages + 1) + " of TIFF " + path + ": " + lastTiffError + ".");
    };
    detail::setPageTags(tif, page.data_->shape, page.data_->rowsPerStrip);
    for (std::size_t k = 0; k < page.data_->strips.size(); ++k) {
        auto& strip = page.data_->strips[k];
        if (TIFFWriteRawStrip(tif, static_cast<uint32_t>(k), const_cast<unsigned char*>(strip.data()), static_cast<tmsize_t>(strip.size())) < 0)
            fail();
    }
    if (!TIFFWriteDirectory(tif)) fail();
    ++state_->pages;
}

std::size_t TiffStackWriter::pages() const { return state_->pages; }

void TiffStackWriter::commit() {
    const std::string& path = state_->out.path();
    if (!state_->tif) throw Error("TIFF " + path + " was already committed.");
    if (state_->pages == 0) throw Error("cannot write TIFF " + path + ": it has no pages.");
    TIFF* raw = state_->tif.release();
    const bool flushed = TIFFFlush(raw) != 0;
    TIFFClose(raw);
    if (!flushed) throw Error("cannot write TIFF " + path + ": " + lastTiffError + ".");
    state_->out.commit();
}

}  // namespace portacl::io
