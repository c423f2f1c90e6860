// PGM/PPM (plain or raw, maxval up to 65535) through libnetpbm's PAM interface. libnetpbm reports
// errors by calling a message function and then longjmp-ing to the buffer we set, so every call into
// it happens inside one setjmp frame that holds no C++ object needing destruction. Its error state
// is global, so its calls are serialised (a batch reads and writes on many threads). The header is
// always libnetpbm's; the raster of a raw file whose maxval is 255 or 65535 (every sample valid) is
// read and written here in one block, since libnetpbm's rows of tuples move about 70 MB/s.
#include <netpbm/pam.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "io/image_formats.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io::detail {
namespace {

thread_local char netpbmMessage[512];

// libnetpbm's error handler, its jump buffer and its start-up are process-wide.
std::mutex netpbmMutex;

void onNetpbmError(const char* msg) { std::snprintf(netpbmMessage, sizeof netpbmMessage, "%s", msg); }

// Call with netpbmMutex held.
void initNetpbm() {
    static bool done = false;
    if (!done) {
        pm_init("portacl", 0);
        done = true;
    }
    pm_setusererrormsgfn(onNetpbmError);
    std::snprintf(netpbmMessage, sizeof netpbmMessage, "unknown libnetpbm error");
}

// What PAM_STRUCT_SIZE(tuple_type) computes, without its member access through a null pointer.
constexpr int pamStructSize() { return static_cast<int>(offsetof(struct pam, tuple_type) + sizeof(pam::tuple_type)); }

// Reads the header into pam; false on a libnetpbm error.
bool readHeader(std::FILE* f, struct pam* pam) {
    jmp_buf jb, *saved = nullptr;
    pm_setjmpbufsave(&jb, &saved);  // before setjmp: `saved` must not change after it
    if (setjmp(jb)) {
        pm_setjmpbuf(saved);
        return false;
    }
    pnm_readpaminit(f, pam, pamStructSize());
    pm_setjmpbuf(saved);
    return true;
}

// Reads every row into img (already sized); false on a libnetpbm error (a truncated file).
bool readRows(struct pam* pam, Image& img) {
    jmp_buf jb, *saved = nullptr;
    tuple* volatile row = nullptr;
    pm_setjmpbufsave(&jb, &saved);  // before setjmp: `saved` must not change after it
    if (setjmp(jb)) {
        pm_setjmpbuf(saved);
        if (row) pnm_freepamrow(row);
        return false;
    }
    row = pnm_allocpamrow(pam);
    for (int y = 0; y < pam->height; ++y) {
        pnm_readpamrow(pam, row);
        for (int x = 0; x < pam->width; ++x)
            for (unsigned c = 0; c < pam->depth; ++c) {
                const std::size_t i = (static_cast<std::size_t>(y) * pam->width + x) * pam->depth + c;
                if (img.type == PixelType::U16) img.samples<unsigned short>()[i] = static_cast<unsigned short>(row[x][c]);
                else img.data[i] = static_cast<unsigned char>(row[x][c]);
            }
    }
    pnm_freepamrow(row);
    pm_setjmpbuf(saved);
    return true;
}

// Writes the header; false on a libnetpbm error.
bool writeHeader(struct pam* pam) {
    jmp_buf jb, *saved = nullptr;
    pm_setjmpbufsave(&jb, &saved);  // before setjmp: `saved` must not change after it
    if (setjmp(jb)) {
        pm_setjmpbuf(saved);
        return false;
    }
    pnm_writepaminit(pam);
    pm_setjmpbuf(saved);
    return true;
}

// The raster of a raw file read as one block: 1 byte a sample, or 2 big-endian. False when the file
// ends early.
bool readRawRaster(std::FILE* f, Image& img) {
    const std::size_t samples = std::size_t(img.width) * img.height * img.channels;
    if (img.type == PixelType::U8) return std::fread(img.data.data(), 1, samples, f) == samples;
    std::vector<unsigned char> bytes(2 * samples);
    if (std::fread(bytes.data(), 1, bytes.size(), f) != bytes.size()) return false;
    unsigned short* out = img.samples<unsigned short>();
    for (std::size_t i = 0; i < samples; ++i) out[i] = static_cast<unsigned short>(bytes[2 * i] << 8 | bytes[2 * i + 1]);
    return true;
}

bool writeRawRaster(std::FILE* f, const Image& img) {
    const std::size_t samples = std::size_t(img.width) * img.height * img.channels;
    if (img.type == PixelType::U8) return std::fwrite(img.data.data(), 1, samples, f) == samples;
    std::vector<unsigned char> bytes(2 * samples);
    const unsigned short* in = img.samples<unsigned short>();
    for (std::size_t i = 0; i < samples; ++i) bytes[2 * i] = static_cast<unsigned char>(in[i] >> 8), bytes[2 * i + 1] = static_cast<unsigned char>(in[i]);
    return std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
}

}  // namespace

