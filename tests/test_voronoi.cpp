// Voronoi diagram of balls: input against Voronota's balls, vertices against Voronota's
// triangulation (1EMA, both radius sets), device against the serial reference, mixed against
// double, and planted degeneracies against the voronota binary when it is installed.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "portacl/io/molecule.hpp"
#include "portacl/runtime/error.hpp"
#include "common/voronoi_geometry.h"
#include "portacl/voronoi.hpp"
#include "support/test_support.hpp"

namespace geom = portacl::voronoi::geom;

using namespace portacl;

namespace {

const std::string kEma = "pdb/voronota_1EMA/";

std::vector<io::Ball> readExpectedBalls(const std::string& rel) { return io::readBallList(test::dataPath(rel)); }

struct Sphere {
    double x, y, z, r;
};
// Quadruple -> its tangent spheres, from text in Voronota's format.
std::map<std::array<int, 4>, std::vector<Sphere>> parseVertices(const std::string& text) {
    std::map<std::array<int, 4>, std::vector<Sphere>> out;
    std::istringstream in(text);
    std::array<int, 4> q;
    Sphere s;
    while (in >> q[0] >> q[1] >> q[2] >> q[3] >> s.x >> s.y >> s.z >> s.r) {
        std::sort(q.begin(), q.end());
        out[q].push_back(s);
    }
    return out;
}
std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Same quadruples, each sphere matched within tol (relative to r/10 Å for spheres above 10 Å); returns the number of differing quadruples.
int countDifferences(const std::string& a, const std::string& b, double tol, double* maxDiff = nullptr) {
    auto A = parseVertices(a), B = parseVertices(b);
    int bad = 0;
    double worst = 0;
    for (const auto& [q, spheres] : A) {
        auto it = B.find(q);
        if (it == B.end() || it->second.size() != spheres.size()) { ++bad; continue; }
        for (const Sphere& s : spheres) {
            double best = 1e300;
            for (const Sphere& t : it->second)
                best = std::min(best, std::max({std::fabs(s.x - t.x), std::fabs(s.y - t.y), std::fabs(s.z - t.z), std::fabs(s.r - t.r)}));
            worst = std::max(worst, best);
            if (best > tol * std::max(1.0, std::fabs(s.r) / 10)) ++bad;
        }
    }
    for (const auto& [q, spheres] : B)
        if (!A.count(q)) ++bad;
    if (maxDiff) *maxDiff = worst;
    return bad;
}

// Degenerate vertices (5+ balls on one sphere) have no unique quadruples: compare the distinct
// spheres (within 1e-2 Å: Voronota's own solutions of planted degenerate spheres are off by ~3e-3)
// and, per sphere, the set of balls the quadruples name. Spheres of radius above 1000 Å are left
// out: tangent to near-coplanar equal balls on the hull, they are numerical noise in both programs.
struct SphereGroup {
    Sphere s;
    std::set<int> balls;
};
std::vector<SphereGroup> sphereGroups(const std::string& text) {
    std::vector<SphereGroup> out;
    for (const auto& [q, spheres] : parseVertices(text))
        for (const Sphere& s : spheres) {
            if (std::fabs(s.r) > 1000) continue;
            SphereGroup* g = nullptr;
            for (auto& h : out)
                if (std::max({std::fabs(h.s.x - s.x), std::fabs(h.s.y - s.y), std::fabs(h.s.z - s.z), std::fabs(h.s.r - s.r)}) < 1e-2) g = &h;
            if (!g) out.push_back({s, {}}), g = &out.back();
            g->balls.insert(q.begin(), q.end());
        }
    return out;
}
// Returns a description of the first difference, or "" when the groups agree.
std::string compareSphereGroups(const std::string& a, const std::string& b) {
    const auto A = sphereGroups(a), B = sphereGroups(b);
    for (const auto* pair : {&A, &B}) {
        const auto& X = *pair;
        const auto& Y = pair == &A ? B : A;
        for (const auto& g : X) {
            const SphereGroup* match = nullptr;
            for (const auto& h : Y)
                if (std::max({std::fabs(h.s.x - g.s.x), std::fabs(h.s.y - g.s.y), std::fabs(h.s.z - g.s.z), std::fabs(h.s.r - g.s.r)}) < 1e-2) match = &h;
            std::ostringstream os;
            os << (pair == &A ? "ours" : "voronota's") << " sphere " << g.s.x << " " << g.s.y << " " << g.s.z << " " << g.s.r;
            if (!match) return os.str() + " has no counterpart";
            if (match->balls != g.balls) return os.str() + " touches other balls";
        }
    }
    return "";
}

// Every vertex sphere is empty: no ball other than its four intersects it (brute force).
int countNonEmpty(const voronoi::Diagram& d, const std::vector<io::Ball>& balls) {
    int bad = 0;
    for (const auto& v : d.vertices)
        for (std::size_t i = 0; i < balls.size(); ++i) {
            if (std::find(v.q, v.q + 4, static_cast<int>(i)) != v.q + 4) continue;
            const double dist = std::sqrt((v.x - balls[i].x) * (v.x - balls[i].x) + (v.y - balls[i].y) * (v.y - balls[i].y) +
                                          (v.z - balls[i].z) * (v.z - balls[i].z));
            if (dist < v.r + balls[i].r - 1e-6 * std::max(1.0, std::fabs(v.r))) {
                ++bad;
                break;
            }
        }
    return bad;
}

void writeBalls(const std::string& path, const std::vector<io::Ball>& balls) {
    std::ofstream out(path);
    out.precision(17);
    for (const auto& b : balls) out << b.x << ' ' << b.y << ' ' << b.z << ' ' << b.r << '\n';
}
bool haveVoronota() { return std::system("voronota --help >/dev/null 2>&1") == 0 || std::system("command -v voronota >/dev/null 2>&1") == 0; }
std::string runVoronota(const std::vector<io::Ball>& balls) {
    const std::string in = testing::TempDir() + "voronoi_balls.txt", out = testing::TempDir() + "voronoi_vertices.txt";
    writeBalls(in, balls);
    EXPECT_EQ(std::system(("voronota calculate-vertices < " + in + " > " + out).c_str()), 0);
    return readText(out);
}

void expectBallsEqual(const std::vector<io::Ball>& got, const std::vector<io::Ball>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i].x, want[i].x, 1e-9) << "ball " << i;
        EXPECT_NEAR(got[i].y, want[i].y, 1e-9) << "ball " << i;
        EXPECT_NEAR(got[i].z, want[i].z, 1e-9) << "ball " << i;
        EXPECT_NEAR(got[i].r, want[i].r, 1e-9) << "ball " << i;
    }
}

}  // namespace

TEST(VoronoiInput, PdbBallsEqualVoronotaDefaultRadii) {
    PORTACL_REQUIRE_DATA();
    const auto frames = io::readMolecule(test::dataPath(kEma + "structure.pdb"));
    ASSERT_EQ(frames.size(), 1u);
    expectBallsEqual(frames[0].balls, readExpectedBalls(kEma + "expected/default_radii/balls"));
}

TEST(VoronoiInput, PdbBallsEqualVoronotaCustomRadii) {
    PORTACL_REQUIRE_DATA();
    io::MoleculeOptions o;
    o.radiiFile = test::dataPath(kEma + "radii");
    const auto frames = io::readMolecule(test::dataPath(kEma + "structure.pdb"), o);
    expectBallsEqual(frames[0].balls, readExpectedBalls(kEma + "expected/custom_radii/balls"));
}

