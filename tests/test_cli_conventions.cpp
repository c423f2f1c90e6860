// The `portacl` command as a newcomer meets it: PORTACL_DEVICE, one meaning per flag across commands,
// Voronoi's default precision, Voronota's pipes, the lineal path's files, one-sentence refusals,
// `portacl help CMD`, and the bench's table, baseline and plot.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "portacl/gemm.hpp"
#include "portacl/io/hdf5_file.hpp"
#include "portacl/io/volume.hpp"
#include "support/test_support.hpp"

using namespace portacl;

namespace {

std::string scratch(const std::string& name) { return testing::TempDir() + "portacl_conv_" + name; }

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct CliRun {
    int status;
    std::string out, err;
};

// Runs `env portacl args` through the shell; stdout and stderr are kept apart.
CliRun cli(const std::string& args, const std::string& env = "") {
    const std::string outFile = scratch("stdout.txt"), errFile = scratch("stderr.txt");
    const std::string cmd = env + (env.empty() ? "" : " ") + PORTACL_CLI_PATH + " " + args + " >" + outFile + " 2>" + errFile;
    const int raw = std::system(cmd.c_str());
    CliRun r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, readText(outFile), ""};
    std::istringstream err(readText(errFile));
    for (std::string line; std::getline(err, line);)  // the device notice is not part of the answer
        if (line.find("no GPU found") == std::string::npos) r.err += line + "\n";
    std::remove(outFile.c_str());
    std::remove(errFile.c_str());
    return r;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

void expectOneSentence(const CliRun& r, const std::string& needle) {
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

// The device the suite runs on, as a --device spec.
std::string testDevice() {
    const auto& d = test::context().device();
    return std::to_string(d.platformIndex) + ":" + std::to_string(d.deviceIndex);
}

bool hasMatplotlib() {
    for (const char* py : {"python3", "/usr/bin/python3"})
        if (std::system((std::string(py) + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0) return true;
    return false;
}

}  // namespace

TEST(CliDevice, PortaclDeviceIsUsedWhenNoDeviceIsGiven) {
    // The variable alone decides: a spec that matches nothing is refused, naming it.
    expectOneSentence(cli("vector-sum -n 64", "PORTACL_DEVICE=no-such-device-anywhere"), "no-such-device-anywhere");
    expectOneSentence(cli("gemm --m 8 --n 8 --k 8", "PORTACL_DEVICE=no-such-device-anywhere"), "no-such-device-anywhere");
    // --device wins over it.
    const CliRun r = cli("vector-sum -n 64 --device " + testDevice(), "PORTACL_DEVICE=no-such-device-anywhere");
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(CliFlags, DashOIsTheOutputEverywhere) {
    // filter: -o names the output image (it used to be --op).
    const std::string in = scratch("in.pgm"), out = scratch("out.pgm"), ref = scratch("ref.pgm");
    {
        std::ofstream f(in, std::ios::binary);
        f << "P5\n4 3\n255\n";
        for (int i = 0; i < 12; ++i) f.put(static_cast<char>(i * 20));
    }
    const CliRun a = cli("filter " + in + " -o " + out + " --op box:3 --device " + testDevice());
    ASSERT_EQ(a.status, 0) << a.err;
    const CliRun b = cli("filter " + in + " " + ref + " --op box:3 --serial");
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_EQ(readText(out), readText(ref));
    // Every command that writes a file names its output with -o; the serial reference is --serial.
    for (const std::string cmd : {"filter", "lineal-path", "reconstruct", "voronoi"}) {
        const CliRun h = cli(cmd + " --help");
        EXPECT_NE(h.out.find("-o [ --output ]"), std::string::npos) << cmd << ":\n" << h.out;
        EXPECT_NE(h.out.find("--serial"), std::string::npos) << cmd;
        EXPECT_EQ(h.out.find("--reference"), std::string::npos) << cmd;
    }
    for (const auto& f : {in, out, ref}) std::remove(f.c_str());
}

TEST(CliFlags, KWaveStorageIsNotCalledMixed) {
    const CliRun h = cli("kwave --help");
    EXPECT_NE(h.out.find("--storage"), std::string::npos) << h.out;
    EXPECT_NE(h.out.find("--checkpoint_file"), std::string::npos);  // k-Wave's own spelling stays
    EXPECT_EQ(h.out.find("mixed-max"), std::string::npos);
    expectOneSentence(cli("kwave --precision mixed-max"), "--storage reduced-max");
    expectOneSentence(cli("kwave --storage half"), "unknown storage");
}

TEST(CliFlags, VoronoiDefaultsToMixedAsDocumented) {
    const CliRun h = cli("voronoi --help");
    EXPECT_NE(h.out.find("[ --precision ] arg (=mixed)"), std::string::npos) << h.out;
    EXPECT_NE(cli("filter --help").out.find("[ --precision ] arg (=float)"), std::string::npos);
    if (!test::hasFp64()) GTEST_SKIP() << "mixed needs fp64 on the test device";
    PORTACL_REQUIRE_DATA();
    const std::string out = scratch("1a8o.h5");
    const CliRun r = cli("voronoi " + test::dataPath("pdb/1A8O.pdb") + " -o " + out + " --device " + testDevice());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(io::Hdf5File::open(out).readStringAttribute("/", "precision"), "mixed");
    std::remove(out.c_str());
}

TEST(CliVoronoi, ReadsStandardInputAndWritesStandardOutput) {
    PORTACL_REQUIRE_DATA();
    const std::string pdb = test::dataPath("pdb/1A8O.pdb"), file = scratch("1a8o.txt");
    ASSERT_EQ(cli("voronoi " + pdb + " -o " + file + " --serial").status, 0);
    // Voronota's pipes: a structure on stdin, the vertices on stdout; the summary stays on stderr.
    const CliRun piped = cli("voronoi - -o - --serial < " + pdb);
    ASSERT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(piped.out, readText(file));
    EXPECT_NE(piped.err.find("vertices"), std::string::npos) << piped.err;
    // A ball list (x y z r # atom) on stdin, as voronota get-balls-from-atoms-file writes it.
    if (std::system("command -v voronota >/dev/null 2>&1") == 0) {
        const std::string balls = scratch("1a8o.balls");
        ASSERT_EQ(std::system(("voronota get-balls-from-atoms-file < " + pdb + " > " + balls).c_str()), 0);
        const CliRun fromBalls = cli("voronoi - -o - --serial < " + balls);
        EXPECT_EQ(fromBalls.status, 0) << fromBalls.err;
        EXPECT_EQ(fromBalls.out, readText(file));
        std::remove(balls.c_str());
    }
    expectOneSentence(cli("voronoi " + pdb + " -o - --output-format hdf5 --serial"), "standard output");
    std::remove(file.c_str());
}

TEST(CliLinealPath, WritesARealNpyAndTypedHdf5) {
    io::Volume v;
    v.ny = 16;
    v.nx = 16;
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) v.data.push_back(x % 8 < 3 ? 1 : 0);
    const std::string in = scratch("stripes.npy"), npy = scratch("L.npy"), h5 = scratch("L.h5");
    io::writeNpyU8(in, v);
    const std::string common = "lineal-path " + in + " --phase 1 -m 4 --periodic --serial ";
    ASSERT_EQ(cli(common + "-o " + npy).status, 0);
    ASSERT_EQ(cli(common + "-o " + h5).status, 0);
    // The .npy is NumPy's format (not HDF5 under another name): the 2-D map, equal to the HDF5's L.
    EXPECT_EQ(readText(npy).substr(0, 6), "\x93NUMPY");
    const io::Volume a = io::readNpy(npy), b = io::readHdf5Dataset(h5, "L");
    EXPECT_EQ(a.nz, 1);
    EXPECT_EQ(a.ny, 9);
    EXPECT_EQ(a.nx, 9);
    EXPECT_EQ(a.data, b.data);
    // The 2-D result is stored as 2-D.
    EXPECT_EQ(io::Hdf5File::open(h5).dims("L"), (io::Dims{9, 9}));
    // Attributes keep their types (h5py reads them as numbers and a bool-like uint8, not bytes).
    if (std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") == 0) {
        const std::string types = scratch("types.txt");
        const std::string py = "/usr/bin/python3 -c \"import h5py; a = h5py.File('" + h5 +
                               "', 'r').attrs; print(a['max_length'].dtype.kind, a['periodic'].dtype, a['radial_bin_width'].dtype.kind, "
                               "list(a['shape']), a['phase'].dtype.kind)\" > " + types;
        ASSERT_EQ(std::system(py.c_str()), 0);
        EXPECT_EQ(readText(types), "i uint8 f [16, 16] f\n");
        std::remove(types.c_str());
    }
    // Any other extension is refused before the work.
    expectOneSentence(cli(common + "-o " + scratch("L.jpg")), "must end in .h5, .hdf5 or .npy");
    for (const auto& f : {in, npy, h5}) std::remove(f.c_str());
}

TEST(CliMessages, OneSentenceThatSaysWhy) {
    expectOneSentence(cli("gemm --m -5"), "--m must be a positive whole number, not -5");
    // The 3xTF32 kernel in the precision it does not multiply, and on a device without TF32 tensor cores.
    expectOneSentence(cli("gemm --m 8 --n 8 --k 8 --kernel tensor-3xtf32 --precision double --device " + testDevice()),
                      "the 3xTF32 tensor-core matrix product multiplies floats only");
    if (!gemmKernelRefusal(test::context().device(), GemmKernel::Tensor3xTf32, Precision::Float).empty())
        expectOneSentence(cli("gemm --m 8 --n 8 --k 8 --kernel tensor-3xtf32 --device " + testDevice()),
                          "needs an NVIDIA GPU of compute capability 8.0 or higher (TF32 tensor cores)");
    expectOneSentence(cli("voronoi " + scratch("nope.pdb") + " -o " + scratch("v.txt")), "No such file or directory");
    const CliRun purge = cli("cache purge");
    expectOneSentence(purge, "unknown action 'purge'");
    EXPECT_EQ(purge.err.find("portacl cache"), purge.err.rfind("portacl cache")) << "the prefix twice: " << purge.err;
    // `portacl help CMD` is CMD's own help.
    const CliRun help = cli("help filter");
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("portacl filter options"), std::string::npos) << help.out;
}

TEST(CliBench, ListIsReadable) {
    const CliRun r = cli("bench --list");
    ASSERT_EQ(r.status, 0);
    std::istringstream in(r.out);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) EXPECT_NE(line.find("  "), std::string::npos) << "name and description run together: " << line;
}

TEST(CliBench, TableBaselineAndPlot) {
    const std::string dev = testDevice(), csv = scratch("bench.csv"), plot = scratch("bench.png");
    // A bad plot name is refused before any measurement.
    expectOneSentence(cli("bench --quick --only vector_sum --device " + dev + " --plot " + scratch("bench.jpg")), ".png or .svg");
    expectOneSentence(cli("bench --quick --only vector_sum --device " + dev + " --baseline no-such-device-anywhere"), "no-such-device-anywhere");
    const bool drawing = hasMatplotlib();
    const CliRun r = cli("bench --quick --only vector_sum --precision float --repeats 3 --device " + dev + " --baseline " + dev +
                      " --csv " + csv + (drawing ? " --plot " + plot : ""));
    ASSERT_EQ(r.status, 0) << r.err;
    // Float only: no double or mixed row. Columns never run together: every cell of a row is
    // separated from the next by two spaces at least.
    EXPECT_EQ(r.out.find("double"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("mixed"), std::string::npos) << r.out;
    std::istringstream table(r.out);
    std::string line;
    bool seen = false;
    while (std::getline(table, line))
        if (line.find("vector_sum") != std::string::npos) {
            seen = true;
            EXPECT_NE(line.find("vector_sum  2^24  float"), std::string::npos) << line;
        }
    EXPECT_TRUE(seen) << r.out;
    // The percent-of-peak column holds a percentage. (Not bounded above: on a loaded machine the copy
    // peak and the sum are timed apart, and the sum has come out above 125 % of a slow peak.)
    std::ifstream f(csv);
    std::getline(f, line);
    EXPECT_NE(line.find("baseline_ratio"), std::string::npos);
    std::getline(f, line);
    // Cells split at the commas outside quotes (a device name may hold one: "llvmpipe (LLVM 15.0.6, 256 bits)").
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) cells.emplace_back();
        else cells.back() += c;
    }
    ASSERT_GE(cells.size(), 12u) << line;
    EXPECT_GT(std::stod(cells[7]), 0.0) << "percent of peak: " << line;
    EXPECT_DOUBLE_EQ(std::stod(cells[11]), 1.0) << "ratio to itself: " << line;
    if (drawing) {
        EXPECT_EQ(readText(plot).substr(1, 3), "PNG");
        const std::string svg = plot.substr(0, plot.size() - 4) + ".svg";
        EXPECT_NE(readText(svg).find("<svg"), std::string::npos);
        std::remove(svg.c_str());
        std::remove(plot.c_str());
    }
    std::remove(csv.c_str());
}

