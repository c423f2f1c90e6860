// Point-in-mesh on the host: the serial reference, the host's share of the device path (points whose
// six axis rays all meet an edge or a vertex), the closed-mesh check and the points file.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "mesh_detail.hpp"
#include "portacl/mesh/point_in_mesh.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/runtime/error.hpp"
#include "triangle_pair.hpp"

namespace portacl::mesh {
namespace detail {
namespace {

struct ExactOrient {
    int operator()(const float* a, const float* b, const float* c, const float* d) const { return orient3dHost(a, b, c, d); }
};

}  // namespace

void rayEnds(const TriangleMesh& m, const std::vector<float>& queries, float farLo[3], float farHi[3]) {
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (const auto* v : {&m.points, &queries})
        for (std::size_t i = 0; i < v->size(); ++i) lo[i % 3] = std::min(lo[i % 3], double((*v)[i])), hi[i % 3] = std::max(hi[i % 3], double((*v)[i]));
    for (int k = 0; k < 3; ++k) {
        const double pad = (hi[k] - lo[k]) + 1.0;
        farLo[k] = std::nextafter(float(lo[k] - pad), -INFINITY);
        farHi[k] = std::nextafter(float(hi[k] + pad), INFINITY);
    }
}

int pointSideHost(const TriangleMesh& m, const std::vector<Box>& boxes, const std::vector<std::uint8_t>& degenerate, const float* qp,
                  const float* farLo, const float* farHi, bool axisFirst) {
    const PairTest<ExactOrient> test{};
    const P3 q{qp[0], qp[1], qp[2]};
    std::mt19937 rng(12345);
    std::normal_distribution<double> g(0.0, 1.0);
    double reach = 0;
    for (int k = 0; k < 3; ++k) reach = std::max(reach, double(farHi[k]) - double(farLo[k]));
    for (int attempt = axisFirst ? 0 : 6; attempt < 6 + 64; ++attempt) {
        P3 r = q;
        if (attempt < 6) {
            r[std::size_t(attempt >> 1)] = (attempt & 1) ? farLo[attempt >> 1] : farHi[attempt >> 1];
        } else {
            double d[3] = {g(rng), g(rng), g(rng)};
            const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (int k = 0; k < 3; ++k) r[std::size_t(k)] = float(double(q[std::size_t(k)]) + 2 * reach * d[k] / len);
        }
        Box seg;
        for (int k = 0; k < 3; ++k) seg.lo[std::size_t(k)] = std::min(q[std::size_t(k)], r[std::size_t(k)]), seg.hi[std::size_t(k)] = std::max(q[std::size_t(k)], r[std::size_t(k)]);
        int crossings = 0;
        bool degenerateRay = false;
        for (std::uint32_t t = 0; t < m.triangleCount() && !degenerateRay; ++t) {
            if (degenerate[t] || !overlap(seg, boxes[t])) continue;
            P3 c[3];
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) c[i][std::size_t(k)] = m.points[3 * std::size_t(m.triangles[3 * std::size_t(t) + std::size_t(i)]) + std::size_t(k)];
            switch (test.ray(q, r, c[0], c[1], c[2])) {
                case PairTest<ExactOrient>::On: return 2;
                case PairTest<ExactOrient>::Cross: crossings ^= 1; break;
                case PairTest<ExactOrient>::Degenerate: degenerateRay = true; break;
                default: break;
            }
        }
        if (!degenerateRay) return crossings;
    }
    throw Error("no ray from the point (" + std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", " + std::to_string(q[2]) +
                ") avoided every edge and vertex of the mesh in 70 tries");
}

}  // namespace detail

const char* sideName(Side s) {
    switch (s) {
        case Side::Outside: return "outside";
        case Side::Inside: return "inside";
        case Side::Boundary: return "boundary";
    }
    return "?";
}

void requireClosed(const TriangleMesh& m) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> uses;
    for (std::size_t t = 0; t < m.triangleCount(); ++t)
        for (int i = 0; i < 3; ++i) {
            std::uint32_t a = m.triangles[3 * t + std::size_t(i)], b = m.triangles[3 * t + std::size_t((i + 1) % 3)];
            if (a > b) std::swap(a, b);
            if (a != b) ++uses[{a, b}];
        }
    std::size_t open = 0;
    for (const auto& e : uses) open += e.second % 2;
    if (open)
        throw Error("point-in-mesh needs a closed mesh, and " + std::to_string(open) + " edges of " +
                    (m.path.empty() ? std::string("this mesh") : m.path) +
                    " border an odd number of triangles (a mesh whose seams repeat vertices may close with --merge-vertices 0)");
}

std::vector<float> readPoints(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("the points file " + path + " does not exist or cannot be read");
    std::vector<float> pts;
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        std::istringstream ss(line);
        double v[3];
        std::string extra;
        if (!(ss >> v[0])) continue;  // blank
        if (!(ss >> v[1] >> v[2]) || (ss >> extra))
            throw Error("the points file " + path + ", line " + std::to_string(number) + ": a point is three numbers x y z");
        for (double c : v) {
            if (!std::isfinite(c) || std::abs(c) > 3.0e38)
                throw Error("the points file " + path + ", line " + std::to_string(number) + ": a coordinate is not finite (or too large for float)");
            pts.push_back(float(c));
        }
    }
    if (pts.empty()) throw Error("the points file " + path + " has no points");
    return pts;
}

SideResult classifyPointsReference(const TriangleMesh& m, const std::vector<float>& points) {
    validate(m);
    requireClosed(m);
    const auto boxes = detail::triangleBoxes(m);
    std::vector<std::uint8_t> degenerate(m.triangleCount());
    for (std::uint32_t t = 0; t < m.triangleCount(); ++t) degenerate[t] = isDegenerate(m, t);
    float farLo[3], farHi[3];
    detail::rayEnds(m, points, farLo, farHi);
    SideResult r;
    for (std::size_t i = 0; i + 2 < points.size(); i += 3)
        r.sides.push_back(Side(detail::pointSideHost(m, boxes, degenerate, &points[i], farLo, farHi, true)));
    return r;
}

}  // namespace portacl::mesh