TEST(VoronoiInput, CifGivesVoronotasBalls) {
    PORTACL_REQUIRE_DATA();
    // The mmCIF file marks MSE and CRO as ATOM (the PDB file as HETATM), so it has 54 atoms more;
    // every PDB ball is among them, in the same order.
    const auto pdb = io::readMolecule(test::dataPath(kEma + "structure.pdb"));
    const auto cif = io::readMolecule(test::dataPath(kEma + "structure.cif"));
    ASSERT_EQ(cif[0].balls.size(), 1771u);
    std::size_t j = 0;
    for (const auto& b : cif[0].balls)
        if (j < pdb[0].balls.size() && b.x == pdb[0].balls[j].x && b.y == pdb[0].balls[j].y && b.z == pdb[0].balls[j].z && b.r == pdb[0].balls[j].r) ++j;
    EXPECT_EQ(j, pdb[0].balls.size());
    if (haveVoronota()) {
        const std::string out = testing::TempDir() + "voronoi_cif_balls.txt";
        ASSERT_EQ(std::system(("voronota get-balls-from-atoms-file --input-format mmcif < " + test::dataPath(kEma + "structure.cif") + " > " + out).c_str()), 0);
        expectBallsEqual(cif[0].balls, io::readBallList(out));
    }
}

TEST(VoronoiInput, MultiModelFileGivesFrames) {
    PORTACL_REQUIRE_DATA();
    io::MoleculeOptions o;
    o.hetero = true;
    const auto frames = io::readMolecule(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"), o);
    ASSERT_EQ(frames.size(), 24u);
    EXPECT_EQ(frames[0].balls.size(), 392u - 182u);  // hydrogens left out
    EXPECT_EQ(frames[23].balls.size(), frames[0].balls.size());
}

// The text files print "%d" and "%.15f" without printf (host/voronoi/decimal_text.cpp): the same
// bytes as snprintf for random doubles of every size, halves at the 16th decimal (odd multiples of
// 2^-16 and finer), values that round up to the next whole number, signed zeros and non-finite ones.
TEST(VoronoiFormat, NumbersArePrintfs) {
    std::mt19937_64 rng(7);
    std::vector<double> values = {0.0, -0.0, 1e-300, -4.9e-324, 0.9999999999999995, 0.9999999999999996, -0.9999999999999995,
                                  999999.9999999999995, 9007199254740991.0, 9007199254740992.0, 1e300, -1e300,
                                  std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
    for (int i = 0; i < 100000; ++i) {
        std::uint64_t bits = rng();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        values.push_back(v);
        values.push_back(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), std::uniform_int_distribution<int>(-70, 56)(rng)));
    }
    for (int k = 16; k <= 30; ++k)
        for (int j = -501; j <= 501; j += 2) values.push_back(std::ldexp(j, -k)), values.push_back(std::ldexp(j, -k) + 1234.0);
    voronoi::Diagram d;
    std::string expectVertices, expectEdges = "# v0 v1 g1 g2 g3 min_radius (v1 = -1: unbounded; -2 -2: closed, no vertex; -1 -1: open, no vertex)\n";
    char line[2048];
    for (std::size_t i = 0; i + 4 <= values.size(); i += 4) {
        const int q = static_cast<int>(i) - 1000000;
        d.vertices.push_back({{q, q + 1, q + 2, q + 3}, values[i], values[i + 1], values[i + 2], values[i + 3]});
        std::snprintf(line, sizeof line, "%d %d %d %d %.15f %.15f %.15f %.15f\n", q, q + 1, q + 2, q + 3, values[i], values[i + 1], values[i + 2], values[i + 3]);
        expectVertices += line;
        d.edges.push_back({q, -1, {q, 0, std::numeric_limits<int>::max()}, values[i]});
        std::snprintf(line, sizeof line, "%d %d %d %d %d %.15f\n", q, -1, q, 0, std::numeric_limits<int>::max(), values[i]);
        expectEdges += line;
    }
    EXPECT_TRUE(voronoi::formatVertices(d) == expectVertices);
    EXPECT_TRUE(voronoi::formatEdges(d) == expectEdges);
}

TEST(VoronoiInput, BadInputIsOneSentence) {
    PORTACL_REQUIRE_DATA();
    const std::string dir = testing::TempDir();
    const std::string text = dir + "voronoi_not_a_structure.pdb";
    std::ofstream(text) << "hello world\nthis is not a structure\n";
    EXPECT_THROW(io::readMolecule(text), Error);
    const std::string neg = dir + "voronoi_negative.xyzr";
    std::ofstream(neg) << "0 0 0 1\n1 1 1 -2\n";
    EXPECT_THROW(io::readMolecule(neg), Error);
    const std::string nan = dir + "voronoi_nan.xyzr";
    std::ofstream(nan) << "0 0 nan 1\n";
    EXPECT_THROW(io::readMolecule(nan), Error);
    const std::string radii = dir + "voronoi_radii_no_default";
    std::ofstream(radii) << "* C* 1.7\n* N* 1.55\n";  // no O, no S, no default row
    io::MoleculeOptions o;
    o.radiiFile = radii;
    try {
        io::readMolecule(test::dataPath(kEma + "structure.pdb"), o);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no entry for atom O"), std::string::npos) << e.what();
    }
    io::MoleculeOptions none;
    none.hetero = false;
    const std::string het = dir + "voronoi_only_het.pdb";
    std::ofstream(het) << "HETATM    1  O   HOH A   1       0.000   0.000   0.000  1.00  0.00           O\nEND\n";
    EXPECT_THROW(io::readMolecule(het, none), Error);
}

TEST(VoronoiReference, EqualsVoronotaOn1EMADefaultRadii) {
    PORTACL_REQUIRE_DATA();
    const auto d = voronoi::computeReference(readExpectedBalls(kEma + "expected/default_radii/balls"));
    double worst = 0;
    EXPECT_EQ(countDifferences(voronoi::formatVertices(d), readText(test::dataPath(kEma + "expected/default_radii/triangulation")), 1e-6, &worst), 0);
    EXPECT_EQ(d.vertices.size(), 11306u);
    EXPECT_LT(worst, 1e-6);
}

TEST(VoronoiReference, EqualsVoronotaOn1EMACustomRadii) {
    PORTACL_REQUIRE_DATA();
    const auto d = voronoi::computeReference(readExpectedBalls(kEma + "expected/custom_radii/balls"));
    EXPECT_EQ(countDifferences(voronoi::formatVertices(d), readText(test::dataPath(kEma + "expected/custom_radii/triangulation")), 1e-6), 0);
    EXPECT_EQ(d.vertices.size(), 11283u);
}

TEST(VoronoiReference, EdgesJoinVerticesSharingTheirTriple) {
    PORTACL_REQUIRE_DATA();
    const auto d = voronoi::computeReference(readExpectedBalls(kEma + "expected/default_radii/balls"));
    for (const auto& e : d.edges) {
        for (int v : {e.v0, e.v1}) {
            if (v < 0) continue;
            const auto& q = d.vertices[v].q;
            for (int g : e.g) ASSERT_NE(std::find(q, q + 4, g), q + 4);
            ASSERT_LE(e.minRadius, d.vertices[v].r + 1e-9);
        }
    }
    // Every vertex has four edges (counting each edge at both its ends).
    std::vector<int> degree(d.vertices.size(), 0);
    for (const auto& e : d.edges) {
        ++degree[e.v0];
        if (e.v1 >= 0) ++degree[e.v1];
    }
    for (int deg : degree) EXPECT_EQ(deg, 4);
}

