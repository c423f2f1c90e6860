// The mesh workload: reading meshes, the self-intersection on the device (every method, every
// precision) against the serial reference and against CGAL on the shared meshes, hand-made
// configurations (touching, coplanar, shared vertices and edges, near-coplanar where float alone is
// wrong and float mode is still exact), welding, and bad input.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "mesh/mesh_detail.hpp"
#include "mesh/triangle_pair.hpp"
#include "portacl/mesh/frame_sequence.hpp"
#include "portacl/mesh/mesh_output.hpp"
#include "portacl/mesh/point_in_mesh.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/error.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace portacl;
using namespace portacl::mesh;
using portacl::test::dataPath;

namespace {

TriangleMesh makeMesh(std::vector<float> points, std::vector<std::uint32_t> tris) {
    TriangleMesh m;
    m.points = std::move(points);
    m.triangles = std::move(tris);
    m.polygons = m.triangleCount();
    return m;
}

std::string writeTemp(const std::string& name, const std::string& text) {
    const fs::path p = fs::temp_directory_path() / ("portacl_test_mesh_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// ---- reading ----

TEST(MeshRead, FansPolygonsAndSaysHowMany) {
    const std::string p = writeTemp("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nf 1 2 3 4\nf 1 2 5\n");
    const TriangleMesh m = readMesh(p);
    EXPECT_EQ(m.polygons, 2u);
    EXPECT_EQ(m.triangleCount(), 3u);
    EXPECT_EQ(m.triangles, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3, 0, 1, 4}));
    fs::remove(p);
}

TEST(MeshRead, EveryFormatGivesTheSameTriangles) {
    const std::string off = writeTemp("t.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 1 3\n");
    const std::string ply = writeTemp("t.ply",
                                      "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
                                      "element face 2\nproperty list uchar int vertex_indices\nend_header\n"
                                      "0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 1 3\n");
    const TriangleMesh a = readMesh(off), b = readMesh(ply);
    EXPECT_EQ(a.points, b.points);
    EXPECT_EQ(a.triangles, b.triangles);
    EXPECT_EQ(a.triangleCount(), 2u);
    fs::remove(off);
    fs::remove(ply);
}

TEST(MeshRead, BadFilesGetOneSentence) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"},
        {"nan.off", "OFF\n3 1 0\n0 0 0\nnan 0 0\n0 1 0\n3 0 1 2\n"},
        {"empty.obj", "# nothing\n"},
        {"short.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n"},
        {"two.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n"},
        {"mesh.xyz", "0 0 0\n"},
    };
    for (const auto& [name, text] : bad) {
        const std::string p = writeTemp(name, text);
        const std::string e = errorOf([&] { readMesh(p); });
        EXPECT_FALSE(e.empty()) << name << " was accepted";
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
        fs::remove(p);
    }
    EXPECT_NE(errorOf([] { readMesh("/nonexistent/mesh.obj"); }).find("does not exist"), std::string::npos);
}

