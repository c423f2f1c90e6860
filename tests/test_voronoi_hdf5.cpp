// HDF5 output of the Voronoi diagram: every dataset holds exactly the numbers of the text output (the
// same doubles, rebuilt into a diagram that formats to the text files byte for byte), the balls and
// summary are there, and the command line writes .h5 files atomically.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "portacl/io/hdf5_file.hpp"
#include "portacl/io/molecule.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/voronoi.hpp"
#include "support/test_support.hpp"

using namespace portacl;

namespace {

const std::string k1A8O = "pdb/1A8O.pdb";

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

bool fileExists(const std::string& p) { return std::ifstream(p).good(); }

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The diagram as an HDF5 file holds it (its counters from the attributes), checking the datasets' shapes.
voronoi::Diagram readDiagram(const io::Hdf5File& h) {
    voronoi::Diagram d;
    const std::int64_t nv = h.readInt64Attribute("/", "vertices"), ne = h.readInt64Attribute("/", "edges");
    EXPECT_EQ(h.dims("vertices/balls"), io::Dims({std::uint64_t(nv), 4}));
    EXPECT_EQ(h.dims("vertices/spheres"), io::Dims({std::uint64_t(nv), 4}));
    EXPECT_EQ(h.dims("edges/vertices"), io::Dims({std::uint64_t(ne), 2}));
    EXPECT_EQ(h.dims("edges/balls"), io::Dims({std::uint64_t(ne), 3}));
    EXPECT_EQ(h.dims("edges/bottleneck_radius"), io::Dims({std::uint64_t(ne)}));
    EXPECT_EQ(h.elementType("vertices/spheres"), io::ElementType::Float64);
    EXPECT_EQ(h.elementType("edges/vertices"), io::ElementType::Int64);
    EXPECT_EQ(h.elementType("edges/bottleneck_radius"), io::ElementType::Float64);
    const auto quads = h.readUInt64("vertices/balls");
    const auto spheres = h.readDouble("vertices/spheres");
    const auto ends = h.readDouble("edges/vertices");  // int64 -> double: exact for indices below 2^53
    const auto generators = h.readUInt64("edges/balls");
    const auto bottleneck = h.readDouble("edges/bottleneck_radius");
    d.vertices.resize(nv);
    for (std::int64_t i = 0; i < nv; ++i) {
        voronoi::Vertex& v = d.vertices[i];
        for (int k = 0; k < 4; ++k) v.q[k] = static_cast<int>(quads[i * 4 + k]);
        v.x = spheres[i * 4], v.y = spheres[i * 4 + 1], v.z = spheres[i * 4 + 2], v.r = spheres[i * 4 + 3];
    }
    d.edges.resize(ne);
    for (std::int64_t i = 0; i < ne; ++i) {
        voronoi::Edge& e = d.edges[i];
        e.v0 = static_cast<int>(ends[i * 2]), e.v1 = static_cast<int>(ends[i * 2 + 1]);
        for (int k = 0; k < 3; ++k) e.g[k] = static_cast<int>(generators[i * 3 + k]);
        e.minRadius = bottleneck[i];
    }
    d.components = static_cast<int>(h.readInt64Attribute("/", "components"));
    return d;
}

void expectSameBits(const voronoi::Diagram& a, const voronoi::Diagram& b) {
    ASSERT_EQ(a.vertices.size(), b.vertices.size());
    ASSERT_EQ(a.edges.size(), b.edges.size());
    for (std::size_t i = 0; i < a.vertices.size(); ++i) {
        const auto &u = a.vertices[i], &v = b.vertices[i];
        ASSERT_TRUE(std::equal(u.q, u.q + 4, v.q) && sameBits(u.x, v.x) && sameBits(u.y, v.y) && sameBits(u.z, v.z) &&
                    sameBits(u.r, v.r)) << "vertex " << i;
    }
    for (std::size_t i = 0; i < a.edges.size(); ++i) {
        const auto &e = a.edges[i], &f = b.edges[i];
        ASSERT_TRUE(e.v0 == f.v0 && e.v1 == f.v1 && std::equal(e.g, e.g + 3, f.g) && sameBits(e.minRadius, f.minRadius))
            << "edge " << i;
    }
}

void expectBalls(const io::Hdf5File& h, const std::vector<io::Ball>& balls) {
    ASSERT_EQ(h.dims("balls/spheres"), io::Dims({balls.size(), 4}));
    const auto b = h.readDouble("balls/spheres");
    for (std::size_t i = 0; i < balls.size(); ++i)
        ASSERT_TRUE(sameBits(b[i * 4], balls[i].x) && sameBits(b[i * 4 + 1], balls[i].y) &&
                    sameBits(b[i * 4 + 2], balls[i].z) && sameBits(b[i * 4 + 3], balls[i].r)) << "ball " << i;
    EXPECT_EQ(h.readInt64Attribute("/", "balls"), static_cast<std::int64_t>(balls.size()));
}

int runCli(const std::string& args, std::string* err = nullptr) {
    const std::string errFile = testing::TempDir() + "voronoi_hdf5_cli_stderr.txt";
    const int rc = std::system((std::string(PORTACL_CLI_PATH) + " voronoi " + args + " 2>" + errFile).c_str());
    if (err) *err = readText(errFile);
    return rc;
}

}  // namespace