class VoronoiDevice : public ::testing::Test {
protected:
    void SetUp() override { PORTACL_REQUIRE_DATA(); }
    static void SetUpTestSuite() {
        if (!test::hasFp64() || !test::hasData()) return;
        balls_ = new std::vector<io::Ball>(readExpectedBalls(kEma + "expected/default_radii/balls"));
        ref_ = new std::string(voronoi::formatVertices(voronoi::computeReference(*balls_)));
    }
    static void TearDownTestSuite() {
        delete balls_;
        delete ref_;
    }
    static std::vector<io::Ball>* balls_;
    static std::string* ref_;
};
std::vector<io::Ball>* VoronoiDevice::balls_ = nullptr;
std::string* VoronoiDevice::ref_ = nullptr;

TEST_F(VoronoiDevice, DoubleEqualsSerialReference) {
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    voronoi::Options o;
    o.precision = Precision::Double;
    EXPECT_TRUE(voronoi::formatVertices(voronoi::compute(test::context(), *balls_, o)) == *ref_)
        << "differing vertices: " << countDifferences(voronoi::formatVertices(voronoi::compute(test::context(), *balls_, o)), *ref_, 1e-6);
}

TEST_F(VoronoiDevice, MixedEqualsDoubleAndCountsPhase2) {
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    voronoi::Options o;
    o.precision = Precision::Mixed;
    o.tuning.mixedPhases = 2;  // the two phases, not double alone (CPU profiles)
    const auto d = voronoi::compute(test::context(), *balls_, o);
    EXPECT_TRUE(voronoi::formatVertices(d) == *ref_) << "differing vertices: " << countDifferences(voronoi::formatVertices(d), *ref_, 1e-6);
    EXPECT_GT(d.phase2Edges, 0u);
    EXPECT_LT(d.phase2Edges, d.solvedEdges);
    std::printf("[ info ] 1EMA mixed: %zu of %zu searches went to phase 2\n", d.phase2Edges, d.solvedEdges);
}

// Mixed as double alone (mixed_phases = 1, the CPU profiles' choice) gives the two phases' diagram,
// with no search left for a phase 2.
TEST_F(VoronoiDevice, MixedAsDoubleEqualsTheTwoPhases) {
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    voronoi::Options one, two;
    one.precision = two.precision = Precision::Mixed;
    one.tuning.mixedPhases = 1;
    two.tuning.mixedPhases = 2;
    const auto a = voronoi::compute(test::context(), *balls_, one);
    const auto b = voronoi::compute(test::context(), *balls_, two);
    EXPECT_TRUE(voronoi::formatVertices(a) == voronoi::formatVertices(b));
    EXPECT_TRUE(voronoi::formatEdges(a) == voronoi::formatEdges(b));
    EXPECT_EQ(a.phase2Edges, 0u);
    EXPECT_GT(b.phase2Edges, 0u);
}

TEST_F(VoronoiDevice, FloatAloneReportsDifferingVertices) {
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    voronoi::Options o;
    o.precision = Precision::Float;
    const auto d = voronoi::compute(test::context(), *balls_, o);
    const int differing = countDifferences(voronoi::formatVertices(d), *ref_, 1e-6);
    std::printf("[ info ] 1EMA float alone: %d differing vertices of %zu (%zu searches flagged, %zu float choices "
                "redone on the host in double)\n",
                differing, d.vertices.size(), d.phase2Edges, d.redoneOnHost);
    EXPECT_GT(d.vertices.size(), 0u);
}

// A search split over several work-items (lanes, several searches per work-group, a work-group per
// flagged search, narrow wide groups) gives the serial reference's file byte for byte, and float the
// same answers and flags as one work-item per search.
TEST_F(VoronoiDevice, SearchesSplitOverLanesGiveTheSameAnswers) {
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    voronoi::Options split;
    split.tuning.lanes = 4;
    split.tuning.group = 16;
    split.tuning.flaggedLanes = 32;
    split.tuning.wideGroup = 16;
    split.tuning.mixedPhases = 2;
    for (Precision p : {Precision::Double, Precision::Mixed}) {
        split.precision = p;
        const auto d = voronoi::compute(test::context(), *balls_, split);
        EXPECT_TRUE(voronoi::formatVertices(d) == *ref_)
            << precisionName(p) << ": differing vertices: " << countDifferences(voronoi::formatVertices(d), *ref_, 1e-6);
    }
    voronoi::Options one;
    one.precision = split.precision = Precision::Float;
    one.tuning.lanes = 1;
    const auto a = voronoi::compute(test::context(), *balls_, one);
    const auto b = voronoi::compute(test::context(), *balls_, split);
    EXPECT_TRUE(voronoi::formatVertices(a) == voronoi::formatVertices(b));
    EXPECT_EQ(a.phase2Edges, b.phase2Edges);
    EXPECT_EQ(a.solvedEdges, b.solvedEdges);
    EXPECT_EQ(a.waves, b.waves);
}

// Pruned double searches (the CPU profiles' prune) give the serial reference's file byte for byte:
// one work-item per search with the every-ball searches among them, split over lanes, and phase 2 of
// mixed mode; so do the searches that offer every candidate.
TEST_F(VoronoiDevice, PrunedSearchesGiveTheSameAnswers) {
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    struct Case {
        Precision precision;
        int prune, lanes, wideCandidates;
    };
    for (const Case c : {Case{Precision::Double, 1, 1, 1 << 20}, Case{Precision::Double, 1, 4, 64},
                         Case{Precision::Mixed, 1, 1, 0}, Case{Precision::Double, -1, 1, 0}}) {
        voronoi::Options o;
        o.precision = c.precision;
        o.tuning.prune = c.prune;
        o.tuning.lanes = c.lanes;
        o.tuning.group = 16;
        o.tuning.wideGroup = 16;
        o.tuning.wideCandidates = c.wideCandidates;
        o.tuning.mixedPhases = 2;
        const auto d = voronoi::compute(test::context(), *balls_, o);
        EXPECT_TRUE(voronoi::formatVertices(d) == *ref_)
            << precisionName(c.precision) << ", prune " << c.prune << ", lanes " << c.lanes
            << ": differing vertices: " << countDifferences(voronoi::formatVertices(d), *ref_, 1e-6);
    }
}

// Small work-groups where a wave has few searches (the CPU profiles' groups_per_unit) and at most 16
// searches a work-group (item_group): the same vertices as the serial reference, down to one search a
// work-group.
TEST_F(VoronoiDevice, SmallWorkGroupsGiveTheSameAnswers) {
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    for (const Precision p : {Precision::Float, Precision::Mixed, Precision::Double}) {
        for (const int perUnit : {4, 1024}) {
            for (const int itemGroup : {0, 16}) {
                voronoi::Options o;
                o.precision = p;
                o.tuning.lanes = 1;
                o.tuning.groupsPerUnit = perUnit;
                o.tuning.itemGroup = itemGroup;
                const auto d = voronoi::compute(test::context(), *balls_, o);
                EXPECT_TRUE(voronoi::formatVertices(d) == *ref_)
                    << precisionName(p) << ", " << perUnit << " groups per unit, item groups of " << itemGroup
                    << ": differing vertices: " << countDifferences(voronoi::formatVertices(d), *ref_, 1e-6);
            }
        }
    }
}