TEST(MeshRead, BinaryFilesAndTheirTruncations) {
    // Binary STL: an 80-byte header, a triangle count, 50 bytes per triangle (normal, 3 corners, attribute).
    auto stlTriangle = [](std::vector<float> c) {
        std::string b(reinterpret_cast<const char*>(c.data()), 48);
        return b + std::string(2, '\0');
    };
    const std::string t1 = stlTriangle({0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0}), t2 = stlTriangle({0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    auto stl = [](std::uint32_t count, const std::string& body) {
        return std::string(80, '\0') + std::string(reinterpret_cast<const char*>(&count), 4) + body;
    };
    const std::string ok = writeTemp("ok.stl", stl(2, t1 + t2)), cut = writeTemp("cut.stl", stl(10, t1 + t2));
    const TriangleMesh m = readMesh(ok);
    EXPECT_EQ(m.triangleCount(), 2u);
    EXPECT_EQ(m.vertexCount(), 4u);  // corners at the same place are one vertex in STL
    const std::string e = errorOf([&] { readMesh(cut); });
    EXPECT_NE(e.find("could not be read"), std::string::npos) << e;
    // Binary PLY cut inside its faces.
    const std::string header = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                               "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
    const float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const std::string verts(reinterpret_cast<const char*>(v), sizeof(v));
    const std::string plyCut = writeTemp("cut.ply", header + verts + std::string("\x03\0\0\0\0", 5));
    EXPECT_FALSE(errorOf([&] { readMesh(plyCut); }).empty());
    for (const auto& p : {ok, cut, plyCut}) fs::remove(p);
}

// ---- the exact decision on hand-made pairs ----

TEST(MeshPairs, AdjacencyRules) {
    // Two triangles sharing the edge (0,1): folded onto each other (coplanar, same side) and flat (opposite sides).
    const auto fold = makeMesh({0, 0, 0, 4, 0, 0, 1, 2, 0, 3, 1, 0}, {0, 1, 2, 0, 1, 3});
    EXPECT_TRUE(trianglesIntersect(fold, 0, 1));
    const auto flat = makeMesh({0, 0, 0, 4, 0, 0, 1, 2, 0, 3, -1, 0}, {0, 1, 2, 0, 1, 3});
    EXPECT_FALSE(trianglesIntersect(flat, 0, 1));
    // Sharing vertex 0 only: a fan (no other contact), and one whose opposite edge pierces the other.
    const auto fan = makeMesh({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0}, {0, 1, 2, 0, 3, 4});
    EXPECT_FALSE(trianglesIntersect(fan, 0, 1));
    const auto pierce = makeMesh({0, 0, 0, 4, 0, 0, 0, 4, 0, 1, 1, -1, 1, 1, 1}, {0, 1, 2, 0, 3, 4});
    EXPECT_TRUE(trianglesIntersect(pierce, 0, 1));
    // The same positions under other indices touch, and count.
    const auto seam = makeMesh({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, -1, 0, 0}, {0, 1, 2, 3, 4, 5});
    EXPECT_TRUE(trianglesIntersect(seam, 0, 1));
    TriangleMesh welded = seam;
    EXPECT_EQ(mergeVertices(welded, 0.0), 1u);
    EXPECT_FALSE(trianglesIntersect(welded, 0, 1));
}

TEST(MeshPairs, TouchingAndNearlyTouching) {
    // A triangle whose vertex lies exactly on another's interior touches it; moved by one float step it does not.
    const float above = std::nextafter(0.0f, 1.0f);
    const auto touch = makeMesh({0, 0, 0, 4, 0, 0, 0, 4, 0, 1, 1, 0, 1, 1, 3, 2, 1, 3}, {0, 1, 2, 3, 4, 5});
    EXPECT_TRUE(trianglesIntersect(touch, 0, 1));
    const auto apart = makeMesh({0, 0, 0, 4, 0, 0, 0, 4, 0, 1, 1, above, 1, 1, 3, 2, 1, 3}, {0, 1, 2, 3, 4, 5});
    EXPECT_FALSE(trianglesIntersect(apart, 0, 1));
    const auto degenerate = makeMesh({0, 0, 0, 1, 1, 1, 2, 2, 2}, {0, 1, 2});
    EXPECT_TRUE(isDegenerate(degenerate, 0));
}

// ---- whole meshes: the reference against CGAL ----

TEST(MeshSelfIntersection, ReferenceMatchesCgalOnSharedMeshes) {
    PORTACL_REQUIRE_DATA();
    const std::vector<std::pair<std::string, std::size_t>> meshes = {{"spot.obj", 0}, {"cow.obj", 81}, {"teapot.obj", 3263}};
    for (const auto& [name, count] : meshes) {
        const TriangleMesh m = readMesh(dataPath("mesh/" + name));
        const Result cgal = selfIntersectionsCgal(m);
        const Result ref = selfIntersectionsReference(m);
        EXPECT_EQ(cgal.pairs.size(), count) << name;
        EXPECT_EQ(ref.pairs, cgal.pairs) << name;
        EXPECT_EQ(ref.degenerate, cgal.degenerate) << name;
        EXPECT_EQ(ref.candidates, cgal.candidates) << name;
    }
}

// ---- the device against the reference ----

namespace {

Context& ctx() { return portacl::test::context(); }

std::vector<Precision> precisions() {
    std::vector<Precision> p{Precision::Float, Precision::Mixed};
    if (portacl::test::hasFp64()) p.push_back(Precision::Double);
    return p;
}

// A mesh and a copy of it moved by `shift` and turned a little, overlapping it: many crossing pairs.
TriangleMesh withOverlappingCopy(const TriangleMesh& m, float shift) {
    TriangleMesh out = m;
    const std::uint32_t nv = std::uint32_t(m.vertexCount());
    const float c = std::cos(0.3f), s = std::sin(0.3f);
    for (std::size_t v = 0; v < m.vertexCount(); ++v) {
        const float x = m.points[3 * v], y = m.points[3 * v + 1], z = m.points[3 * v + 2];
        out.points.push_back(c * x - s * y + shift);
        out.points.push_back(s * x + c * y);
        out.points.push_back(z);
    }
    for (std::uint32_t idx : m.triangles) out.triangles.push_back(idx + nv);
    out.polygons = out.triangleCount();
    return out;
}

}  // namespace

TEST(MeshSelfIntersection, DeviceMatchesReferenceOnSharedMeshes) {
    PORTACL_REQUIRE_DATA();
    for (const std::string name : {"spot.obj", "cow.obj", "teapot.obj"}) {
        const TriangleMesh m = readMesh(dataPath("mesh/" + name));
        const Result ref = selfIntersectionsReference(m);
        for (Method method : {Method::Auto, Method::Hierarchy, Method::Grid, Method::AtomicList, Method::Matrix})
            for (Precision p : precisions()) {
                SCOPED_TRACE(name + " " + methodName(method) + " " + precisionName(p));
                const Result dev = selfIntersections(ctx(), m, {method, p});
                // Auto runs the profile's broad phase, and says which.
                EXPECT_EQ(dev.method, method == Method::Auto ? resolvedMethod(ctx(), method) : method);
                EXPECT_TRUE(dev.method == Method::Grid || method != Method::Auto || dev.method == Method::Hierarchy);
                EXPECT_EQ(dev.candidates, ref.candidates);
                EXPECT_EQ(dev.degenerate, ref.degenerate);
                // Every precision gives the exact pairs; float's undecided ones are decided on the host.
                EXPECT_EQ(dev.pairs, ref.pairs);
                EXPECT_LE(dev.floatGuessesWrong, dev.report.undecided);
                if (p != Precision::Double) EXPECT_EQ(dev.report.phase2Items, dev.report.undecided);
                if (p == Precision::Float) EXPECT_EQ(dev.report.phase2, Phase2Arithmetic::Host);
            }
    }
}

namespace {

// One pair of triangles: the first with random corners in [0, 1]^3, the second touching its plane
// only at one vertex d, a point of the first triangle's interior rounded to float (so within a
// rounding of the plane, on either side), its other two vertices well above. The pair intersects
// exactly when d is on or below the plane, which float cannot tell.
TriangleMesh nearlyTouchingPair(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    TriangleMesh m;
    for (int k = 0; k < 3; ++k) m.points.push_back(float(u(rng))), m.points.push_back(float(u(rng))), m.points.push_back(float(0.3 * u(rng)));
    const auto& f = m.points;
    const double e1[3] = {double(f[3]) - f[0], double(f[4]) - f[1], double(f[5]) - f[2]};
    const double e2[3] = {double(f[6]) - f[0], double(f[7]) - f[1], double(f[8]) - f[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double a = 0.2 + 0.3 * u(rng), b = 0.2 + 0.3 * u(rng);
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = f[std::size_t(c)] + a * e1[c] + b * e2[c];
    for (int c = 0; c < 3; ++c) m.points.push_back(float(d[c]));
    for (int c = 0; c < 3; ++c) m.points.push_back(float(d[c] + 0.5 * n[c] / len + e1[c] / 4));
    for (int c = 0; c < 3; ++c) m.points.push_back(float(d[c] + 0.5 * n[c] / len - e1[c] / 4));
    m.triangles = {0, 1, 2, 3, 4, 5};
    m.polygons = 2;
    return m;
}

}  // namespace

// orient3d's sign from the float determinant alone, as the device's float filter computes it, with
// no error bound: what float arithmetic by itself answers.
struct PlainFloatOrient {
    int operator()(const float* a, const float* b, const float* c, const float* d) const {
        const float adx = a[0] - d[0], ady = a[1] - d[1], adz = a[2] - d[2], bdx = b[0] - d[0], bdy = b[1] - d[1], bdz = b[2] - d[2];
        const float cdx = c[0] - d[0], cdy = c[1] - d[1], cdz = c[2] - d[2];
        const float det = adz * (bdx * cdy - cdx * bdy) + bdz * (cdx * ady - adx * cdy) + cdz * (adx * bdy - bdx * ady);
        return det > 0 ? 1 : det < 0 ? -1 : 0;
    }
};

// Float alone gets these pairs wrong: its plain determinant's answer (on the host) and the device
// filter's own guesses (floatGuessesWrong) differ from the exact answer (CGAL's and the reference's)
// in some of them. Float mode still gives the exact pairs: the host decides what float cannot, as
// mixed does in double and double does throughout.
TEST(MeshSelfIntersection, NearlyTouchingPairsNeedMoreThanFloat) {
    std::mt19937 rng(5);
    int touching = 0, apart = 0, undecided = 0, plainFloatWrong = 0, guessesWrong = 0;
    for (int i = 0; i < 60; ++i) {
        SCOPED_TRACE("configuration " + std::to_string(i));
        const TriangleMesh m = nearlyTouchingPair(rng);
        const Result ref = selfIntersectionsReference(m);
        ASSERT_EQ(ref.pairs, selfIntersectionsCgal(m).pairs);
        (ref.pairs.empty() ? apart : touching) += 1;
        detail::P3 t[2][3];
        std::uint32_t idx[2][3];
        for (int f = 0; f < 2; ++f)
            for (int c = 0; c < 3; ++c) {
                idx[f][c] = m.triangles[std::size_t(3 * f + c)];
                for (int k = 0; k < 3; ++k) t[f][c][std::size_t(k)] = m.points[3 * idx[f][c] + std::size_t(k)];
            }
        plainFloatWrong += detail::PairTest<PlainFloatOrient>{}.pair(t[0], idx[0], t[1], idx[1]) != !ref.pairs.empty();
        const Result f = selfIntersections(ctx(), m, {Method::Hierarchy, Precision::Float});
        undecided += int(f.report.undecided);
        guessesWrong += int(f.floatGuessesWrong);
        ASSERT_LE(f.floatGuessesWrong, f.report.undecided);
        ASSERT_EQ(f.pairs, ref.pairs);
        ASSERT_EQ(selfIntersections(ctx(), m, {Method::Grid, Precision::Float}).pairs, ref.pairs);
        const Result mixed = selfIntersections(ctx(), m, {Method::Hierarchy, Precision::Mixed});
        ASSERT_EQ(mixed.pairs, ref.pairs);
        // The same float guesses, overturned by the same exact answers (in double on the device, or on the host).
        EXPECT_EQ(mixed.floatGuessesWrong, f.floatGuessesWrong);
        if (portacl::test::hasFp64()) ASSERT_EQ(selfIntersections(ctx(), m, {Method::Hierarchy, Precision::Double}).pairs, ref.pairs);
    }
    EXPECT_GT(touching, 0);
    EXPECT_GT(apart, 0);
    EXPECT_GT(undecided, 30);
    EXPECT_GT(plainFloatWrong, 0) << "float's plain answers were all right: the configurations no longer show why the exact step is needed";
    EXPECT_GT(guessesWrong, 0) << "the float filter's guesses were all right: the configurations no longer show why the exact step is needed";
    RecordProperty("plain_float_wrong", plainFloatWrong);
    RecordProperty("float_guesses_wrong", guessesWrong);
}

TEST(MeshSelfIntersection, DegenerateTrianglesAreListedAndInNoPair) {
    // A flat square (two triangles), a zero-area triangle across it, one with a repeated index, and a crossing triangle.
    const auto m = makeMesh({0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0, 0, 0, 1, 1, 0, 2, 2, 0, 1, 1, -1, 1, 1, 1, 1.5f, 0.5f, 1},
                            {0, 1, 2, 0, 2, 3, 4, 5, 6, 0, 0, 1, 7, 8, 9});
    const Result ref = selfIntersectionsReference(m);
    EXPECT_EQ(ref.degenerate, (std::vector<std::uint32_t>{2, 3}));
    const Result cgal = selfIntersectionsCgal(m);
    EXPECT_EQ(cgal.degenerate, ref.degenerate);
    EXPECT_EQ(ref.pairs, cgal.pairs);
    EXPECT_EQ(ref.pairs, (std::vector<FacePair>{{0, 4}, {1, 4}}));  // through the square's diagonal, shared by both halves
    for (Precision p : precisions()) {
        const Result dev = selfIntersections(ctx(), m, {Method::Hierarchy, p});
        EXPECT_EQ(dev.degenerate, ref.degenerate);
        EXPECT_EQ(dev.pairs, ref.pairs);
    }
}

TEST(MeshSelfIntersection, OverlappingCopyOfSpotMatchesCgal) {
    PORTACL_REQUIRE_DATA();
    const TriangleMesh m = withOverlappingCopy(readMesh(dataPath("mesh/spot.obj")), 0.3f);
    const Result cgal = selfIntersectionsCgal(m);
    EXPECT_GT(cgal.pairs.size(), 100u);
    if (cgalParallelAvailable()) {
        const Result tbb = selfIntersectionsCgal(m, true);
        EXPECT_EQ(tbb.pairs, cgal.pairs);
        EXPECT_EQ(tbb.candidates, cgal.candidates);
    }
    for (Method method : {Method::Hierarchy, Method::Grid, Method::AtomicList})
        for (Precision p : method == Method::AtomicList ? std::vector<Precision>{Precision::Mixed} : std::vector<Precision>{Precision::Float, Precision::Mixed}) {
            const Result dev = selfIntersections(ctx(), m, {method, p});
            EXPECT_EQ(dev.pairs, cgal.pairs) << methodName(method) << " " << precisionName(p);
            EXPECT_EQ(dev.candidates, cgal.candidates) << methodName(method) << " " << precisionName(p);
        }
}

// The grid's cells on meshes that strain them: two clusters far apart (the cell grows to keep the
// count of cells near the triangles'), one large triangle across many small ones (it is binned into
// many cells; each pair is still decided once), a single triangle, and only degenerate triangles.
TEST(MeshSelfIntersection, GridOnUnevenMeshesMatchesTheReference) {
    TriangleMesh apart = crossingGrids(3);
    TriangleMesh far = crossingGrids(2);
    for (std::size_t i = 0; i < far.points.size(); i += 3) far.points[i] += 1.0e6f;
    const std::uint32_t base = std::uint32_t(apart.vertexCount());
    apart.points.insert(apart.points.end(), far.points.begin(), far.points.end());
    for (std::uint32_t v : far.triangles) apart.triangles.push_back(v + base);
    apart.polygons = apart.triangleCount();
    TriangleMesh large = crossingGrids(8);
    const std::uint32_t corner = std::uint32_t(large.vertexCount());
    for (float c : {-1.0f, -1.0f, 0.3f, 9.0f, 0.5f, -0.2f, 0.5f, 9.0f, 0.4f}) large.points.push_back(c);
    for (std::uint32_t k = 0; k < 3; ++k) large.triangles.push_back(corner + k);
    large.polygons = large.triangleCount();
    const TriangleMesh single = makeMesh({0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 1, 2});
    const TriangleMesh flat = makeMesh({0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}, {0, 1, 2, 1, 2, 3});
    for (const TriangleMesh* m : std::vector<const TriangleMesh*>{&apart, &large, &single, &flat}) {
        const Result ref = selfIntersectionsReference(*m);
        for (Precision p : precisions()) {
            const Result dev = selfIntersections(ctx(), *m, {Method::Grid, p});
            EXPECT_EQ(dev.candidates, ref.candidates) << m->triangleCount() << " triangles, " << precisionName(p);
            EXPECT_EQ(dev.degenerate, ref.degenerate);
            EXPECT_EQ(dev.pairs, ref.pairs) << m->triangleCount() << " triangles, " << precisionName(p);
        }
    }
    EXPECT_GT(selfIntersectionsReference(large).pairs.size(), selfIntersectionsReference(crossingGrids(8)).pairs.size());
    // The far cluster: the cells grew so that at most 8 per triangle (or 4096) remain.
    std::vector<std::uint8_t> none(apart.triangleCount(), 0);
    EXPECT_LE(detail::gridShape(apart, none).cells, std::max<std::size_t>(4096, 8 * apart.triangleCount()));
}

TEST(MeshSelfIntersection, BunnyHasNoneAndWeldingLeavesTheTeapotsTrueCrossings) {
    PORTACL_REQUIRE_DATA();
    const TriangleMesh bunny = readMesh(dataPath("mesh/stanford-bunny.obj"));
    EXPECT_EQ(bunny.triangleCount(), 69451u);
    const std::size_t cgalCandidates = selfIntersectionsCgal(bunny).candidates;
    for (Precision p : precisions()) {
        const Result b = selfIntersections(ctx(), bunny, {Method::Hierarchy, p});
        EXPECT_TRUE(b.pairs.empty()) << precisionName(p);
        EXPECT_EQ(b.candidates, cgalCandidates) << precisionName(p);
    }
    TriangleMesh teapot = readMesh(dataPath("mesh/teapot.obj"));
    EXPECT_EQ(mergeVertices(teapot, 0.0), 403u);
    const Result welded = selfIntersections(ctx(), teapot, {Method::Hierarchy, Precision::Mixed});
    EXPECT_EQ(welded.pairs.size(), 161u);
    EXPECT_EQ(welded.pairs, selfIntersectionsCgal(teapot).pairs);
}

TEST(MeshOutput, ColouredPlyReadsBackAndThePictureMarksTheFaces) {
    const TriangleMesh m = crossingGrids(3);
    const Result r = selfIntersectionsReference(m);
    const auto faces = facesInvolved(r.pairs);
    const std::string p = (fs::temp_directory_path() / ("portacl_test_mesh_" + std::to_string(::getpid()) + "_out.ply")).string();
    writeColouredPly(p, m, faces, r.degenerate);
    const TriangleMesh back = readMesh(p);
    EXPECT_EQ(back.points, m.points);
    EXPECT_EQ(back.triangles, m.triangles);
    fs::remove(p);
    const io::Image img = meshPicture(m, faces, r.degenerate, 64);
    EXPECT_EQ(img.width, 192);
    std::size_t red = 0;
    const unsigned char* px = img.samples<unsigned char>();
    for (std::size_t i = 0; i < img.pixelCount(); ++i) red += px[3 * i] > px[3 * i + 1] + 60;
    EXPECT_GT(red, 100u);
}

// ---- point-in-mesh ----

TEST(MeshInside, SpotAgainstCgalAndTheReference) {
    PORTACL_REQUIRE_DATA();
    const TriangleMesh spot = readMesh(dataPath("mesh/spot.obj"));
    // Random points in the box, every 97th vertex (on the boundary), and the centres of some faces.
    std::mt19937 rng(3);
    std::vector<float> q;
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    for (std::size_t i = 0; i < spot.points.size(); ++i) lo[i % 3] = std::min(lo[i % 3], spot.points[i]), hi[i % 3] = std::max(hi[i % 3], spot.points[i]);
    for (int i = 0; i < 1500; ++i)
        for (int k = 0; k < 3; ++k) q.push_back(lo[k] + (hi[k] - lo[k]) * std::uniform_real_distribution<float>(-0.1f, 1.1f)(rng));
    for (std::size_t v = 0; v < spot.vertexCount(); v += 97)
        for (int k = 0; k < 3; ++k) q.push_back(spot.points[3 * v + std::size_t(k)]);
    // Points of faces' interiors rounded to float: within a rounding of the surface, on either side of
    // it or on it, which float cannot tell.
    for (std::size_t t = 0; t < spot.triangleCount(); t += 53) {
        const double a = std::uniform_real_distribution<double>(0.2, 0.4)(rng), b = std::uniform_real_distribution<double>(0.2, 0.4)(rng);
        for (int k = 0; k < 3; ++k) {
            const double p0 = spot.points[3 * spot.triangles[3 * t] + std::size_t(k)], p1 = spot.points[3 * spot.triangles[3 * t + 1] + std::size_t(k)];
            const double p2 = spot.points[3 * spot.triangles[3 * t + 2] + std::size_t(k)];
            q.push_back(float(p0 + a * (p1 - p0) + b * (p2 - p0)));
        }
    }
    const SideResult cgal = classifyPointsCgal(spot, q);
    const SideResult ref = classifyPointsReference(spot, q);
    EXPECT_EQ(ref.sides, cgal.sides);
    std::size_t inside = 0, boundary = 0;
    for (Side s : ref.sides) inside += s == Side::Inside, boundary += s == Side::Boundary;
    EXPECT_GT(inside, 100u);
    EXPECT_GE(boundary, (spot.vertexCount() + 96) / 97);  // the vertices (and any rounded point that fell on the surface)
    for (Precision p : precisions()) {
        const SideResult dev = classifyPoints(ctx(), spot, q, p);
        EXPECT_EQ(dev.sides, ref.sides) << precisionName(p);
        // Float cannot tell the rounded points' sides (nor a vertex on the surface): the host does, exactly.
        if (p == Precision::Float) {
            EXPECT_GT(dev.undecided, 20u);
            EXPECT_GE(dev.hostPoints, dev.undecided);
        }
    }
}

TEST(MeshInside, OpenMeshesAndBadPointsAreRefused) {
    const auto open = makeMesh({0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 1, 2});
    EXPECT_NE(errorOf([&] { classifyPointsReference(open, {0.1f, 0.1f, 0.1f}); }).find("closed mesh"), std::string::npos);
    const std::string p = writeTemp("points.txt", "0 0 0\n1 2\n");
    EXPECT_NE(errorOf([&] { readPoints(p); }).find("line 2"), std::string::npos);
    fs::remove(p);
}

TEST(MeshInside, AxisRaysThroughEdgesFallBackAndStayExact) {
    // A cube of 12 triangles; points whose axis rays run along its edges and through its vertices.
    const auto cube = makeMesh({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1},
                               {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7});
    const std::vector<float> q = {0.5f, 0.5f, 0.5f, 2, 0, 0, 0.5f, 0.5f, 1, 2, 2, 2, 1, 1, 0.5f, 0.25f, 0.5f, 0.5f, 0, 0, 0};
    const std::vector<Side> want = {Side::Inside, Side::Outside, Side::Boundary, Side::Outside, Side::Boundary, Side::Inside, Side::Boundary};
    EXPECT_EQ(classifyPointsReference(cube, q).sides, want);
    EXPECT_EQ(classifyPointsCgal(cube, q).sides, want);
    for (Precision p : precisions()) EXPECT_EQ(classifyPoints(ctx(), cube, q, p).sides, want) << precisionName(p);
}

// ---- animation ----

TEST(MeshFrames, RefittedFramesGiveEachFramesPairs) {
    PORTACL_REQUIRE_DATA();
    const TriangleMesh spot = readMesh(dataPath("mesh/spot.obj"));
    const TriangleMesh two = withOverlappingCopy(spot, 2.0f);  // apart at first
    FrameSequence seq(ctx(), two, Precision::Mixed);
    EXPECT_TRUE(seq.pairs().pairs.empty());
    TriangleMesh moved = two;
    for (int f = 1; f <= 3; ++f) {
        // The copy slides towards the original and through it.
        for (std::size_t i = spot.points.size(); i < moved.points.size(); i += 3) moved.points[i] = two.points[i] - 0.6f * float(f);
        seq.moveTo(moved.points);
        const Result got = seq.pairs();
        EXPECT_EQ(got.pairs, selfIntersectionsCgal(moved).pairs) << "frame " << f;
        if (f == 3) EXPECT_GT(got.pairs.size(), 100u);
    }
    EXPECT_NE(errorOf([&] { seq.moveTo({0, 0, 0}); }).find("the same vertices"), std::string::npos);
}

TEST(MeshFrames, AFrameWithOtherTrianglesIsRefused) {
    const fs::path dir = fs::temp_directory_path() / ("portacl_test_mesh_frames_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "f0.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n";
    std::ofstream(dir / "f1.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n";
    const TriangleMesh first = readMesh((dir / "f0.obj").string());
    const std::string e = errorOf([&] { readFrames(dir.string(), first); });
    EXPECT_NE(e.find("f1.obj"), std::string::npos) << e;
    fs::remove_all(dir);
}
