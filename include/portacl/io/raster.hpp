// Georeferenced rasters through GDAL: GeoTIFF, ESRI ASCII grids (RichDEM's .d8 and .out test grids
// are ESRI ASCII grids) and anything else GDAL reads. A raster keeps what an output must carry over
// from its input: NoData, the geotransform and the coordinate system.
#pragma once

#include "portacl/export.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace portacl::io {

// The cell type a raster is stored with in its file (GDAL's types that a grid of heights, codes or
// counts uses).
enum class RasterType { Byte, Int16, UInt16, Int32, UInt32, Float32, Float64 };

// What an output shares with its input: the shape, where it lies and in which coordinate system.
struct PORTACL_API RasterFrame {
    int rows = 0, cols = 0;
    // GDAL's affine geotransform: x = gt[0] + col*gt[1] + row*gt[2], y = gt[3] + col*gt[4] + row*gt[5].
    std::array<double, 6> geoTransform{0, 1, 0, 0, 0, -1};
    bool hasGeoTransform = false;
    std::string crsWkt;  // empty: none stored

    std::size_t size() const { return std::size_t(rows) * std::size_t(cols); }
    // The cell's width and height in the geotransform's units (1 without one).
    double cellWidth() const { return std::hypot(geoTransform[1], geoTransform[4]); }
    double cellHeight() const { return std::hypot(geoTransform[2], geoTransform[5]); }
};

// One band of values, row 0 at the top, row-major.
struct PORTACL_API Raster {
    RasterFrame frame;
    std::vector<double> values;
    bool hasNoData = false;
    double noData = 0;  // may be NaN
    RasterType type = RasterType::Float64;  // the type in the file read (writeRaster's default)
    std::string path;                       // the file read, for messages

    int rows() const { return frame.rows; }
    int cols() const { return frame.cols; }
    std::size_t size() const { return frame.size(); }
    bool isNoData(std::size_t i) const {
        if (!hasNoData) return false;
        const double v = values[i];
        return std::isnan(noData) ? std::isnan(v) : v == noData;
    }
};

// Reads band 1 of a raster file. Throws portacl::Error in one sentence when the file is missing or
// unreadable, GDAL cannot read its format, or it has no raster band.
PORTACL_API Raster readRaster(const std::string& path);

// The output formats writeRaster chooses by the name's extension: .tif/.tiff (GeoTIFF) and
// .asc/.d8/.out (ESRI ASCII grid; its coordinate system goes to a .prj beside it).
PORTACL_API const std::vector<std::string>& rasterOutputExtensions();

// How a GeoTIFF output is compressed, losslessly, on all cores, in tiles of 256 x 256 cells, without
// a predictor (WhiteboxTools 2.0.6 misreads predicted files). Deflate at its fastest level is the
// default: every GIS reads it. Zstd is faster still, but WhiteboxTools 2.0.6 and older GIS cannot read
// it; LZW is the older GeoTIFF habit, slower; None writes the cells as they are (the largest files).
enum class RasterCompression { Deflate, Zstd, Lzw, None };
// "deflate", "zstd", "lzw", "none"; throws one sentence naming them otherwise.
PORTACL_API RasterCompression parseRasterCompression(const std::string& name);
PORTACL_API const char* rasterCompressionName(RasterCompression c);

// A grid's cells in memory, row-major, in one of the types GDAL converts from (the type written to
// the file is chosen separately): a view, the vector must outlive the write.
struct PORTACL_API RasterCells {
    const void* data = nullptr;
    std::size_t count = 0;
    RasterType type = RasterType::Float64;

    RasterCells() = default;
    RasterCells(const std::vector<double>& v) : data(v.data()), count(v.size()), type(RasterType::Float64) {}
    RasterCells(const std::vector<float>& v) : data(v.data()), count(v.size()), type(RasterType::Float32) {}
    RasterCells(const std::vector<std::uint8_t>& v) : data(v.data()), count(v.size()), type(RasterType::Byte) {}
    RasterCells(const std::vector<std::int16_t>& v) : data(v.data()), count(v.size()), type(RasterType::Int16) {}
    RasterCells(const std::vector<std::uint16_t>& v) : data(v.data()), count(v.size()), type(RasterType::UInt16) {}
    RasterCells(const std::vector<std::int32_t>& v) : data(v.data()), count(v.size()), type(RasterType::Int32) {}
    RasterCells(const std::vector<std::uint32_t>& v) : data(v.data()), count(v.size()), type(RasterType::UInt32) {}
};

// Writes `cells` (frame.size() of them) as band 1 of `type`, with the frame's geotransform and
// coordinate system and, when hasNoData, the NoData value. The file (and its .prj) is complete or
// absent: written to a temporary beside it and renamed (portacl/runtime/output_file.hpp). Throws
// portacl::Error naming the file when it cannot be written.
PORTACL_API void writeRaster(const std::string& path, const RasterFrame& frame, RasterCells cells, RasterType type,
                             bool hasNoData, double noData, RasterCompression compression = RasterCompression::Deflate);

// One raster of writeRasters: what writeRaster takes.
struct PORTACL_API RasterOutput {
    std::string path;
    const RasterFrame* frame = nullptr;
    RasterCells cells;
    RasterType type = RasterType::Float64;
    bool hasNoData = false;
    double noData = 0;
};

// Writes several rasters at once, each from its own thread (and each compressed on all cores), and
// commits them together: every file is complete, or none is replaced (a failure removes every
// temporary). Throws portacl::Error naming the first file that could not be written.
PORTACL_API void writeRasters(const std::vector<RasterOutput>& outputs, RasterCompression compression = RasterCompression::Deflate);

// GDAL's name of a type ("Int16", "Float32").
PORTACL_API const char* rasterTypeName(RasterType t);

}  // namespace portacl::io
