// What the drainage suites (test_drainage, test_drainage_tiles) share: small DEMs, the sentence a
// call throws, and `portacl drainage` run on the test device.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "portacl/io/raster.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::test {

// A DEM of rows x cols heights named "test DEM", without a geotransform.
inline io::Raster demOf(int rows, int cols, std::vector<double> z) {
    io::Raster r;
    r.frame.rows = rows, r.frame.cols = cols;
    r.values = std::move(z);
    r.path = "test DEM";
    return r;
}

// `r` on 30 m cells from (100, 500), rows growing southwards.
inline io::Raster withGeoTransform(io::Raster r) {
    r.frame.geoTransform = {100, 30, 0, 500, 0, -30};
    r.frame.hasGeoTransform = true;
    return r;
}

// Heights with many ties (integers in a small range), pits, flats and, withNoData, NoData holes
// (-9999), on 30 m cells.
inline io::Raster randomDem(int rows, int cols, unsigned seed, bool withNoData) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> h(0, 12);
    io::Raster r = demOf(rows, cols, std::vector<double>(std::size_t(rows) * cols));
    for (int y = 0; y < rows; ++y)
        for (int x = 0; x < cols; ++x) r.values[std::size_t(y) * cols + x] = 0.5 * (y + x) + h(rng) * 0.25;
    if (withNoData) {
        r.hasNoData = true, r.noData = -9999;
        for (int k = 0; k < rows * cols / 20; ++k) r.values[rng() % r.values.size()] = -9999;
    }
    return withGeoTransform(std::move(r));
}

// The sentence of the portacl::Error that f throws, or "" when it throws none.
template <typename F>
std::string errorOf(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// `portacl drainage <args>` on the test device (PORTACL_TEST_DEVICE, else PORTACL_DEVICE, else
// auto), its standard output and error left in dir/out.txt and dir/err.txt: the exit status (-1
// when it did not exit) and the standard error.
inline std::pair<int, std::string> runDrainageCli(const std::string& dir, const std::string& args) {
    const char* spec = std::getenv("PORTACL_TEST_DEVICE");
    if (!spec || !*spec) spec = std::getenv("PORTACL_DEVICE");
    const std::string cmd = std::string(PORTACL_CLI_PATH) + " drainage " + args + " --device '" + (spec && *spec ? spec : "auto") +
                            "' >" + dir + "/out.txt 2>" + dir + "/err.txt";
    const int raw = std::system(cmd.c_str());
    std::ifstream err(dir + "/err.txt");
    std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, text};
}

}  // namespace portacl::test
