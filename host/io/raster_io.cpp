// Rasters through GDAL's C API. GDAL's own messages are captured (never printed) and the last one
// becomes the reason in our one sentence. Outputs are written to a temporary beside the target by an
// explicitly named driver (so the temporary's name does not matter) and renamed when complete; an
// ESRI ASCII grid's coordinate system is written by us as a .prj in the same commit, since GDAL would
// name its .prj after the temporary.
#include "portacl/io/raster.hpp"

#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <ogr_srs_api.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/runtime/host_cores.hpp"

namespace portacl::io {
namespace {

void registerDrivers() {
    static std::once_flag once;
    std::call_once(once, [] {
        GDALAllRegister();
        // No .aux.xml side files: everything an output carries is in the file itself.
        CPLSetConfigOption("GDAL_PAM_ENABLED", "NO");
    });
}

// The elevation-model formats a DEM arrives in. GDAL knows some two hundred formats; the others
// (planetary archives, XML-described products, virtual rasters that name other files) are parsers
// a stranger's file could reach for no benefit, so they are not opened.
const std::vector<const char*>& elevationDrivers() {
    static const std::vector<const char*> names{"GTiff",  "AAIGrid", "GRASSASCIIGrid", "SRTMHGT", "DTED",
                                                "USGSDEM", "HFA",     "EHdr",           "ENVI",    "SAGA",
                                                "GSAG",   "GSBG",    "GS7BG",          "XYZ",     nullptr};
    return names;
}

std::string elevationFormatList() {
    std::string list;
    for (const char* name : elevationDrivers())
        if (name) list += (list.empty() ? "" : ", ") + std::string(name);
    return list;
}

// Collects GDAL's messages on this thread while it lives.
class CapturedErrors {
public:
    CapturedErrors() { CPLPushErrorHandlerEx(&CapturedErrors::handle, this); }
    ~CapturedErrors() { CPLPopErrorHandler(); }
    CapturedErrors(const CapturedErrors&) = delete;
    CapturedErrors& operator=(const CapturedErrors&) = delete;
    // The last failure's message, else "".
    const std::string& last() const { return last_; }

private:
    static void CPL_STDCALL handle(CPLErr level, CPLErrorNum, const char* message) {
        auto* self = static_cast<CapturedErrors*>(CPLGetErrorHandlerUserData());
        if (self && level >= CE_Failure && message) self->last_ = message;
    }
    std::string last_;
};

std::string lowerExtension(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

GDALDataType gdalType(RasterType t) {
    switch (t) {
        case RasterType::Byte: return GDT_Byte;
        case RasterType::Int16: return GDT_Int16;
        case RasterType::UInt16: return GDT_UInt16;
        case RasterType::Int32: return GDT_Int32;
        case RasterType::UInt32: return GDT_UInt32;
        case RasterType::Float32: return GDT_Float32;
        case RasterType::Float64: return GDT_Float64;
    }
    return GDT_Float64;
}

RasterType fromGdal(GDALDataType t) {
    switch (t) {
        case GDT_Byte: return RasterType::Byte;
        case GDT_Int16: return RasterType::Int16;
        case GDT_UInt16: return RasterType::UInt16;
        case GDT_Int32: return RasterType::Int32;
        case GDT_UInt32: return RasterType::UInt32;
        case GDT_Float32: return RasterType::Float32;
        default: return RasterType::Float64;
    }
}

std::string because(const CapturedErrors& errors, const std::string& fallback) {
    return errors.last().empty() ? fallback : errors.last();
}

// The coordinate system as ESRI's WKT (what ArcGIS and GDAL read from a .prj), or "" when GDAL cannot
// convert it.
std::string esriWkt(const std::string& wkt) {
    OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
    std::string out;
    char* text = nullptr;
    if (OSRSetFromUserInput(srs, wkt.c_str()) == OGRERR_NONE && OSRMorphToESRI(srs) == OGRERR_NONE &&
        OSRExportToWkt(srs, &text) == OGRERR_NONE && text)
        out = text;
    CPLFree(text);
    OSRDestroySpatialReference(srs);
    return out;
}

std::string prjPathFor(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + ".prj";
    return path.substr(0, dot) + ".prj";
}

// Rows [first, last) of band 1 into r.values as doubles; "" on success, "-" when GDAL failed (its
// message is with the caller's handler), else the reason.
std::string readRows(GDALDatasetH ds, Raster& r, int first, int last) {
    const int cols = r.frame.cols;
    if (GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 0, first, cols, last - first,
                     r.values.data() + std::size_t(first) * std::size_t(cols), cols, last - first, GDT_Float64, 0, 0) != CE_None)
        return "-";
    return "";
}

// Reads every cell. A large GeoTIFF is read in bands of whole block rows, each band by its own thread
// through its own handle (a GDAL dataset serves one thread at a time): the decoding and the widening
// to double, serial within one request, then run on all cores.
std::string readCells(GDALDatasetH ds, const std::string& path, Raster& r, int blockRows) {
    const int rows = r.frame.rows;
    const char* driver = GDALGetDriverShortName(GDALGetDatasetDriver(ds));
    const unsigned hardware = portacl::usableCores();
    const int step = std::max(blockRows, 1);
    const int blockBands = (rows + step - 1) / step;
    const int threads = int(std::min<std::size_t>({hardware, 32, std::size_t(blockBands), r.size() / (1u << 20) + 1}));
    if (std::strcmp(driver, "GTiff") != 0 || threads < 2) return readRows(ds, r, 0, rows);
    const int perBand = (blockBands + threads - 1) / threads * step;
    std::vector<std::string> failures(static_cast<std::size_t>(threads));
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t)
        helpers.emplace_back([&, t] {
            const int first = std::min(rows, t * perBand), last = std::min(rows, (t + 1) * perBand);
            if (first >= last) return;
            CapturedErrors errors;
            const char* const gtiff[] = {"GTiff", nullptr};
            GDALDatasetH own = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, gtiff, nullptr, nullptr);
            std::string& failure = failures[std::size_t(t)];
            if (!own) failure = because(errors, "GDAL could not open it again");
            else if (GDALGetRasterXSize(own) != r.frame.cols || GDALGetRasterYSize(own) != rows) failure = "it changed while it was read";
            else if (readRows(own, r, first, last) == "-") failure = because(errors, "GDAL could not read its cells");
            if (own) GDALClose(own);
        });
    failures[0] = readRows(ds, r, 0, std::min(rows, perBand));
    for (auto& h : helpers) h.join();
    for (const auto& f : failures)
        if (!f.empty()) return f;
    return "";
}

}  // namespace