namespace {
// Random balls with planted degeneracies: five balls on one sphere, and a block of equal balls on a lattice.
std::vector<io::Ball> plantedBalls(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 12), ur(1.2, 1.9);
    std::vector<io::Ball> balls;
    for (int i = 0; i < 60; ++i) balls.push_back({u(rng), u(rng), u(rng), ur(rng)});
    // Five balls tangent to the sphere of centre (20, 6, 6) and radius 2: centres at 2 + r from it.
    const double dirs[5][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.6, -0.8, 0}};
    const double rs[5] = {1.5, 1.7, 1.2, 1.6, 1.4};
    for (int i = 0; i < 5; ++i)
        balls.push_back({20 + dirs[i][0] * (2 + rs[i]), 6 + dirs[i][1] * (2 + rs[i]), 6 + dirs[i][2] * (2 + rs[i]), rs[i]});
    for (int x = 0; x < 3; ++x)
        for (int y = 0; y < 3; ++y)
            for (int z = 0; z < 3; ++z) balls.push_back({30 + 2.5 * x, 2.5 * y, 2.5 * z, 1.0});
    return balls;
}
}  // namespace

TEST(VoronoiDegenerate, PlantedDegeneraciesMatchVoronota) {
    for (unsigned seed : {1u, 2u}) {
        const auto balls = plantedBalls(seed);
        const auto d = voronoi::computeReference(balls);
        ASSERT_GT(d.vertices.size(), 0u);
        const std::string ours = voronoi::formatVertices(d);
        if (test::hasFp64()) {
            voronoi::Options o;
            o.precision = Precision::Mixed;
            o.tuning.mixedPhases = 2;  // the two phases, not double alone (CPU profiles)
            EXPECT_TRUE(voronoi::formatVertices(voronoi::compute(test::context(), balls, o)) == ours)
                << "device (mixed) differs from the serial reference, seed " << seed;
        }
        if (!haveVoronota()) {
            std::printf("[ info ] voronota not installed: planted degeneracies checked against the reference only\n");
            continue;
        }
        EXPECT_EQ(countNonEmpty(d, balls), 0) << "seed " << seed;
        EXPECT_EQ(compareSphereGroups(ours, runVoronota(balls)), "") << "seed " << seed;
    }
}

TEST(VoronoiDegenerate, OctahedronAndCubicLatticeMatchVoronota) {
    std::vector<io::Ball> octa{{1, 0, 0, .5}, {-1, 0, 0, .5}, {0, 1, 0, .5}, {0, -1, 0, .5}, {0, 0, 1, .5}, {0, 0, -1, .5}};
    std::vector<io::Ball> lattice;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) lattice.push_back({2.0 * i, 2.0 * j, 2.0 * k, 0.8});
    for (const auto* balls : {&octa, &lattice}) {
        const auto d = voronoi::computeReference(*balls);
        ASSERT_GT(d.vertices.size(), 0u);
        EXPECT_EQ(countNonEmpty(d, *balls), 0);
        if (haveVoronota()) EXPECT_EQ(compareSphereGroups(voronoi::formatVertices(d), runVoronota(*balls)), "");
    }
}

TEST(VoronoiComponents, SeparateClustersAreAllFound) {
    std::vector<io::Ball> balls;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0, 6);
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 12; ++i) balls.push_back({u(rng) + 100.0 * c, u(rng), u(rng), 1.0 + 0.1 * (i % 4)});
    const auto d = voronoi::computeReference(balls);
    // Clusters 100 Å apart still share vertices (huge spheres between them): one connected diagram
    // that must still equal Voronota's.
    if (haveVoronota()) EXPECT_EQ(countDifferences(voronoi::formatVertices(d), runVoronota(balls), 1e-6), 0);
    std::set<int> used;
    for (const auto& v : d.vertices) used.insert(v.q, v.q + 4);
    EXPECT_EQ(used.size(), balls.size());
}

