// Projections of a binary volume and an overlay on it (a skeleton over its object) along z, y and x,
// side by side in one RGB picture: the maximum along each ray, overlay first.
#include <algorithm>
#include <array>

#include "portacl/io/binary_volume.hpp"
#include "portacl/io/image.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io {

void writeProjectionPicture(const std::string& path, const BinaryVolume& object, const BinaryVolume& overlay, int scale) {
    checkBinaryVolume(object, "the projection picture");
    checkBinaryVolume(overlay, "the projection picture");
    if (object.nz != overlay.nz || object.ny != overlay.ny || object.nx != overlay.nx)
        throw Error("the projection picture needs an overlay of the object's shape");
    // Panels (height x width): along z, y x x; along y, z x x; along x, z x y.
    const std::array<std::array<int, 2>, 3> panel{{{object.ny, object.nx}, {object.nz, object.nx}, {object.nz, object.ny}}};
    constexpr int kGap = 8;
    const int cells = panel[0][1] + panel[1][1] + panel[2][1];
    const int tallest = std::max({panel[0][0], panel[1][0], panel[2][0]});
    if (scale <= 0) scale = std::max(1, std::min(8, (1600 - 4 * kGap) / std::max(1, cells)));
    const long long width = 4LL * kGap + (long long)cells * scale, height = 2LL * kGap + (long long)tallest * scale;
    if (width > 30000 || height > 30000)
        throw Error("the projection picture would be " + std::to_string(width) + "x" + std::to_string(height) + " pixels; use a smaller scale");
    // 0 white, 1 object, 2 overlay, per panel cell.
    std::array<std::vector<unsigned char>, 3> level;
    for (int k = 0; k < 3; ++k) level[std::size_t(k)].assign(std::size_t(panel[std::size_t(k)][0]) * panel[std::size_t(k)][1], 0);
    for (int z = 0; z < object.nz; ++z)
        for (int y = 0; y < object.ny; ++y)
            for (int x = 0; x < object.nx; ++x) {
                const unsigned char v = overlay.at(z, y, x) ? 2 : object.at(z, y, x) ? 1 : 0;
                if (!v) continue;
                auto raise = [&](int k, int row, int col) {
                    auto& c = level[std::size_t(k)][std::size_t(row) * panel[std::size_t(k)][1] + col];
                    c = std::max(c, v);
                };
                raise(0, y, x);
                raise(1, z, x);
                raise(2, z, y);
            }
    Image img = makeImage(int(width), int(height), 3, PixelType::U8);
    std::fill(img.data.begin(), img.data.end(), 255);
    const unsigned char colour[3][3] = {{255, 255, 255}, {190, 190, 190}, {220, 30, 30}};
    int left = kGap;
    for (int k = 0; k < 3; ++k) {
        const auto [rows, cols] = panel[std::size_t(k)];
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const unsigned char* rgb = colour[level[std::size_t(k)][std::size_t(r) * cols + c]];
                for (int dy = 0; dy < scale; ++dy)
                    for (int dx = 0; dx < scale; ++dx) {
                        unsigned char* p = img.data.data() + (std::size_t(kGap + r * scale + dy) * img.width + left + c * scale + dx) * 3;
                        p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
                    }
            }
        // A thin frame around each panel, so that a panel's empty border shows.
        for (int c = -1; c <= cols * scale; ++c)
            for (int r : {-1, rows * scale}) {
                unsigned char* p = img.data.data() + (std::size_t(kGap + r) * img.width + left + c) * 3;
                p[0] = p[1] = p[2] = 120;
            }
        for (int r = 0; r < rows * scale; ++r)
            for (int c : {-1, cols * scale}) {
                unsigned char* p = img.data.data() + (std::size_t(kGap + r) * img.width + left + c) * 3;
                p[0] = p[1] = p[2] = 120;
            }
        left += cols * scale + kGap;
    }
    writeImage(path, img);
}

}  // namespace portacl::io