const char* rasterTypeName(RasterType t) { return GDALGetDataTypeName(gdalType(t)); }

const std::vector<std::string>& rasterOutputExtensions() {
    static const std::vector<std::string> ext{"tif", "tiff", "asc", "d8", "out"};
    return ext;
}

Raster readRaster(const std::string& path) {
    registerDrivers();
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error("cannot read " + path + ": it is a folder, not a raster file");
    CapturedErrors errors;
    // A compressed GeoTIFF's tiles are decoded on all cores when one request spans many of them (the
    // whole grid is read in one request below); the option is read when the file is opened.
    const std::string previousThreads = CPLGetThreadLocalConfigOption("GDAL_NUM_THREADS", "");
    CPLSetThreadLocalConfigOption("GDAL_NUM_THREADS", "ALL_CPUS");
    GDALDatasetH ds =
        GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, elevationDrivers().data(), nullptr, nullptr);
    CPLSetThreadLocalConfigOption("GDAL_NUM_THREADS", previousThreads.empty() ? nullptr : previousThreads.c_str());
    if (!ds)
        throw Error("cannot read " + path + ": " +
                    because(errors, "it is none of the elevation formats read here (" + elevationFormatList() + ")"));
    struct Closer {
        GDALDatasetH h;
        ~Closer() { GDALClose(h); }
    } closer{ds};
    if (GDALGetRasterCount(ds) < 1) throw Error("cannot read " + path + ": it holds no raster band");
    Raster r;
    r.path = path;
    r.frame.cols = GDALGetRasterXSize(ds);
    r.frame.rows = GDALGetRasterYSize(ds);
    if (r.frame.rows <= 0 || r.frame.cols <= 0) throw Error("cannot read " + path + ": the raster has no cells");
    double gt[6];
    if (GDALGetGeoTransform(ds, gt) == CE_None) {
        std::copy(gt, gt + 6, r.frame.geoTransform.begin());
        r.frame.hasGeoTransform = true;
    }
    if (const char* wkt = GDALGetProjectionRef(ds)) r.frame.crsWkt = wkt;
    GDALRasterBandH band = GDALGetRasterBand(ds, 1);
    r.type = fromGdal(GDALGetRasterDataType(band));
    int has = 0;
    const double nd = GDALGetRasterNoDataValue(band, &has);
    r.hasNoData = has != 0;
    r.noData = nd;
    // A NoData value the cell type cannot hold (TauDEM's -3.4e38 on an Int16 grid) marks no cell.
    if (r.hasNoData && r.type != RasterType::Float32 && r.type != RasterType::Float64 &&
        (std::isnan(nd) || nd != std::floor(nd) || nd < -2147483648.0 || nd > 4294967295.0))
        r.hasNoData = false;
    if (r.hasNoData && r.type == RasterType::Float32 && !std::isnan(nd)) r.noData = double(float(nd));
    // A header of a few bytes can declare billions of cells, or thousands of bands that GDAL reads
    // together when they are interleaved: the bytes of every band's cells are held against what the
    // file can supply (any codec at most 65536 : 1, as for TIFF) and against the host's memory
    // before anything is allocated.
    const std::string what = "the raster " + path;
    const std::size_t cells = checkedProduct({std::uint64_t(r.frame.rows), std::uint64_t(r.frame.cols)}, what);
    const int cellBytes = GDALGetDataTypeSizeBytes(GDALGetRasterDataType(band));
    const std::size_t bandBytes = checkedMul(cells, std::size_t(cellBytes > 0 ? cellBytes : 1), what);
    const std::size_t bands = std::size_t(GDALGetRasterCount(ds));
    checkDeclaredSize(checkedMul(bandBytes, bands, what), fileSizeOf(path), 65536, what);
    // GDAL reads whole blocks (a TIFF's tiles or strips), and a header may declare blocks far larger
    // than the raster: 16 x 16 cells in tiles of 32768 x 32768 is a 1 GiB read for 256 cells.
    int blockCols = 0, blockRows = 0;
    GDALGetBlockSize(band, &blockCols, &blockRows);
    const std::string blocks = what + " (in blocks of " + std::to_string(blockCols) + " x " + std::to_string(blockRows) + " cells)";
    checkDeclaredSize(checkedProduct({std::uint64_t(std::max(blockCols, 1)), std::uint64_t(std::max(blockRows, 1)),
                                      std::uint64_t(cellBytes > 0 ? cellBytes : 1), bands},
                                     blocks),
                      fileSizeOf(path), 65536, blocks);
    checkHostAllocation(checkedMul(cells, sizeof(double), what), what);
    try {
        r.values.resize(cells);
    } catch (const std::bad_alloc&) {
        throw Error("cannot read " + path + ": its " + std::to_string(cells) + " cells do not fit in memory");
    }
    const std::string failure = readCells(ds, path, r, blockRows);
    if (!failure.empty()) throw Error("cannot read " + path + ": " + (failure == "-" ? because(errors, "GDAL could not read its cells") : failure));
    return r;
}