TEST(VoronoiHdf5, DatasetsHoldTheTextOutputsNumbersExactly) {
    PORTACL_REQUIRE_DATA();
    const std::vector<io::Frame> frames = io::readMolecule(test::dataPath(k1A8O));
    ASSERT_EQ(frames.size(), 1u);
    const std::vector<io::Ball>& balls = frames[0].balls;
    voronoi::Options options;
    options.precision = test::hasFp64() ? Precision::Mixed : Precision::Float;
    const voronoi::Diagram d = voronoi::compute(test::context(), balls, options);
    ASSERT_GT(d.vertices.size(), 1000u);

    const std::string path = testing::TempDir() + "voronoi_hdf5_1a8o.h5";
    voronoi::Hdf5Info info;
    info.input = test::dataPath(k1A8O);
    info.precision = precisionName(options.precision);
    info.radii = "built-in";
    voronoi::writeHdf5(path, d, balls, info);

    const io::Hdf5File h = io::Hdf5File::open(path);
    const voronoi::Diagram back = readDiagram(h);
    expectSameBits(back, d);
    // Formatted as the text files are, the HDF5 numbers give those files byte for byte.
    EXPECT_TRUE(voronoi::formatVertices(back) == voronoi::formatVertices(d));
    EXPECT_TRUE(voronoi::formatEdges(back) == voronoi::formatEdges(d));
    expectBalls(h, balls);

    bool unbounded = false;
    for (const auto& e : back.edges) unbounded |= e.v1 == -1;
    EXPECT_TRUE(unbounded);  // hull edges are stored with -1
    EXPECT_EQ(h.readInt64Attribute("/", "hidden"), d.hiddenBalls);
    EXPECT_EQ(h.readInt64Attribute("/", "components"), d.components);
    EXPECT_EQ(h.readInt64Attribute("/", "phase2_edges"), static_cast<std::int64_t>(d.phase2Edges));
    EXPECT_EQ(h.readInt64Attribute("/", "redone_on_host"), static_cast<std::int64_t>(d.redoneOnHost));
    EXPECT_EQ(h.readInt64Attribute("/", "unresolved_edges"), static_cast<std::int64_t>(d.unresolvedEdges));
    EXPECT_EQ(h.readInt64Attribute("/", "searches"), static_cast<std::int64_t>(d.solvedEdges));
    EXPECT_EQ(h.readInt64Attribute("/", "waves"), d.waves);
    EXPECT_EQ(h.readInt64Attribute("/", "closed_edges"), static_cast<std::int64_t>(d.closedEdges));
    EXPECT_EQ(h.readInt64Attribute("/", "free_open_edges"), static_cast<std::int64_t>(d.freeEdges));
    EXPECT_EQ(h.readInt64Attribute("/", "pass_rounds"), d.passes);
    EXPECT_EQ(h.readInt64Attribute("/", "pass_faces"), static_cast<std::int64_t>(d.passFaces));
    EXPECT_EQ(h.readInt64Attribute("/", "pass_starts"), static_cast<std::int64_t>(d.passSeeds));
    EXPECT_FALSE(h.hasAttribute("/", "seconds"));  // a run's time is not data: the summary line gives it
    EXPECT_EQ(h.readStringAttribute("/", "precision"), info.precision);
    EXPECT_EQ(h.readStringAttribute("/", "input"), info.input);
    EXPECT_EQ(h.readStringAttribute("/", "radii"), "built-in");
    EXPECT_EQ(h.readInt64Attribute("/", "frame"), 1);
    EXPECT_EQ(h.readInt64Attribute("/", "frames"), 1);

    // Written again a second later, the file has the same bytes: HDF5 records no object times and the
    // summary no run time, so a batch over devices or ranks can promise the one-process bytes.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    const std::string again = testing::TempDir() + "voronoi_hdf5_1a8o_again.h5";
    voronoi::Diagram later = d;
    later.seconds = d.seconds + 1;
    voronoi::writeHdf5(again, later, balls, info);
    EXPECT_TRUE(readText(path) == readText(again));
    std::remove(again.c_str());
}