TEST(VoronoiFrames, BatchedFramesEqualEachFrameAlone) {
    PORTACL_REQUIRE_DATA();
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    const auto frames = io::readMolecule(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"));
    ASSERT_EQ(frames.size(), 24u);
    std::vector<std::vector<io::Ball>> some = {frames[0].balls, frames[7].balls, frames[23].balls};
    voronoi::Options o;
    o.precision = Precision::Mixed;
    o.tuning.mixedPhases = 2;  // the two phases, not double alone (CPU profiles)
    const auto batch = voronoi::computeFrames(test::context(), some, o);
    ASSERT_EQ(batch.size(), some.size());
    for (std::size_t f = 0; f < some.size(); ++f)
        EXPECT_TRUE(voronoi::formatVertices(batch[f]) == voronoi::formatVertices(voronoi::computeReference(some[f])))
            << "frame " << f;
}

// Issue 5 regression: in model 18 of 2JUY, a search of an edge of three atoms of a phenyl ring
// (balls 17, 18, 20) met another ring atom (19), whose line is tiny (the ring's atoms lie on one
// circle): float put its root before the end ball's (2, 6e-4 after it in double) and did not flag the
// search, so mixed traced on from a non-empty vertex (1209 vertices instead of 1187). Every frame of
// the ensemble, batched as the command line does, and model 18 alone: mixed == double == serial.
TEST(VoronoiFrames, NmrEnsembleMixedEqualsDoubleAndSerialReference) {
    PORTACL_REQUIRE_DATA();
    if (!test::hasFp64()) GTEST_SKIP() << "no fp64 on the test device";
    const auto frames = io::readMolecule(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb"));
    ASSERT_EQ(frames.size(), 24u);
    std::vector<std::vector<io::Ball>> all;
    for (const auto& f : frames) all.push_back(f.balls);
    voronoi::Options mixed, dbl;
    mixed.precision = Precision::Mixed;
    mixed.tuning.mixedPhases = 2;
    dbl.precision = Precision::Double;
    const auto m18 = voronoi::compute(test::context(), all[17], mixed);
    const auto d18 = voronoi::compute(test::context(), all[17], dbl);
    const auto r18 = voronoi::computeReference(all[17]);
    EXPECT_EQ(r18.vertices.size(), 1187u);
    EXPECT_TRUE(voronoi::formatVertices(m18) == voronoi::formatVertices(r18))
        << "differing vertices: " << countDifferences(voronoi::formatVertices(m18), voronoi::formatVertices(r18), 1e-6);
    EXPECT_TRUE(voronoi::formatVertices(d18) == voronoi::formatVertices(r18));
    EXPECT_TRUE(voronoi::formatEdges(m18) == voronoi::formatEdges(d18));
    EXPECT_EQ(m18.waves, d18.waves);
    EXPECT_EQ(m18.solvedEdges, d18.solvedEdges);
    const auto batchMixed = voronoi::computeFrames(test::context(), all, mixed);
    const auto batchDouble = voronoi::computeFrames(test::context(), all, dbl);
    ASSERT_EQ(batchMixed.size(), all.size());
    ASSERT_EQ(batchDouble.size(), all.size());
    for (std::size_t f = 0; f < all.size(); ++f) {
        const std::string ref = voronoi::formatVertices(voronoi::computeReference(all[f]));
        EXPECT_TRUE(voronoi::formatVertices(batchMixed[f]) == ref) << "mixed, model " << f + 1;
        EXPECT_TRUE(voronoi::formatVertices(batchDouble[f]) == ref) << "double, model " << f + 1;
    }
}

namespace {
int runCli(const std::string& args, std::string* err = nullptr) {
    const std::string errFile = testing::TempDir() + "voronoi_cli_stderr.txt";
    const int rc = std::system((std::string(PORTACL_CLI_PATH) + " voronoi " + args + " 2>" + errFile).c_str());
    if (err) *err = readText(errFile);
    return rc;
}
bool fileExists(const std::string& p) { return std::ifstream(p).good(); }
}  // namespace

TEST(VoronoiCli, WritesVoronotasFormatEdgesAndSummary) {
    PORTACL_REQUIRE_DATA();
    const std::string dir = testing::TempDir();
    const std::string out = dir + "voronoi_cli_vertices.txt", edges = dir + "voronoi_cli_edges.txt";
    std::remove(out.c_str());
    std::string err;
    ASSERT_EQ(runCli(test::dataPath(kEma + "structure.pdb") + " -o " + out + " --edges " + edges +
                         " --serial --radii " + test::dataPath(kEma + "radii"), &err), 0) << err;
    EXPECT_EQ(countDifferences(readText(out), readText(test::dataPath(kEma + "expected/custom_radii/triangulation")), 1e-6), 0);
    EXPECT_NE(err.find("vertices 11283"), std::string::npos) << err;
    EXPECT_NE(err.find("components 1"), std::string::npos) << err;
    EXPECT_NE(readText(edges).find(" -1 "), std::string::npos);  // unbounded edges are there
}

TEST(VoronoiCli, BadInputGivesOneSentenceAndNoFile) {
    const std::string dir = testing::TempDir();
    const std::string out = dir + "voronoi_cli_bad.txt";
    const std::string bad = dir + "voronoi_cli_bad_input.pdb";
    std::ofstream(bad) << "neither PDB nor mmCIF\n";
    const std::string neg = dir + "voronoi_cli_negative.xyzr";
    std::ofstream(neg) << "0 0 0 1\n3 0 0 -1\n0 3 0 1\n0 0 3 1\n";
    for (const std::string& input : {bad, neg, dir + "voronoi_cli_missing.pdb"}) {
        std::remove(out.c_str());
        std::string err;
        EXPECT_NE(runCli(input + " -o " + out + " --serial", &err), 0) << input;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
        EXPECT_EQ(err.rfind("portacl voronoi: ", 0), 0u) << err;
        EXPECT_FALSE(fileExists(out)) << input;
    }
}

TEST(VoronoiComponents, BallsInTheGapOfTwoBigBallsAreASecondComponent) {
    // Three small balls in the gap between two big ones, a ring of balls far around: the small balls'
    // vertices are joined to the ring's only through closed (elliptic) edges, so the vertex graph has
    // two pieces, and tracing from one start alone would miss one.
    std::vector<io::Ball> balls{{0, 0, 5.3, 5}, {0, 0, -5.3, 5}};
    for (int k = 0; k < 3; ++k) {
        const double a = 2 * M_PI * k / 3 + 0.1;
        balls.push_back({0.7 * std::cos(a), 0.7 * std::sin(a), 0.02 * k, 0.5});
    }
    for (int k = 0; k < 12; ++k) {
        const double a = 2 * M_PI * k / 12;
        balls.push_back({8 * std::cos(a), 8 * std::sin(a), 0.3 * (k % 3), 1.0});
    }
    const auto d = voronoi::computeReference(balls);
    EXPECT_EQ(d.components, 2);
    EXPECT_EQ(d.vertices.size(), 17u);  // Voronota 1.22 finds 17
    EXPECT_EQ(countNonEmpty(d, balls), 0);
    if (haveVoronota()) EXPECT_EQ(countDifferences(voronoi::formatVertices(d), runVoronota(balls), 1e-6), 0);
    if (test::hasFp64()) {
        voronoi::Options o;
        o.precision = Precision::Mixed;
        o.tuning.mixedPhases = 2;  // the two phases, not double alone (CPU profiles)
        const auto dev = voronoi::compute(test::context(), balls, o);
        EXPECT_EQ(dev.components, 2);
        EXPECT_TRUE(voronoi::formatVertices(dev) == voronoi::formatVertices(d));
    }
}

namespace {

// The wide kernels split a search's candidates over a work-group and merge the partial searches:
// the merge must give what one search offered every ball holds, whatever the split and order.
TEST(VoronoiSearch, MergedPartialSearchesEqualOneSearch) {
    using namespace geom;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> pos(-6, 6), rad(1.2, 1.9);
    int checked = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const vor_frame f = vor_make_frame(1.7, 3.0, 0.2, 0.1, 1.5, 1.2, 2.8, -0.3, 1.6);
        ASSERT_NE(f.kind, 0);
        std::vector<std::array<double, 4>> balls(60);
        for (auto& b : balls) b = {pos(rng), pos(rng), pos(rng), rad(rng)};
        // Some balls share a travel with another (equal balls mirrored through the plane of the
        // triple, and repeats): ties must go to the lower index, as in one search.
        for (int k = 0; k < 6; ++k) balls[50 + k] = balls[k];
        const double t0 = f.kind == 1 ? f.tc : 2.0, x0 = vor_param(&f, t0, 0.0);
        const int dir = trial % 2 ? 1 : -1;
        vor_search whole;
        vor_search_init(&whole, x0, dir, 1e-9, 1e-3, -1);
        for (int k = 0; k < 60; ++k) vor_search_consider(&f, &whole, k, balls[k][0], balls[k][1], balls[k][2], balls[k][3]);
        if (whole.bestK < 0) continue;
        ++checked;
        for (const int parts : {2, 3, 8, 64}) {
            std::vector<vor_search> part(parts);
            for (auto& q : part) vor_search_init(&q, x0, dir, 1e-9, 1e-3, -1);
            // Balls strided over the parts, each part offered its balls in reverse order.
            for (int k = 59; k >= 0; --k)
                vor_search_consider(&f, &part[k % parts], k, balls[k][0], balls[k][1], balls[k][2], balls[k][3]);
            for (int w = parts - 1; w > 0; --w) vor_search_merge(&part[w - 1], &part[w]);
            EXPECT_EQ(part[0].bestK, whole.bestK);
            EXPECT_EQ(part[0].best, whole.best);
            EXPECT_EQ(part[0].second, whole.second);
            EXPECT_EQ(part[0].bestT, whole.bestT);
            EXPECT_EQ(part[0].bestS, whole.bestS);
            EXPECT_EQ(part[0].bestCond, whole.bestCond);
            EXPECT_EQ(part[0].grazed, whole.grazed);
        }
    }
    EXPECT_GT(checked, 50);
}

// A pruned search (VOR_PRUNE: the balls near the start first, then each ball only if its line meets
// the arc up to the best found so far) must end where the search offered every ball does, and a ball
// whose line misses the final arc's triangle must have no root at or before the best.
TEST(VoronoiSearch, PrunedSearchEqualsOneSearch) {
    using namespace geom;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> pos(-6, 6), rad(1.2, 1.9), unit(0, 1);
    int checked = 0, missed = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const double r1 = rad(rng), r2 = rad(rng), r3 = rad(rng);
        const vor_frame f = vor_make_frame(r1, 2.5 + unit(rng), pos(rng) / 6, pos(rng) / 6, r2, pos(rng) / 4, 2.5 + unit(rng),
                                           pos(rng) / 6, r3);
        if (f.kind == 0) continue;
        // A start on the conic: an angle of the ellipse, or a point of the open branch.
        const double phi = 6.283185307179586 * unit(rng), sOpen = pos(rng);
        const double t0 = f.kind == 1 ? f.tc + f.at * std::cos(phi) : vor_open_t(&f, sOpen);
        const double s0 = f.kind == 1 ? f.as * std::sin(phi) : sOpen;
        const double x0 = vor_param(&f, t0, s0);
        const int dir = trial % 2 ? 1 : -1;
        std::vector<std::array<double, 4>> balls(80);
        for (auto& b : balls) b = {pos(rng), pos(rng), pos(rng), rad(rng)};
        vor_search whole, pruned;
        vor_search_init(&whole, x0, dir, 1e-9, 1e-9, -1);
        vor_search_init(&pruned, x0, dir, 1e-9, 1e-9, -1);
        for (int k = 0; k < 80; ++k) vor_search_consider(&f, &whole, k, balls[k][0], balls[k][1], balls[k][2], balls[k][3]);
        // The start centre (relative to c1) and the first ring, as edge_scan takes them.
        const double px = f.Ax + f.Bx * t0 + f.nx * s0, py = f.Ay + f.By * t0 + f.ny * s0, pz = f.Az + f.Bz * t0 + f.nz * s0;
        const double ring = t0 + f.rmax3 + 2;
        const auto misses = [&](const vor_hull& h, const std::array<double, 4>& b) {
            return h.usable && vor_hull_gap(&f, &h, b[0], b[1], b[2], b[3]) < 0;
        };
        for (int pass = 0; pass < 2; ++pass) {
            vor_hull hull = vor_search_hull(&f, &pruned, t0, s0);
            for (int k = 0; k < 80; ++k) {
                const auto& b = balls[k];
                const double e2 = (b[0] - px) * (b[0] - px) + (b[1] - py) * (b[1] - py) + (b[2] - pz) * (b[2] - pz);
                if ((e2 <= ring * ring) != (pass == 0) || misses(hull, b)) continue;
                const double before = pruned.best;
                vor_search_consider(&f, &pruned, k, b[0], b[1], b[2], b[3]);
                if (pruned.best != before) hull = vor_search_hull(&f, &pruned, t0, s0);
            }
        }
        EXPECT_EQ(pruned.bestK, whole.bestK);
        EXPECT_EQ(pruned.best, whole.best);
        EXPECT_EQ(pruned.bestT, whole.bestT);
        EXPECT_EQ(pruned.bestS, whole.bestS);
        if (whole.bestK < 0) continue;
        ++checked;
        const vor_hull hull = vor_search_hull(&f, &whole, t0, s0);
        for (int k = 0; k < 80; ++k) {
            if (!misses(hull, balls[k])) continue;
            ++missed;
            vor_search alone;
            vor_search_init(&alone, x0, dir, 1e-9, 1e-9, -1);
            vor_search_consider(&f, &alone, k, balls[k][0], balls[k][1], balls[k][2], balls[k][3]);
            EXPECT_TRUE(alone.bestK < 0 || alone.best > whole.best) << "trial " << trial << ", ball " << k;
        }
    }
    EXPECT_GT(checked, 100);
    EXPECT_GT(missed, 20 * checked);  // most balls miss the arc: what pruning gains
}

}  // namespace