RasterCompression parseRasterCompression(const std::string& name) {
    if (name == "deflate") return RasterCompression::Deflate;
    if (name == "zstd") return RasterCompression::Zstd;
    if (name == "lzw") return RasterCompression::Lzw;
    if (name == "none") return RasterCompression::None;
    throw Error("the compression is deflate, zstd, lzw or none, not '" + name + "'");
}

const char* rasterCompressionName(RasterCompression c) {
    switch (c) {
        case RasterCompression::Deflate: return "deflate";
        case RasterCompression::Zstd: return "zstd";
        case RasterCompression::Lzw: return "lzw";
        case RasterCompression::None: return "none";
    }
    return "deflate";
}

namespace {

// GeoTIFF creation options. Every codec runs on all cores (GDAL compresses whole tiles in its thread
// pool); the fastest levels of Deflate and Zstd cost a few per cent of size against their defaults
// and are several times faster. No predictor: WhiteboxTools (2.0.6) reads a predicted file's cells
// undone, as garbage, without a word, and on the integer grids written here (codes, counts, labels)
// the horizontal predictor makes files larger and slower anyway.
char** tiffOptions(const RasterFrame& frame, RasterCompression compression) {
    char** options = nullptr;
    options = CSLSetNameValue(options, "BIGTIFF", "IF_SAFER");
    if (frame.cols >= 256 && frame.rows >= 256) options = CSLSetNameValue(options, "TILED", "YES");
    switch (compression) {
        case RasterCompression::Deflate:
            options = CSLSetNameValue(options, "COMPRESS", "DEFLATE");
            options = CSLSetNameValue(options, "ZLEVEL", "1");
            break;
        case RasterCompression::Zstd:
            options = CSLSetNameValue(options, "COMPRESS", "ZSTD");
            options = CSLSetNameValue(options, "ZSTD_LEVEL", "1");
            break;
        case RasterCompression::Lzw: options = CSLSetNameValue(options, "COMPRESS", "LZW"); break;
        case RasterCompression::None: break;
    }
    if (compression != RasterCompression::None) options = CSLSetNameValue(options, "NUM_THREADS", "ALL_CPUS");
    return options;
}

// The members of `group` an output needs (the file, and an ASCII grid's .prj), added before any
// thread writes.
struct PreparedOutput {
    const RasterOutput* raster = nullptr;
    AtomicOutput* file = nullptr;
    AtomicOutput* prj = nullptr;
    bool ascii = false;
    std::string prjText;
};

PreparedOutput prepareOutput(const RasterOutput& o, OutputGroup& group) {
    PreparedOutput p;
    p.raster = &o;
    if (!o.frame) throw Error("cannot write " + o.path + ": no frame given");
    if (o.cells.count != o.frame->size() || (!o.cells.data && o.cells.count > 0))
        throw Error("cannot write " + o.path + ": " + std::to_string(o.cells.count) + " values for a " +
                    std::to_string(o.frame->rows) + "x" + std::to_string(o.frame->cols) + " raster");
    const std::string ext = lowerExtension(o.path);
    p.ascii = ext == "asc" || ext == "d8" || ext == "out";
    if (!p.ascii && ext != "tif" && ext != "tiff" && !isSpecialOutput(o.path))
        throw Error("cannot write " + o.path + ": the name must end in .tif, .tiff, .asc, .d8 or .out");
    p.file = &group.add(o.path);
    if (p.ascii && !o.frame->crsWkt.empty() && !p.file->inPlace()) {
        p.prjText = esriWkt(o.frame->crsWkt);
        if (!p.prjText.empty()) p.prj = &group.add(prjPathFor(o.path));
    }
    return p;
}

// Writes one prepared output's temporary (and .prj); "" on success, else the sentence. Runs on any
// thread: GDAL's error handlers are per thread, and each output is its own dataset.
std::string writePrepared(const PreparedOutput& p, RasterCompression compression) {
    const RasterOutput& o = *p.raster;
    const RasterFrame& frame = *o.frame;
    CapturedErrors errors;
    const GDALDataType gtype = gdalType(o.type);
    auto fill = [&](GDALDatasetH ds, bool withCrs) {
        double gt[6];
        std::copy(frame.geoTransform.begin(), frame.geoTransform.end(), gt);
        if (frame.hasGeoTransform) GDALSetGeoTransform(ds, gt);
        if (withCrs && !frame.crsWkt.empty()) GDALSetProjection(ds, frame.crsWkt.c_str());
        GDALRasterBandH band = GDALGetRasterBand(ds, 1);
        if (o.hasNoData) GDALSetRasterNoDataValue(band, o.noData);
        return GDALRasterIO(band, GF_Write, 0, 0, frame.cols, frame.rows, const_cast<void*>(o.cells.data), frame.cols,
                            frame.rows, gdalType(o.cells.type), 0, 0) == CE_None;
    };
    bool ok = false;
    try {
        if (!p.ascii) {
            char** options = tiffOptions(frame, compression);
            GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), p.file->writePath().c_str(), frame.cols, frame.rows, 1,
                                         gtype, options);
            CSLDestroy(options);
            if (ds) {
                ok = fill(ds, true);
                GDALClose(ds);
                ok = ok && errors.last().empty();
            }
        } else {
            // The ASCII grid driver only copies: the values go through an in-memory raster first.
            GDALDatasetH mem = GDALCreate(GDALGetDriverByName("MEM"), "", frame.cols, frame.rows, 1, gtype, nullptr);
            if (mem && fill(mem, false)) {
                char** options = nullptr;
                if (o.type == RasterType::Float32) options = CSLSetNameValue(options, "SIGNIFICANT_DIGITS", "9");
                if (o.type == RasterType::Float64) options = CSLSetNameValue(options, "SIGNIFICANT_DIGITS", "17");
                GDALDatasetH ds = GDALCreateCopy(GDALGetDriverByName("AAIGrid"), p.file->writePath().c_str(), mem, FALSE,
                                                 options, nullptr, nullptr);
                CSLDestroy(options);
                if (ds) {
                    GDALClose(ds);
                    ok = errors.last().empty();
                }
            }
            if (mem) GDALClose(mem);
            if (ok && p.prj) writeFileContents(*p.prj, [&](std::ostream& os) { os << p.prjText; });
        }
    } catch (const std::exception& e) {
        return e.what();
    }
    if (!ok) return "cannot write " + o.path + ": " + because(errors, "GDAL could not create the file");
    return "";
}

}  // namespace