TEST(VoronoiHdf5Cli, H5OutputEqualsTheTextFilesAndTheSummary) {
    PORTACL_REQUIRE_DATA();
    const std::string dir = testing::TempDir();
    const std::string txt = dir + "voronoi_hdf5_cli.txt", edges = dir + "voronoi_hdf5_cli_edges.txt";
    const std::string h5 = dir + "voronoi_hdf5_cli.h5", hdf5 = dir + "voronoi_hdf5_cli.bin";
    const std::string radii = dir + "voronoi_hdf5_radii";
    std::ofstream(radii) << "* C* 1.7\n* N* 1.55\n* O* 1.52\n* S* 1.8\n* * 1.7\n";
    for (const auto& p : {txt, edges, h5, hdf5}) std::remove(p.c_str());
    const std::string input = test::dataPath(k1A8O) + " --serial --radii " + radii;
    std::string err;
    ASSERT_EQ(runCli(input + " -o " + txt + " --edges " + edges, &err), 0) << err;
    ASSERT_EQ(runCli(input + " -o " + h5, &err), 0) << err;
    ASSERT_EQ(runCli(input + " -o " + hdf5 + " --output-format hdf5", nullptr), 0);

    for (const std::string& path : {h5, hdf5}) {
        const io::Hdf5File h = io::Hdf5File::open(path);
        const voronoi::Diagram back = readDiagram(h);
        EXPECT_TRUE(voronoi::formatVertices(back) == readText(txt)) << path;
        EXPECT_TRUE(voronoi::formatEdges(back) == readText(edges)) << path;
        io::MoleculeOptions mo;
        mo.radiiFile = radii;
        expectBalls(h, io::readMolecule(test::dataPath(k1A8O), mo)[0].balls);
        EXPECT_EQ(h.readStringAttribute("/", "precision"), "serial");
        EXPECT_EQ(h.readStringAttribute("/", "radii"), radii);
        EXPECT_EQ(h.readStringAttribute("/", "radii_table"), readText(radii));
        // The summary line's counts.
        const std::string line = "vertices " + std::to_string(back.vertices.size()) + " edges " +
                                 std::to_string(back.edges.size()) + " components " +
                                 std::to_string(h.readInt64Attribute("/", "components"));
        EXPECT_NE(err.find(line), std::string::npos) << err << " vs " << line;
    }

    // An independent reader (h5py) sees the documented element types.
    const std::string py = "/usr/bin/python3 -c \"import h5py, sys; f = h5py.File(sys.argv[1], 'r'); "
                           "t = [str(f[n].dtype) for n in ('vertices/balls', 'vertices/spheres', 'edges/vertices', "
                           "'edges/balls', 'edges/bottleneck_radius', 'balls/spheres')]; "
                           "sys.exit(t != ['uint32', 'float64', 'int64', 'uint32', 'float64', 'float64'])\" ";
    if (std::system("/usr/bin/python3 -c 'import h5py' 2>/dev/null") == 0)
        EXPECT_EQ(std::system((py + h5).c_str()), 0);
}

TEST(VoronoiHdf5Cli, EveryModelGetsItsOwnFileAsInText) {
    PORTACL_REQUIRE_DATA();
    const std::string dir = testing::TempDir();
    const std::string out = dir + "voronoi_hdf5_2juy.h5";
    for (int f = 1; f <= 24; ++f) std::remove((dir + "voronoi_hdf5_2juy." + std::to_string(f) + ".h5").c_str());
    std::string err;
    ASSERT_EQ(runCli(test::dataPath("pdb/nmr_neopetrosiamide_2JUY.pdb") + " --serial -o " + out, &err), 0) << err;
    EXPECT_FALSE(fileExists(out));
    for (int f : {1, 24}) {
        const io::Hdf5File h = io::Hdf5File::open(dir + "voronoi_hdf5_2juy." + std::to_string(f) + ".h5");
        EXPECT_EQ(h.readInt64Attribute("/", "frame"), f);
        EXPECT_EQ(h.readInt64Attribute("/", "frames"), 24);
        EXPECT_GT(h.readInt64Attribute("/", "vertices"), 0);
    }
}

TEST(VoronoiHdf5Cli, UnwritablePathGivesOneSentenceAndNoFile) {
    PORTACL_REQUIRE_DATA();
    const std::string dir = testing::TempDir();
    // A missing directory, and a name that is a directory: both refused before the diagram is computed.
    const std::string missing = dir + "voronoi_hdf5_no_such_dir/out.h5";
    const std::string taken = dir + "voronoi_hdf5_taken.h5";
    mkdir(taken.c_str(), 0755);
    for (const std::string& out : {missing, taken}) {
        std::string err;
        EXPECT_NE(runCli(test::dataPath(k1A8O) + " --serial -o " + out, &err), 0) << out;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
        EXPECT_EQ(err.rfind("portacl voronoi: cannot write " + out + " (-o)", 0), 0u) << err;
    }
    EXPECT_FALSE(fileExists(missing));
    EXPECT_EQ(std::system(("ls " + dir + " | grep -q 'voronoi_hdf5_taken.h5.tmp'").c_str()) == 0, false)
        << "temporary file left";
    std::string err;
    EXPECT_NE(runCli(test::dataPath(k1A8O) + " --serial -o x.h5 --output-format netcdf", &err), 0);
    EXPECT_NE(err.find("unknown --output-format 'netcdf'"), std::string::npos) << err;
}