// One CSV record's cells (quoted cells may hold commas).
std::vector<std::string> csvCells(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') cells.back() += '"', ++i;
        else if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) cells.emplace_back();
        else cells.back() += c;
    }
    return cells;
}

TEST(CliBench, KWavePeerIsTheGivenProgram) {
    // The k-Wave rows' CPU peer: the program --kwave-omp names runs on the bench's simulation as
    // kspaceFirstOrder-OMP is run (-i IN -o OUT -t THREADS), and its output file's simulation time over
    // the steps is the peer's time per step. A stand-in writes a file that says 0.40 s.
    const std::string dev = testDevice(), csv = scratch("kwave_peer.csv"), fake = scratch("fake_omp.sh"), made = scratch("fake_omp.h5"),
                      seen = scratch("fake_omp_args.txt");
    {
        io::Hdf5File f = io::Hdf5File::create(made);
        f.writeStringAttribute("/", "simulation_phase_execution_time", "    0.40s");
    }
    {
        std::ofstream s(fake);
        s << "#!/bin/sh\necho \"$@\" > '" << seen << "'\nwhile [ $# -gt 1 ]; do [ \"$1\" = -o ] && cp '" << made << "' \"$2\"; shift; done\n";
    }
    ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
    const CliRun r = cli("bench --quick --only kwave --precision float --repeats 1 --no-serial --device " + dev + " --kwave-omp " + fake + " --csv " + csv);
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream f(csv);
    std::string line;
    std::getline(f, line);
    const std::vector<std::string> header = csvCells(line);
    ASSERT_GE(header.size(), 15u) << line;
    EXPECT_EQ(header[12], "peer");
    EXPECT_EQ(header[13], "peer_seconds");
    ASSERT_TRUE(std::getline(f, line)) << r.out;
    const std::vector<std::string> row = csvCells(line);
    ASSERT_EQ(row.size(), header.size()) << line;
    if (row[12].empty()) GTEST_SKIP() << "the test device is not a CPU: its k-Wave rows have no CPU peer";
    EXPECT_NE(row[12].find("kspaceFirstOrder-OMP"), std::string::npos) << line;
    EXPECT_NEAR(std::stod(row[13]), 0.40 / 40, 1e-9) << line;  // 40 steps at 32^3
    const std::string args = readText(seen);
    EXPECT_NE(args.find("-i "), std::string::npos) << args;
    EXPECT_NE(args.find(" -t "), std::string::npos) << args;
    // A program that is not there is refused before any measurement.
    expectOneSentence(cli("bench --quick --only kwave --device " + dev + " --kwave-omp " + scratch("no_such_program")), "not an executable file");
    for (const std::string& p : {csv, fake, made, seen}) std::remove(p.c_str());
}

