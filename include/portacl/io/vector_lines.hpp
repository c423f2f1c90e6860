// Line features (a stream network) written through GDAL/OGR as a GeoPackage or a Shapefile, with a
// coordinate system and integer and real attributes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "portacl/export.hpp"

namespace portacl::io {

struct LineFeature {
    std::vector<std::pair<double, double>> points;  // x, y in the layer's coordinate system
    std::vector<std::int64_t> integers;             // one per integer field, in order
    std::vector<double> reals;                      // one per real field, in order
};

// The extensions writeLines takes (lower case, no dot).
PORTACL_API const std::vector<std::string>& lineOutputExtensions();

// Writes `features` as the layer `layer` of a GeoPackage (.gpkg), or as a Shapefile (.shp, with its
// .shx, .dbf and .prj beside it; a Shapefile's layer is named by its file, and its field names are
// cut to 10 characters), complete or absent (temporaries beside the targets, renamed when all are
// written). Throws portacl::Error naming the file when it cannot be written.
PORTACL_API void writeLines(const std::string& path, const std::string& crsWkt, const std::string& layer,
                            const std::vector<std::string>& integerFields, const std::vector<std::string>& realFields,
                            const std::vector<LineFeature>& features);

}  // namespace portacl::io
