// Hull vertices of huge radius: a nearly flat layer of atoms (PDB's 0.001 Å steps out of plane) over
// a random interior gives tangent spheres of radius 1e5 to 1e7 Å on the flat side. Every one must be
// found, by the serial reference and on the device in every precision, and the vertex set must be
// Voronota's (where voronota is installed). The one exception is Voronota's: four equal balls whose
// centres are exactly coplanar have no tangent sphere, yet Voronota prints one of its rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "portacl/voronoi.hpp"
#include "support/test_support.hpp"

using namespace portacl;

namespace {

// A small linear congruential generator: the same balls on every platform.
struct Lcg {
    std::uint64_t s;
    double next() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<double>(s >> 11) / 9007199254740992.0;
    }
};

double milli(double x) { return std::round(x * 1000) / 1000; }  // PDB's precision

std::vector<io::Ball> flatLayer(std::uint64_t seed) {
    Lcg g{seed};
    const double radii[3] = {1.70, 1.55, 1.52}, zs[3] = {0, 0.001, -0.001};
    std::vector<io::Ball> balls;
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j) {
            const double x = milli(3.8 * i + 1.2 * g.next() - 0.6), y = milli(3.8 * j + 1.2 * g.next() - 0.6);
            const double z = zs[static_cast<int>(g.next() * 3) % 3];
            balls.push_back({x, y, z, radii[static_cast<int>(g.next() * 3) % 3]});
        }
    for (int k = 0; k < 60; ++k) {
        const double x = milli(22.8 * g.next()), y = milli(22.8 * g.next()), z = milli(-2.5 - 9.5 * g.next());
        balls.push_back({x, y, z, radii[static_cast<int>(g.next() * 3) % 3]});
    }
    return balls;
}

std::set<std::string> quadruples(const std::string& vertices) {
    std::set<std::string> out;
    std::istringstream in(vertices);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        int q[4];
        if (ls >> q[0] >> q[1] >> q[2] >> q[3])
            out.insert(std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]) + " " + std::to_string(q[3]));
    }
    return out;
}

bool equalCoplanar(const std::vector<io::Ball>& b, const std::string& quad) {
    std::istringstream in(quad);
    int q[4];
    in >> q[0] >> q[1] >> q[2] >> q[3];
    for (int i = 1; i < 4; ++i)
        if (b[q[i]].z != b[q[0]].z || b[q[i]].r != b[q[0]].r) return false;
    return true;
}

double largestRadius(const voronoi::Diagram& d) {
    double r = 0;
    for (const auto& v : d.vertices) r = std::max(r, v.r);
    return r;
}

}  // namespace

TEST(VoronoiHull, HugeHullVerticesAreFound) {
    const bool voronota = std::system("command -v voronota >/dev/null 2>&1") == 0;
    int huge = 0;
    for (std::uint64_t seed : {3u, 7u, 11u}) {
        const auto balls = flatLayer(seed);
        const voronoi::Diagram ref = voronoi::computeReference(balls);
        EXPECT_EQ(ref.unresolvedEdges, 0u) << "seed " << seed;
        if (largestRadius(ref) > 1e5) ++huge;
        const std::string refText = voronoi::formatVertices(ref);
        if (test::hasFp64())
            for (Precision p : {Precision::Double, Precision::Mixed}) {
                voronoi::Options o;
                o.precision = p;
                const voronoi::Diagram dev = voronoi::compute(test::context(), balls, o);
                EXPECT_TRUE(quadruples(voronoi::formatVertices(dev)) == quadruples(refText))
                    << precisionName(p) << ", seed " << seed;
            }
        std::printf("[ info ] seed %llu: %zu vertices, largest radius %.3g\n", static_cast<unsigned long long>(seed), ref.vertices.size(), largestRadius(ref));
        if (!voronota) continue;
        const std::string in = testing::TempDir() + "voronoi_hull_balls.txt", out = testing::TempDir() + "voronoi_hull_vertices.txt";
        {
            std::ofstream f(in);
            f.precision(17);
            for (const auto& b : balls) f << b.x << ' ' << b.y << ' ' << b.z << ' ' << b.r << '\n';
        }
        ASSERT_EQ(std::system(("voronota calculate-vertices < " + in + " > " + out).c_str()), 0);
        std::ifstream vf(out);
        const std::string theirs((std::istreambuf_iterator<char>(vf)), std::istreambuf_iterator<char>());
        const auto ours = quadruples(refText), want = quadruples(theirs);
        for (const auto& q : want)
            if (!ours.count(q)) EXPECT_TRUE(equalCoplanar(balls, q)) << "seed " << seed << ": Voronota's vertex " << q << " is missing";
        for (const auto& q : ours) EXPECT_TRUE(want.count(q)) << "seed " << seed << ": vertex " << q << " is not Voronota's";
    }
    if (!voronota) std::printf("[ info ] voronota not installed: checked against the serial reference only\n");
    EXPECT_GT(huge, 0) << "no hull vertex above 1e5 Å: the layer no longer tests what it is for";
}