TEST(CliProgress, StepsOnATerminalAndNothingElsewhere) {
    if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no `script` (util-linux) to give the command a terminal";
    io::Volume v;
    v.nz = v.ny = v.nx = 16;
    for (int i = 0; i < 16 * 16 * 16; ++i) v.data.push_back((i * 7) % 5 < 2 ? 1 : 0);
    const std::string in = scratch("cube.npy"), typescript = scratch("typescript.txt");
    io::writeNpyU8(in, v);
    const std::string args = "lineal-path " + in + " --phase 1 -m 4 --device " + testDevice();
    // On a terminal: the 3-D run shows displacements done, rate and time.
    // CI sets PORTACL_NO_PROGRESS for its own log; the terminal run here must not inherit it.
    const std::string cmd = "env -u PORTACL_NO_PROGRESS script -qec '" + std::string(PORTACL_CLI_PATH) + " " + args + "' " + typescript + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string shown = readText(typescript);
    EXPECT_NE(shown.find("/729 displacements ("), std::string::npos) << shown;
    EXPECT_NE(shown.find("displacements/s"), std::string::npos) << shown;
    // Not on a terminal: no progress at all.
    const CliRun quiet = cli(args);
    ASSERT_EQ(quiet.status, 0) << quiet.err;
    EXPECT_EQ(quiet.err.find("displacements ("), std::string::npos) << quiet.err;
    std::remove(in.c_str());
    std::remove(typescript.c_str());
}