// ---- The completeness pass (docs/voronoi.md, "Completeness pass") ----
namespace {

// Every vertex of a small set by brute force: all quadruples of balls that are not hidden, both tangent
// spheres of each (spheres below 1e4 A), empty of every other ball. Returns the spheres.
std::vector<Sphere> bruteForceVertices(const std::vector<io::Ball>& all) {
    using namespace geom;
    std::vector<io::Ball> b;
    for (std::size_t i = 0; i < all.size(); ++i) {
        bool hidden = false;
        for (std::size_t j = 0; j < all.size(); ++j) {
            if (i == j) continue;
            const double d = std::sqrt((all[i].x - all[j].x) * (all[i].x - all[j].x) + (all[i].y - all[j].y) * (all[i].y - all[j].y) +
                                       (all[i].z - all[j].z) * (all[i].z - all[j].z));
            hidden |= d + all[i].r < all[j].r;
        }
        if (!hidden) b.push_back(all[i]);
    }
    std::vector<Sphere> out;
    const int n = static_cast<int>(b.size());
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            for (int k = j + 1; k < n; ++k) {
                const vor_frame f = vor_make_frame(b[i].r, b[j].x - b[i].x, b[j].y - b[i].y, b[j].z - b[i].z, b[j].r, b[k].x - b[i].x,
                                                   b[k].y - b[i].y, b[k].z - b[i].z, b[k].r);
                if (f.kind == 0) continue;
                for (int l = k + 1; l < n; ++l) {
                    double la, lb, lc, t[2], s[2], cond;
                    vor_ball_line(&f, b[l].x - b[i].x, b[l].y - b[i].y, b[l].z - b[i].z, b[l].r, &la, &lb, &lc);
                    const int m = vor_roots(&f, la, lb, lc, t, s, &cond);
                    for (int r = 0; r < m; ++r) {
                        if (std::fabs(t[r]) > 1e4) continue;
                        const Sphere sp{b[i].x + f.Ax + f.Bx * t[r] + f.nx * s[r], b[i].y + f.Ay + f.By * t[r] + f.ny * s[r],
                                        b[i].z + f.Az + f.Bz * t[r] + f.nz * s[r], t[r]};
                        bool empty = true;
                        for (int o = 0; o < n && empty; ++o) {
                            if (o == i || o == j || o == k || o == l) continue;
                            const double d = std::sqrt((sp.x - b[o].x) * (sp.x - b[o].x) + (sp.y - b[o].y) * (sp.y - b[o].y) + (sp.z - b[o].z) * (sp.z - b[o].z));
                            empty = d >= sp.r + b[o].r - 1e-7;
                        }
                        if (empty) out.push_back(sp);
                    }
                }
            }
    return out;
}

// Whether every sphere of a has one in b within 1e-6 A, and the counts agree.
bool sameSpheres(const std::vector<Sphere>& a, const std::vector<Sphere>& b) {
    if (a.size() != b.size()) return false;
    for (const Sphere& s : a) {
        bool found = false;
        for (const Sphere& t : b)
            found |= std::max({std::fabs(s.x - t.x), std::fabs(s.y - t.y), std::fabs(s.z - t.z), std::fabs(s.r - t.r)}) < 1e-6;
        if (!found) return false;
    }
    return true;
}
std::vector<Sphere> spheresOf(const voronoi::Diagram& d) {
    std::vector<Sphere> out;
    for (const auto& v : d.vertices) out.push_back({v.x, v.y, v.z, v.r});
    return out;
}

// The device in every precision gives the serial reference's vertex and edge files and counters.
void expectDeviceEqualsReference(const std::vector<io::Ball>& balls, const voronoi::Diagram& ref) {
    for (Precision p : {Precision::Double, Precision::Mixed, Precision::Float}) {
        if (p != Precision::Float && !test::hasFp64()) continue;
        voronoi::Options o;
        o.precision = p;
        const auto d = voronoi::compute(test::context(), balls, o);
        EXPECT_TRUE(voronoi::formatVertices(d) == voronoi::formatVertices(ref)) << precisionName(p);
        EXPECT_TRUE(voronoi::formatEdges(d) == voronoi::formatEdges(ref)) << precisionName(p);
        EXPECT_EQ(d.components, ref.components) << precisionName(p);
        EXPECT_EQ(d.closedEdges, ref.closedEdges) << precisionName(p);
        // How many starts and triples the pass takes follows float's rounding, which OpenCL lets an
        // implementation choose within its ulp bounds (rusticl's division and square root are not
        // PoCL's): counted in double and mixed only; the diagram above is held in every precision.
        if (p == Precision::Float) continue;
        EXPECT_EQ(d.passSeeds, ref.passSeeds) << precisionName(p);
        EXPECT_EQ(d.passTriples, ref.passTriples) << precisionName(p);
    }
}

}  // namespace