Image readPnm(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error("cannot open image " + path + ": " + std::strerror(errno) + ".");
    std::unique_lock<std::mutex> netpbm(netpbmMutex);
    initNetpbm();
    struct pam pam;
    if (!readHeader(f, &pam)) {
        std::fclose(f);
        throw Error("cannot read PGM/PPM " + path + ": " + netpbmMessage + ".");
    }
    if (pam.format == PBM_FORMAT || pam.format == RPBM_FORMAT || pam.depth < 1 || pam.depth > 4) {
        std::fclose(f);
        throw Error("cannot read " + path + (pam.depth < 1 || pam.depth > 4
                                                 ? ": " + std::to_string(pam.depth) + " channels are not supported (1 to 4 are)."
                                                 : ": 1-bit PBM is not supported (8- and 16-bit grey PGM and colour PPM are)."));
    }
    // The rest of a raw file's reading needs none of libnetpbm's state: the batch readers allocate
    // and fill their images side by side (a 4096^2 image's pages are faulted in as it is made).
    const bool raw = pam.format == RPGM_FORMAT || pam.format == RPPM_FORMAT;
    const bool rawBlock = raw && (pam.maxval == 255 || pam.maxval == 65535);
    if (rawBlock) netpbm.unlock();
    // The samples the header declares must be in the file: a raw sample takes 1 or 2 bytes, a plain
    // one at least a digit. Checked before the image is allocated (a 21-byte header can declare 2 GB).
    Image img;
    try {
        const bool binary = raw || pam.format == PAM_FORMAT;
        const std::uint64_t sampleBytes = binary ? (pam.maxval > 255 ? 2 : 1) : 1;
        if (pam.width <= 0 || pam.height <= 0)
            throw Error("cannot read PGM/PPM " + path + ": its size " + std::to_string(pam.width) + " x " +
                        std::to_string(pam.height) + " is empty.");
        const long here = std::ftell(f);
        const std::uint64_t left = fileSizeOf(path) - std::min<std::uint64_t>(fileSizeOf(path), here > 0 ? std::uint64_t(here) : 0);
        checkDeclaredSize(checkedProduct({std::uint64_t(pam.width), std::uint64_t(pam.height), pam.depth, sampleBytes},
                                         "the image of " + path),
                          left, 1, "PGM/PPM " + path);
        img = makeImage(pam.width, pam.height, static_cast<int>(pam.depth), pam.maxval > 255 ? PixelType::U16 : PixelType::U8);
    } catch (...) {
        std::fclose(f);
        throw;
    }
    if (rawBlock) {
        const bool whole = readRawRaster(f, img);
        std::fclose(f);
        if (!whole) throw Error("cannot read PGM/PPM " + path + ": the file ends before its last sample.");
        return img;
    }
    const bool ok = readRows(&pam, img);
    std::fclose(f);
    if (!ok) throw Error("cannot read PGM/PPM " + path + ": " + netpbmMessage + ".");
    return img;
}

void writePnm(const std::string& path, const Image& img) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw Error("cannot create " + path + ": " + std::strerror(errno) + ".");
    std::unique_lock<std::mutex> netpbm(netpbmMutex);
    initNetpbm();
    struct pam pam;
    std::memset(&pam, 0, sizeof pam);
    pam.size = sizeof pam;
    pam.len = pamStructSize();
    pam.file = f;
    pam.format = img.channels == 1 ? RPGM_FORMAT : RPPM_FORMAT;
    pam.plainformat = 0;
    pam.width = img.width;
    pam.height = img.height;
    pam.depth = static_cast<unsigned>(img.channels);
    pam.maxval = img.type == PixelType::U16 ? 65535 : 255;
    std::snprintf(pam.tuple_type, sizeof pam.tuple_type, "%s", img.channels == 1 ? PAM_PGM_TUPLETYPE : PAM_PPM_TUPLETYPE);
    // libnetpbm writes the header; the raster (raw, maxval 255 or 65535) goes out in one block.
    const bool ok = writeHeader(&pam) && (netpbm.unlock(), writeRawRaster(f, img));
    const bool closed = std::fclose(f) == 0;
    if (!ok) throw Error("cannot write PGM/PPM " + path + ": " + netpbmMessage + ".");
    if (!closed) throw Error("cannot write " + path + ": " + std::strerror(errno) + ".");
}

}  // namespace portacl::io::detail
