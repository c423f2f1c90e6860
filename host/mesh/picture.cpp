// A picture of a mesh and its intersecting faces (include/portacl/mesh/mesh_output.hpp): a small
// software rasteriser with a depth buffer per view; the faces of the answer are drawn again after
// the whole mesh, full red where they are in front and blended where something hides them.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "portacl/mesh/mesh_output.hpp"

namespace portacl::mesh {
namespace {

using V3 = std::array<double, 3>;

struct View {
    int u, v, depth;    // coordinate axes: right, up, towards the viewer
    double su, sv, sd;  // their signs
};

V3 corner(const TriangleMesh& m, std::uint32_t t, int i) {
    const std::size_t p = 3 * std::size_t(m.triangles[3 * std::size_t(t) + std::size_t(i)]);
    return {m.points[p], m.points[p + 1], m.points[p + 2]};
}

}  // namespace

io::Image meshPicture(const TriangleMesh& m, const std::vector<std::uint32_t>& involved, const std::vector<std::uint32_t>& degenerate,
                      int panel) {
    const View views[3] = {{0, 1, 2, 1, 1, 1}, {2, 1, 0, -1, 1, 1}, {0, 2, 1, 1, -1, 1}};
    io::Image img = io::makeImage(3 * panel, panel, 3, io::PixelType::U8);
    unsigned char* px = img.samples<unsigned char>();
    std::fill(px, px + img.sampleCount(), 255);
    V3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
    for (std::size_t i = 0; i < m.points.size(); ++i) lo[i % 3] = std::min(lo[i % 3], double(m.points[i])), hi[i % 3] = std::max(hi[i % 3], double(m.points[i]));
    const double extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-30});
    const double scale = 0.9 * panel / extent;
    std::vector<char> hit(m.triangleCount(), 0);
    for (auto t : involved) hit[t] = 1;
    for (auto t : degenerate) hit[t] = 2;
    std::vector<double> depth(std::size_t(panel) * std::size_t(panel));
    for (int k = 0; k < 3; ++k) {
        const View& w = views[k];
        const double cu = 0.5 * (lo[std::size_t(w.u)] + hi[std::size_t(w.u)]), cv = 0.5 * (lo[std::size_t(w.v)] + hi[std::size_t(w.v)]);
        std::fill(depth.begin(), depth.end(), -std::numeric_limits<double>::infinity());
        // Pass 0: every face, depth-tested. Pass 1: the faces of the answer, full where in front, blended where hidden.
        for (int pass = 0; pass < 2; ++pass)
            for (std::uint32_t t = 0; t < m.triangleCount(); ++t) {
                if (pass == 1 && hit[t] != 1) continue;
                V3 p[3];
                double x[3], y[3], z[3];
                for (int i = 0; i < 3; ++i) {
                    p[i] = corner(m, t, i);
                    x[i] = 0.5 * panel + w.su * (p[i][std::size_t(w.u)] - cu) * scale;
                    y[i] = 0.5 * panel - w.sv * (p[i][std::size_t(w.v)] - cv) * scale;
                    z[i] = w.sd * p[i][std::size_t(w.depth)];
                }
                const V3 e1{p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]}, e2{p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
                const V3 n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
                const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                const double shade = 0.35 + 0.65 * (len > 0 ? std::abs(n[std::size_t(w.depth)]) / len : 0.0);
                const double area = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
                const int x0 = std::max(0, int(std::floor(std::min({x[0], x[1], x[2]})))), x1 = std::min(panel - 1, int(std::ceil(std::max({x[0], x[1], x[2]}))));
                const int y0 = std::max(0, int(std::floor(std::min({y[0], y[1], y[2]})))), y1 = std::min(panel - 1, int(std::ceil(std::max({y[0], y[1], y[2]}))));
                for (int yy = y0; yy <= y1; ++yy)
                    for (int xx = x0; xx <= x1; ++xx) {
                        const double sx = xx + 0.5, sy = yy + 0.5;
                        double b[3];
                        if (area != 0) {
                            b[0] = ((x[1] - sx) * (y[2] - sy) - (x[2] - sx) * (y[1] - sy)) / area;
                            b[1] = ((x[2] - sx) * (y[0] - sy) - (x[0] - sx) * (y[2] - sy)) / area;
                            b[2] = 1 - b[0] - b[1];
                            if (b[0] < 0 || b[1] < 0 || b[2] < 0) continue;
                        } else {
                            continue;  // seen edge-on: no pixels of its own
                        }
                        const double d = b[0] * z[0] + b[1] * z[1] + b[2] * z[2];
                        double& zb = depth[std::size_t(yy) * std::size_t(panel) + std::size_t(xx)];
                        unsigned char* c = px + 3 * (std::size_t(yy) * std::size_t(3 * panel) + std::size_t(k * panel + xx));
                        if (pass == 0) {
                            if (d < zb) continue;
                            zb = d;
                            const double base[3] = {hit[t] == 1 ? 220.0 : hit[t] == 2 ? 240.0 : 200.0, hit[t] == 1 ? 40.0 : hit[t] == 2 ? 200.0 : 200.0,
                                                    hit[t] == 1 ? 40.0 : hit[t] == 2 ? 0.0 : 205.0};
                            for (int ch = 0; ch < 3; ++ch) c[ch] = (unsigned char)std::lround(base[ch] * shade);
                        } else if (d < zb - 1e-9 * extent) {
                            const double red[3] = {230, 60, 60};
                            for (int ch = 0; ch < 3; ++ch) c[ch] = (unsigned char)std::lround(0.55 * c[ch] + 0.45 * red[ch]);
                        }
                    }
            }
    }
    return img;
}

}  // namespace portacl::mesh
