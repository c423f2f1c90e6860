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

#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

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
    GDALDatasetH ds =
        GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, elevationDrivers().data(), nullptr, nullptr);
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
    if (GDALRasterIO(band, GF_Read, 0, 0, r.frame.cols, r.frame.rows, r.values.data(), r.frame.cols, r.frame.rows,
                     GDT_Float64, 0, 0) != CE_None)
        throw Error("cannot read " + path + ": " + because(errors, "GDAL could not read its cells"));
    return r;
}

void writeRaster(const std::string& path, const RasterFrame& frame, const std::vector<double>& values, RasterType type,
                 bool hasNoData, double noData) {
    registerDrivers();
    if (values.size() != frame.size())
        throw Error("cannot write " + path + ": " + std::to_string(values.size()) + " values for a " +
                    std::to_string(frame.rows) + "x" + std::to_string(frame.cols) + " raster");
    const std::string ext = lowerExtension(path);
    const bool ascii = ext == "asc" || ext == "d8" || ext == "out";
    if (!ascii && ext != "tif" && ext != "tiff" && !isSpecialOutput(path))
        throw Error("cannot write " + path + ": the name must end in .tif, .tiff, .asc, .d8 or .out");
    CapturedErrors errors;
    OutputGroup group;
    AtomicOutput& out = group.add(path);
    const GDALDataType gtype = gdalType(type);

    auto fill = [&](GDALDatasetH ds, bool withCrs) {
        double gt[6];
        std::copy(frame.geoTransform.begin(), frame.geoTransform.end(), gt);
        if (frame.hasGeoTransform) GDALSetGeoTransform(ds, gt);
        if (withCrs && !frame.crsWkt.empty()) GDALSetProjection(ds, frame.crsWkt.c_str());
        GDALRasterBandH band = GDALGetRasterBand(ds, 1);
        if (hasNoData) GDALSetRasterNoDataValue(band, noData);
        return GDALRasterIO(band, GF_Write, 0, 0, frame.cols, frame.rows, const_cast<double*>(values.data()), frame.cols,
                            frame.rows, GDT_Float64, 0, 0) == CE_None;
    };
    bool ok = false;
    if (!ascii) {
        GDALDriverH tiff = GDALGetDriverByName("GTiff");
        char** options = nullptr;
        options = CSLSetNameValue(options, "COMPRESS", "LZW");
        options = CSLSetNameValue(options, "BIGTIFF", "IF_SAFER");
        if (frame.cols >= 256 && frame.rows >= 256) options = CSLSetNameValue(options, "TILED", "YES");
        GDALDatasetH ds = GDALCreate(tiff, out.writePath().c_str(), frame.cols, frame.rows, 1, gtype, options);
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
            if (type == RasterType::Float32) options = CSLSetNameValue(options, "SIGNIFICANT_DIGITS", "9");
            if (type == RasterType::Float64) options = CSLSetNameValue(options, "SIGNIFICANT_DIGITS", "17");
            GDALDatasetH ds = GDALCreateCopy(GDALGetDriverByName("AAIGrid"), out.writePath().c_str(), mem, FALSE, options,
                                             nullptr, nullptr);
            CSLDestroy(options);
            if (ds) {
                GDALClose(ds);
                ok = errors.last().empty();
            }
        }
        if (mem) GDALClose(mem);
        if (ok && !frame.crsWkt.empty() && !out.inPlace()) {
            const std::string prj = esriWkt(frame.crsWkt);
            if (!prj.empty()) writeFileContents(group.add(prjPathFor(path)), [&](std::ostream& os) { os << prj; });
        }
    }
    if (!ok) throw Error("cannot write " + path + ": " + because(errors, "GDAL could not create the file"));
    group.commit();
}

}  // namespace portacl::io
