// The hillshade with the streams over it. Horn's 3x3 gradient (edge cells repeat their nearest
// neighbours, NoData neighbours take the centre's height) and the usual illumination
// 255 (cos zenith cos slope + sin zenith sin slope cos(azimuth - aspect)).
#include <algorithm>
#include <cmath>

#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {

io::Image drainagePicture(const io::Raster& dem, const std::vector<std::uint8_t>& streamCells) {
    validateDem(dem);
    if (!streamCells.empty() && streamCells.size() != dem.size())
        throw Error("the stream grid does not have the DEM's " + std::to_string(dem.size()) + " cells");
    const int rows = dem.rows(), cols = dem.cols();
    double dx = dem.frame.cellWidth(), dy = dem.frame.cellHeight();
    // A geographic grid: degrees to metres at the middle row's latitude.
    const std::string& wkt = dem.frame.crsWkt;
    if (wkt.rfind("GEOGCS", 0) == 0 || wkt.rfind("GEOGCRS", 0) == 0) {
        const double lat = dem.frame.geoTransform[3] + dem.frame.geoTransform[5] * rows / 2.0;
        dx *= 111320.0 * std::cos(lat * M_PI / 180.0);
        dy *= 110540.0;
    }
    const double zenith = 45.0 * M_PI / 180.0, azimuth = (360.0 - 315.0 + 90.0) * M_PI / 180.0;
    io::Image img = io::makeImage(cols, rows, 3, io::PixelType::U8);
    unsigned char* px = img.samples<unsigned char>();
    auto z = [&](int r, int c, double centre) {
        r = std::clamp(r, 0, rows - 1), c = std::clamp(c, 0, cols - 1);
        const std::size_t i = std::size_t(r) * cols + c;
        return dem.isNoData(i) ? centre : dem.values[i];
    };
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const std::size_t i = std::size_t(r) * cols + c;
            unsigned char* p = px + 3 * i;
            if (dem.isNoData(i)) {
                p[0] = p[1] = p[2] = 255;
                continue;
            }
            if (!streamCells.empty() && streamCells[i] == 1) {
                p[0] = 30, p[1] = 90, p[2] = 220;
                continue;
            }
            const double h = dem.values[i];
            const double a = z(r - 1, c - 1, h), b = z(r - 1, c, h), cc = z(r - 1, c + 1, h);
            const double d = z(r, c - 1, h), f = z(r, c + 1, h);
            const double g = z(r + 1, c - 1, h), hh = z(r + 1, c, h), k = z(r + 1, c + 1, h);
            const double dzdx = ((cc + 2 * f + k) - (a + 2 * d + g)) / (8 * dx);
            const double dzdy = ((g + 2 * hh + k) - (a + 2 * b + cc)) / (8 * dy);
            const double slope = std::atan(std::hypot(dzdx, dzdy));
            const double aspect = std::atan2(dzdy, -dzdx);
            const double light = std::cos(zenith) * std::cos(slope) + std::sin(zenith) * std::sin(slope) * std::cos(azimuth - aspect);
            const auto v = static_cast<unsigned char>(std::clamp(light, 0.0, 1.0) * 255.0 + 0.5);
            p[0] = p[1] = p[2] = v;
        }
    return img;
}

}  // namespace portacl::drainage