void writeRasters(const std::vector<RasterOutput>& outputs, RasterCompression compression) {
    registerDrivers();
    OutputGroup group;
    std::vector<PreparedOutput> prepared;
    prepared.reserve(outputs.size());
    for (const auto& o : outputs) prepared.push_back(prepareOutput(o, group));
    std::vector<std::string> failures(prepared.size());
    if (prepared.size() == 1) {
        failures[0] = writePrepared(prepared[0], compression);
    } else {
        // Each dataset on its own thread: GDAL's conversion of the cells and its tiling are serial
        // within one dataset, so separate outputs overlap them (the compression shares GDAL's pool).
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < prepared.size(); ++i)
            threads.emplace_back([&, i] { failures[i] = writePrepared(prepared[i], compression); });
        for (auto& t : threads) t.join();
    }
    for (const auto& f : failures)
        if (!f.empty()) throw Error(f);  // the group's temporaries are removed with it
    group.commit();
}

void writeRaster(const std::string& path, const RasterFrame& frame, RasterCells cells, RasterType type, bool hasNoData,
                 double noData, RasterCompression compression) {
    RasterOutput o;
    o.path = path;
    o.frame = &frame;
    o.cells = cells;
    o.type = type;
    o.hasNoData = hasNoData;
    o.noData = noData;
    writeRasters({o}, compression);
}

}  // namespace portacl::io