// (a) A loose triple: a small ball between two big ones (off their axis, so that the three centres
// span a plane), a ring of balls far around. The spheres tangent to the three circle the small ball
// on a closed ellipse that no other ball cuts and that has no vertex: tracing never reaches it. The
// pass reports it as `-2 -2 g1 g2 g3 bottleneck`, the bottleneck checked against an independent
// computation: in the plane z = 0 (the big balls' bisector) the tangent sphere at azimuth phi around
// the axis is found by bisection on its distance from the axis; the smallest radius over 20 000
// azimuths (refined by golden section) is the bottleneck.
TEST(VoronoiCompleteness, LooseTripleIsAClosedEdgeWithItsBottleneck) {
    const double R = 5, h = 5.3, rs = 0.5, sx = 0.2;
    std::vector<io::Ball> balls{{0, 0, h, R}, {0, 0, -h, R}, {sx, 0, 0, rs}};
    for (int k = 0; k < 12; ++k) {
        const double a = 2 * M_PI * k / 12;
        balls.push_back({8 * std::cos(a), 8 * std::sin(a), 0.3 * (k % 3), 1.0});
    }
    const auto plain = voronoi::computeReference(balls, false);
    const auto d = voronoi::computeReference(balls);
    EXPECT_EQ(plain.closedEdges, 0u);
    ASSERT_EQ(d.closedEdges, 1u);
    EXPECT_TRUE(voronoi::formatVertices(d) == voronoi::formatVertices(plain));  // no vertex on it
    EXPECT_EQ(d.components, plain.components + 1);  // a piece of its own
    const voronoi::Edge* closed = nullptr;
    for (const auto& e : d.edges)
        if (e.v0 == -2) closed = &e;
    ASSERT_NE(closed, nullptr);
    EXPECT_EQ(closed->v1, -2);
    EXPECT_EQ(closed->g[0], 0);
    EXPECT_EQ(closed->g[1], 1);
    EXPECT_EQ(closed->g[2], 2);
    // t(phi): the sphere at (rho cos phi, rho sin phi, 0) tangent to both big balls and the small one.
    const auto radiusAt = [&](double phi) {
        double lo = 0, hi = 10;
        const auto f = [&](double rho) {
            const double tb = std::sqrt(rho * rho + h * h) - R;
            const double ts = std::sqrt((rho * std::cos(phi) - sx) * (rho * std::cos(phi) - sx) + rho * rho * std::sin(phi) * std::sin(phi)) - rs;
            return tb - ts;  // > 0 near the axis (the small ball is nearer), < 0 far out
        };
        for (int it = 0; it < 200; ++it) (f(0.5 * (lo + hi)) > 0 ? lo : hi) = 0.5 * (lo + hi);
        const double rho = 0.5 * (lo + hi);
        return std::sqrt(rho * rho + h * h) - R;
    };
    double best = 1e300, bestPhi = 0;
    for (int i = 0; i < 20000; ++i) {
        const double phi = 2 * M_PI * i / 20000, t = radiusAt(phi);
        if (t < best) best = t, bestPhi = phi;
    }
    double a = bestPhi - 2 * M_PI / 20000, b = bestPhi + 2 * M_PI / 20000;
    for (int it = 0; it < 100; ++it) {
        const double m1 = a + (b - a) * 0.381966, m2 = a + (b - a) * 0.618034;
        (radiusAt(m1) < radiusAt(m2) ? b : a) = radiusAt(m1) < radiusAt(m2) ? m2 : m1;
    }
    EXPECT_NEAR(closed->minRadius, radiusAt(0.5 * (a + b)), 1e-9);
    // Every sampled sphere of the ellipse is empty of the ring.
    for (int i = 0; i < 360; ++i) {
        const double phi = 2 * M_PI * i / 360, t = radiusAt(phi);
        double lo = 0, hi = 10;
        (void)lo, (void)hi;
        for (std::size_t k = 3; k < balls.size(); ++k) {
            const double rho = std::sqrt((t + R) * (t + R) - h * h);
            const double dx = rho * std::cos(phi) - balls[k].x, dy = rho * std::sin(phi) - balls[k].y, dz = -balls[k].z;
            EXPECT_GT(std::sqrt(dx * dx + dy * dy + dz * dz), t + balls[k].r);
        }
    }
    EXPECT_NE(voronoi::formatEdges(d).find("-2 -2 0 1 2 "), std::string::npos);
    if (haveVoronota()) EXPECT_EQ(countDifferences(voronoi::formatVertices(d), runVoronota(balls), 1e-6), 0);
    expectDeviceEqualsReference(balls, d);
}

namespace {
// (b) A piece no start reaches, all of whose balls are in other vertices: two big balls with a gap,
// a pair of small balls trapped in the gap near their axis (a hole in the big balls' face, its own
// piece), and a ring of 12 balls around, each pair of ring neighbours with a pair of tiny balls
// trapped in their gap. Every ball is in a vertex of some trapped piece, so no later start comes from
// a ball in no vertex; the starts of the blocks land in trapped pieces (their balls are the nearest),
// and the piece of the big balls and the ring (the outer loop of the big balls' face, and the ring's
// own vertices) is missed by tracing alone. The pass's meridian from the hole's top outward meets
// the ring's balls beyond it.
std::vector<io::Ball> faceWithHoleBalls() {
    std::vector<io::Ball> balls{{0, 0, 5.3, 5}, {0, 0, -5.3, 5}, {0.3, 0, 0.02, 0.3}, {-0.3, 0.05, -0.02, 0.3}};
    for (int k = 0; k < 12; ++k) {
        const double a = 2 * M_PI * k / 12;
        balls.push_back({8 * std::cos(a), 8 * std::sin(a), 0, 1.9});
    }
    for (int k = 0; k < 12; ++k) {
        const double a = 2 * M_PI * (k + 0.5) / 12, r = 8 * std::cos(M_PI / 12);
        balls.push_back({r * std::cos(a), r * std::sin(a), 0.2, 0.22});
        balls.push_back({r * std::cos(a) + 0.02, r * std::sin(a), -0.2, 0.22});
    }
    return balls;
}
}  // namespace

TEST(VoronoiCompleteness, PieceWhoseBallsAreAllInOtherVerticesIsFound) {
    const auto balls = faceWithHoleBalls();
    const auto plain = voronoi::computeReference(balls, false);
    const auto d = voronoi::computeReference(balls);
    // Tracing alone: every ball is in a vertex, yet vertices are missing.
    std::set<int> used;
    for (const auto& v : plain.vertices) used.insert(v.q, v.q + 4);
    EXPECT_EQ(used.size(), balls.size());
    const auto brute = bruteForceVertices(balls);
    EXPECT_LT(plain.vertices.size(), brute.size());
    std::printf("[ info ] face with a hole: tracing alone %zu vertices, with the pass %zu (%zu starts in %d rounds), brute force %zu\n",
                plain.vertices.size(), d.vertices.size(), d.passSeeds, d.passes, brute.size());
    // With the pass: every vertex of the brute-force enumeration, and no other.
    EXPECT_GT(d.passSeeds, 0u);
    EXPECT_TRUE(sameSpheres(spheresOf(d), brute));
    EXPECT_EQ(countNonEmpty(d, balls), 0);
    expectDeviceEqualsReference(balls, d);
    // The device without the pass gives tracing's answer (the same missed piece).
    if (test::hasFp64()) {
        voronoi::Options o;
        o.completenessPass = false;
        EXPECT_TRUE(voronoi::formatVertices(voronoi::compute(test::context(), balls, o)) == voronoi::formatVertices(plain));
    }
}

