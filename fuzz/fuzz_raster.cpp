// libFuzzer harness: DEM rasters (host/io/raster_io.cpp, through GDAL: GeoTIFF, ESRI ASCII grids
// and whatever else GDAL recognises by content) on arbitrary bytes.
#include <cstdint>

#include "fuzz_support.hpp"
#include "portacl/io/raster.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fuzz::InputFile file(data, size, ".tif");
    try {
        io::readRaster(file.path());
    } catch (const Error&) {
    }
    return 0;
}