// Random small sets of big and small balls (where closed edges and pieces in gaps abound): with the
// pass the vertices equal the brute-force enumeration's, every closed edge it reports is a closed
// conic whose sampled spheres are all empty, and the device equals the serial reference.
TEST(VoronoiCompleteness, RandomBigAndSmallBallsEqualBruteForce) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0, 1);
    std::size_t closed = 0;
    for (int trial = 0; trial < 40; ++trial) {
        std::vector<io::Ball> balls;
        const int nb = 5 + trial % 4, ns = 10 + trial % 9;
        for (int i = 0; i < nb; ++i) balls.push_back({u(rng) * 14, u(rng) * 14, u(rng) * 14, 3 + u(rng) * 4});
        for (int i = 0; i < ns; ++i) balls.push_back({u(rng) * 14, u(rng) * 14, u(rng) * 14, 0.2 + u(rng)});
        const auto d = voronoi::computeReference(balls);
        EXPECT_TRUE(sameSpheres(spheresOf(d), bruteForceVertices(balls))) << "trial " << trial;
        for (const auto& e : d.edges) {
            if (e.v0 != -2) continue;
            ++closed;
            using namespace geom;
            const io::Ball &A = balls[e.g[0]], &B = balls[e.g[1]], &C = balls[e.g[2]];
            const vor_frame f = vor_make_frame(A.r, B.x - A.x, B.y - A.y, B.z - A.z, B.r, C.x - A.x, C.y - A.y, C.z - A.z, C.r);
            ASSERT_EQ(f.kind, 1);
            EXPECT_NEAR(e.minRadius, f.tc - f.at, 1e-12);
            for (int i = 0; i < 720; ++i) {
                const double phi = 2 * M_PI * i / 720, t = f.tc + f.at * std::cos(phi), s = f.as * std::sin(phi);
                const double x = A.x + f.Ax + f.Bx * t + f.nx * s, y = A.y + f.Ay + f.By * t + f.ny * s, z = A.z + f.Az + f.Bz * t + f.nz * s;
                for (std::size_t o = 0; o < balls.size(); ++o) {
                    if (static_cast<int>(o) == e.g[0] || static_cast<int>(o) == e.g[1] || static_cast<int>(o) == e.g[2]) continue;
                    bool hidden = false;
                    for (const auto& q : balls)
                        hidden |= &q != &balls[o] && std::sqrt((balls[o].x - q.x) * (balls[o].x - q.x) + (balls[o].y - q.y) * (balls[o].y - q.y) +
                                                               (balls[o].z - q.z) * (balls[o].z - q.z)) + balls[o].r < q.r;
                    if (hidden) continue;
                    const double dist = std::sqrt((x - balls[o].x) * (x - balls[o].x) + (y - balls[o].y) * (y - balls[o].y) + (z - balls[o].z) * (z - balls[o].z));
                    ASSERT_GE(dist, t + balls[o].r - 1e-9) << "trial " << trial << " closed edge " << e.g[0] << " " << e.g[1] << " " << e.g[2];
                }
            }
        }
        if (trial % 8 == 0) expectDeviceEqualsReference(balls, d);
    }
    std::printf("[ info ] 40 random sets: %zu closed edges, every one empty where sampled\n", closed);
    EXPECT_GT(closed, 10u);
}

// (c) Proteins: the pass finds nothing new (tracing is complete there); its counters are reported.
TEST(VoronoiCompleteness, ProteinsGainNothingFromThePass) {
    PORTACL_REQUIRE_DATA();
    for (const std::string name : {"pdb/1A8O.pdb", "pdb/2BEG.pdb"}) {
        const auto frames = io::readMolecule(test::dataPath(name));
        const auto d = voronoi::computeReference(frames[0].balls);
        EXPECT_EQ(d.passSeeds, 0u) << name;
        EXPECT_EQ(d.closedEdges + d.freeEdges, 0u) << name;
        EXPECT_EQ(d.passes, 1) << name;
        EXPECT_GT(d.passFaces, 0u) << name;
        std::printf("[ info ] %s: the pass tested %zu faces, %zu triples, flagged %zu\n", name.c_str(), d.passFaces, d.passTriples, d.passFlagged);
        if (test::hasFp64()) {
            voronoi::Options o;
            o.precision = Precision::Mixed;
            o.tuning.mixedPhases = 2;  // the two phases, not double alone (CPU profiles)
            const auto dev = voronoi::compute(test::context(), frames[0].balls, o);
            EXPECT_TRUE(voronoi::formatVertices(dev) == voronoi::formatVertices(d)) << name;
            EXPECT_EQ(dev.passFaces, d.passFaces) << name;
            EXPECT_EQ(dev.passFlagged, d.passFlagged) << name;
        }
    }
}

// ---- Mixed without fp64: phase 2 on the host, in double (host/voronoi/voronoi.cpp) ----

// Rusticl shows its llvmpipe device (no fp64) only when asked before the first OpenCL call.
const int kRusticl = (setenv("RUSTICL_ENABLE", "llvmpipe", 0), 0);

// 1EMA, both radius sets, in Mixed on ctx: phase 2 on the host; the vertices equal the serial double
// reference's exactly and Voronota's triangulation (within 1e-6 Å).
void expectMixedOnHostEqualsVoronota(Context& ctx, const voronoi::SearchTuning& tuning) {
    for (const char* radii : {"default_radii", "custom_radii"}) {
        const auto balls = readExpectedBalls(kEma + "expected/" + radii + "/balls");
        voronoi::Options o;
        o.precision = Precision::Mixed;
        o.tuning = tuning;
        o.tuning.mixedPhases = 2;  // the two phases, not double alone (CPU profiles)
        const auto d = voronoi::compute(ctx, balls, o);
        const std::string text = voronoi::formatVertices(d);
        EXPECT_EQ(d.phase2, Phase2Arithmetic::Host) << radii;
        EXPECT_GT(d.phase2Edges, 0u) << radii;
        EXPECT_TRUE(text == voronoi::formatVertices(voronoi::computeReference(balls))) << radii;
        EXPECT_EQ(countDifferences(text, readText(test::dataPath(kEma + "expected/" + radii + "/triangulation")), 1e-6), 0)
            << radii;
        std::printf("[ info ] 1EMA %s, mixed on %s: %zu of %zu searches to phase 2 (on the host)\n", radii,
                    ctx.device().label().c_str(), d.phase2Edges, d.solvedEdges);
    }
}

TEST(VoronoiMixedWithoutDouble, ForcedOnTheTestDeviceEqualsVoronota) {
    PORTACL_REQUIRE_DATA();
    setenv("PORTACL_FORCE_DOUBLE_FLOAT", "1", 1);
    expectMixedOnHostEqualsVoronota(test::context(), {});
    unsetenv("PORTACL_FORCE_DOUBLE_FLOAT");
}

TEST(VoronoiMixedWithoutDouble, OnRusticlEqualsVoronota) {
    PORTACL_REQUIRE_DATA();
    (void)kRusticl;
    Context* ctx = portacl::test::rusticlContext();
    if (!ctx) GTEST_SKIP() << "Mesa's rusticl (llvmpipe) is not installed";
    ASSERT_FALSE(ctx->device().fp64);
    voronoi::SearchTuning tuning;
    tuning.wideGroup = 32;  // llvmpipe allows the wide kernel fewer than 64 work-items
    expectMixedOnHostEqualsVoronota(*ctx, tuning);
    // Double stays refused, in one sentence that names mixed.
    voronoi::Options o;
    o.precision = Precision::Double;
    try {
        voronoi::compute(*ctx, readExpectedBalls(kEma + "expected/default_radii/balls"), o);
        FAIL() << "double ran without fp64";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("use mixed precision"), std::string::npos) << e.what();
    }
}
