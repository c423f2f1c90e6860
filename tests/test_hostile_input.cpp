// Hostile input: files and options that declare absurd sizes, point outside their buffers or hold
// non-numbers are refused with one sentence before anything is allocated or any kernel runs. The
// tiny files are in tests/data/hostile (written by make_files.py there); the HDF5 ones are made here.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "portacl/filter.hpp"
#include "portacl/gemm.hpp"
#include "portacl/io/image.hpp"
#include "portacl/io/raster.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/kwave.hpp"
#include "portacl/lineal_path.hpp"
#include "portacl/lineal_path/reconstruct.hpp"
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/tuning.hpp"
#include "portacl/voronoi.hpp"
#include "support/test_support.hpp"

using namespace portacl;

namespace {

std::string hostile(const std::string& name) { return std::string(PORTACL_SOURCE_DIR) + "/tests/data/hostile/" + name; }
std::string temp(const std::string& name) { return testing::TempDir() + "portacl_hostile_" + std::to_string(::getpid()) + "_" + name; }

// Runs `f`, which must throw portacl::Error whose one-line message contains `needle`.
template <typename F>
void expectSentence(F&& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(needle), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << "not one line: " << what;
    }
}

struct CliResult {
    int status;
    std::string err;
};

CliResult runCli(const std::string& args) {
    const std::string errFile = temp("stderr.txt");
    const int raw = std::system((std::string(PORTACL_CLI_PATH) + " " + args + " >/dev/null 2>" + errFile).c_str());
    std::ifstream in(errFile);
    std::stringstream ss;
    ss << in.rdbuf();
    std::remove(errFile.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, ss.str()};
}

void expectCliRefused(const std::string& args, const std::string& needle) {
    const CliResult r = runCli(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_LT(r.status, 128) << args << " crashed";
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << ": " << r.err;
}

// An HDF5 dataset of `dims` doubles in chunks, never written: its dataspace declares the size, the
// file holds no data for it.
void createUnwrittenDataset(const std::string& path, const std::vector<hsize_t>& dims) {
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
    const hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
    std::vector<hsize_t> chunk(dims.size(), 1);
    H5Pset_chunk(plist, int(chunk.size()), chunk.data());
    const hid_t d = H5Dcreate2(f, "v", H5T_IEEE_F64LE, space, H5P_DEFAULT, plist, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    H5Dclose(d);
    H5Pclose(plist);
    H5Sclose(space);
    H5Fclose(f);
}

// Overwrites a scalar dataset of a k-Wave input file in place.
void overwriteU64(const std::string& path, const char* name, std::uint64_t v) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v), 0);
    H5Dclose(d);
    H5Fclose(f);
}

kwave::Simulation smallSimulation() {
    kwave::Simulation s;
    s.grid.nx = 32;
    s.grid.ny = 24;
    s.grid.dx = s.grid.dy = 1e-4;
    s.nt = 40;
    s.cRef = 1500;
    s.dt = 0.3 * 1e-4 / 1500;
    s.pml.size = {4, 4, 0};
    s.medium.c0 = kwave::Field{{1500.0f}};
    s.medium.rho0 = s.medium.rho0Sgx = s.medium.rho0Sgy = kwave::Field{{1000.0f}};
    s.p0.assign(s.grid.size(), 0.0f);
    for (std::size_t y = 0; y < 24; ++y)
        for (std::size_t x = 0; x < 32; ++x)
            s.p0[x + 32 * y] = static_cast<float>(std::exp(-((x - 16.0) * (x - 16.0) + (y - 12.0) * (y - 12.0)) / 8.0));
    for (std::size_t i = 0; i < s.grid.size(); i += 11) s.sensor.index.push_back(i);
    return s;
}

}  // namespace

// ---- The shared size checks ----

TEST(CheckedSize, ProductsThatWrapAreRefused) {
    EXPECT_EQ(checkedProduct({3, 4, 5}, "x"), 60u);
    expectSentence([] { checkedProduct({1ULL << 32, 1ULL << 32}, "the array of a.npy"); }, "the array of a.npy is too large");
    expectSentence([] { checkDeclaredSize(1u << 20, 100, 1, "PGM a.pgm"); }, "declares 1048576 bytes of data but the file has only 100 bytes");
    expectSentence([] { checkFiniteRange(std::nan(""), 0, 1, "c0"); }, "c0 is nan");
}

// ---- Images: allocation bombs and header checks ----

TEST(HostileImages, SizesBeyondTheFileAreRefusedBeforeAllocating) {
    expectSentence([] { io::readImage(hostile("png_bomb.png")); }, "declares 3600000000 bytes of data but the file has only 68 bytes");
    expectSentence([] { io::readImage(hostile("pgm_bomb.pgm")); }, "declares 2147450880 bytes of data");
    expectSentence([] { io::readImage(hostile("tiff_bomb.tif")); }, "declares 268435456 bytes of data");
    expectSentence([] { io::readVolume(hostile("tiff_bomb.tif")); }, "declares 268435456 bytes of data");
}

TEST(HostileImages, BmpHeadersAreCheckedWhole) {
    expectSentence([] { io::readImage(hostile("bmp_short_header.bmp")); }, "truncated inside its header");
    expectSentence([] { io::readImage(hostile("bmp_int_min_width.bmp")); }, "larger than 16777216 pixels a side");
}

TEST(HostileImages, TilesOfZeroWidthAreRefused) {
    // libtiff or the page check refuses it; either way one sentence and no endless tile loop.
    EXPECT_THROW(io::readImage(hostile("tiff_zero_tile.tif")), Error);
    EXPECT_THROW(io::readVolume(hostile("tiff_zero_tile.tif")), Error);
}

// ---- Rasters (GDAL) ----

TEST(HostileRasters, CellsBeyondTheFileAreRefusedBeforeAllocating) {
    // 9e8 cells declared in 65 bytes: 7.2 GB was allocated before GDAL read a cell.
    expectSentence([] { io::readRaster(hostile("raster_bomb.asc")); }, "bytes of data but the file has only 65 bytes");
    // 63743 interleaved bands: GDAL reads them all with band 1 (2.4 GB for this 1092-byte file).
    expectSentence([] { io::readRaster(hostile("raster_many_bands.tif")); }, "bytes of data but the file has only 1092 bytes");
    // 16 x 16 cells in tiles of 32768 x 32768: GDAL allocated the 1 GiB tile before reading it.
    expectSentence([] { io::readRaster(hostile("raster_huge_tile.tif")); },
                   "(in blocks of 32768 x 32768 cells) declares 1073741824 bytes of data but the file has only");
}

TEST(HostileRasters, FormatsThatHoldNoElevationModelAreNotOpened) {
    // A PNG image is a raster to GDAL, but no DEM: its parser (and GDAL's other non-elevation ones)
    // is never reached.
    expectSentence([] { io::readRaster(hostile("png_bomb.png")); }, "none of the elevation formats read here (GTiff");
}

// ---- Meshes (fuzz_mesh's findings and the header bombs beside them) ----

TEST(HostileMeshes, CountsBeyondTheFileAreRefusedBeforeAllocating) {
    // A list length read before its list sized a 16 GB buffer; an element of no properties looped 10^12 times.
    expectSentence([] { mesh::readMesh(hostile("ply_list_bomb.ply")); }, "is shorter than its header says");
    expectSentence([] { mesh::readMesh(hostile("ply_list_overflow.ply")); }, "more than its type int holds");
    expectSentence([] { mesh::readMesh(hostile("ply_empty_items.ply")); }, "no property of a type the reader knows");
    // OFF's counts sized the soup before a vertex was read (48 GB here).
    expectSentence([] { mesh::readMesh(hostile("off_count_bomb.off")); }, "declares 2000000000 vertices but ends after 0");
    expectSentence([] { mesh::readMesh(hostile("off_binary_count_bomb.off")); }, "ends inside vertex 0 of 2147483647");
}

TEST(HostileMeshes, MalformedHeadersAndLinesGetOneSentence) {
    // CGAL's PLY reader added the property to the last of no elements.
    expectSentence([] { mesh::readMesh(hostile("ply_property_first.ply")); }, "before any element");
    // Without end_header CGAL read the list's length from a failed stream (uninitialised memory).
    expectSentence([] { mesh::readMesh(hostile("ply_no_end_header.ply")); }, "has no end_header line");
    // CGAL's OFF scanner read the colour columns past the end of a short line.
    expectSentence([] { mesh::readMesh(hostile("off_short_colour_line.off")); }, "(vertex 1) does not start with 3 numbers");
    // An edge count of 2^31 - 1 (unused) overflowed CGAL's header arithmetic; the tetrahedron reads whole.
    const mesh::TriangleMesh tet = mesh::readMesh(hostile("off_binary_edge_overflow.off"));
    EXPECT_EQ(tet.triangleCount(), 4u);
    EXPECT_EQ(tet.points, (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

// ---- Volumes: .npy and HDF5 ----

TEST(HostileVolumes, NpyHeadersAndShapesAreChecked) {
    expectSentence([] { io::readVolume(hostile("npy_header_bomb.npy")); }, "declares a .npy header of 4294967280 bytes");
    expectSentence([] { io::readVolume(hostile("npy_shape_overflow.npy")); }, "is too large");
}

TEST(HostileVolumes, Hdf5ExtentsBeyondIntAndUnwrittenDataAreRefused) {
    const std::string wide = temp("wide.h5"), empty = temp("empty.h5");
    createUnwrittenDataset(wide, {(1ULL << 32) + 1, 2});
    expectSentence([&] { io::readVolume(wide, "v"); }, "has an extent of 4294967297");
    createUnwrittenDataset(empty, {40000, 40000});
    expectSentence([&] { io::readVolume(empty, "v"); }, "declares 12800000000 bytes of data but the file has only 0 bytes");
    std::remove(wide.c_str());
    std::remove(empty.c_str());
}

// An attribute `name` on `loc` holding four fixed 8-byte strings, each `value` (at most 7 characters):
// what a reader of one string must refuse, not read past its buffer.
namespace {
void writeFourStrings(hid_t loc, const char* name, const std::string& value) {
    const hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 8);
    const hsize_t four = 4;
    const hid_t space = H5Screate_simple(1, &four, nullptr);
    const hid_t a = H5Acreate2(loc, name, str, space, H5P_DEFAULT, H5P_DEFAULT);
    char values[32] = {};
    for (int i = 0; i < 4; ++i) value.copy(values + 8 * i, 7);
    H5Awrite(a, str, values);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(str);
}
}  // namespace

// ---- Lineal path and reconstruction ----

TEST(HostileLinealPath, TargetAttributesMustBeOneStringOrAFewIntegers) {
    const std::string path = temp("target.h5");
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {3, 3};
    const double L[9] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "L", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, L);
    // "shape" as an array of four 8-byte strings: reading it as one string overflowed the buffer.
    writeFourStrings(f, "shape", "16x16");
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
    expectSentence([&] { lineal::targetFromFile(path, 0); }, "its attribute 'shape' is neither one string nor up to 3 integers");
    std::remove(path.c_str());
}

TEST(HostileLinealPath, ImagesBeyondIntIndexingAreRefused) {
    lineal::PhaseImage img;
    img.nz = img.ny = 2048;
    img.nx = 1024;  // 2^32 pixels, no mask allocated
    expectSentence([&] { lineal::validate(img, {4, true}); }, "more than 2^31 - 1 pixels");
}

TEST(HostileLinealPath, AnnealOptionsHaveRanges) {
    lineal::AnnealOptions opt;
    opt.reheats = -1;
    expectSentence([&] { lineal::validate(opt); }, "--reheats is -1");
    opt.reheats = 0;
    opt.tMax = std::numeric_limits<double>::infinity();
    expectSentence([&] { lineal::validate(opt); }, "start temperature (--tmax) is inf");
}

// ---- k-Wave ----

TEST(HostileKWave, AStringAttributeOfSeveralStringsIsRefused) {
    // file_type as an array of four 8-byte strings: reading it as one string overran the buffer (the
    // k-Wave input fuzzer's find).
    const std::string path = temp("kwave_file_type.h5");
    kwave::writeInputFile(path, smallSimulation());
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(f, "file_type");
    writeFourStrings(f, "file_type", "input");
    H5Fclose(f);
    expectSentence([&] { kwave::readInputFile(path); }, "attribute 'file_type' in " + path + " holds 4 strings, not one");
    std::remove(path.c_str());
}

TEST(HostileKWave, DelayMasksThatWrapPastTheSignalAreRefused) {
    kwave::Simulation s = smallSimulation();
    s.u.index = {40, 41};
    s.transducer.length = 10;
    s.transducer.signal.assign(20, 1.0f);
    s.transducer.delay = {0, std::numeric_limits<std::uint64_t>::max() - 4};  // delay + Nt wrapped to 5
    expectSentence([&] { kwave::validate(s, "in.h5"); }, "delay_mask reaches past the end of transducer_source_input");
}

TEST(HostileKWave, PmlThickerThanTheGridIsRefusedWithoutWrapping) {
    kwave::Simulation s = smallSimulation();
    s.pml.size[0] = 1ULL << 63;  // 2 * size wrapped to 0
    expectSentence([&] { kwave::validate(s, "in.h5"); }, "is thicker than half the grid");
}

TEST(HostileKWave, PhysicalQuantitiesMustBeFiniteAndInRange) {
    const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
    auto refused = [](auto change, const std::string& needle) {
        kwave::Simulation s = smallSimulation();
        change(s);
        expectSentence([&] { kwave::validate(s, "in.h5"); }, needle);
    };
    refused([&](kwave::Simulation& s) { s.medium.c0 = kwave::Field{{float(nan)}}; }, "c0 holds nan");
    refused([](kwave::Simulation& s) { s.medium.rho0 = s.medium.rho0Sgx = s.medium.rho0Sgy = kwave::Field{{0.0f}}; }, "rho0 holds 0");
    refused([](kwave::Simulation& s) { s.medium.rho0Sgy = kwave::Field{{-1.0f}}; }, "rho0_sgy holds -1");
    refused([&](kwave::Simulation& s) { s.dt = inf; }, "dt is inf");
    refused([](kwave::Simulation& s) { s.grid.dx = 0; }, "dx is 0");
    refused([](kwave::Simulation& s) { s.cRef = -1500; }, "c_ref is -1500");
    refused([&](kwave::Simulation& s) { s.pml.alpha[1] = nan; }, "pml_y_alpha is nan");
    refused(
        [](kwave::Simulation& s) {
            s.medium.absorption = kwave::Absorption::PowerLaw;
            s.medium.alphaPower = 1.5;
            s.medium.alphaCoeff = kwave::Field{{-0.75f}};
        },
        "alpha_coeff holds -0.75");
    refused([&](kwave::Simulation& s) { s.p0[3] = float(inf); }, "p0_source_input holds a non-finite value at element 4");
}

TEST(HostileKWave, AbsurdGridSizesAreRefusedBeforeReading) {
    const std::string path = temp("grid.h5");
    kwave::writeInputFile(path, smallSimulation());
    overwriteU64(path, "Nx", 1ULL << 40);
    expectSentence([&] { kwave::readInputFile(path); }, "Nx is 1099511627776");
    overwriteU64(path, "Nx", 1ULL << 25);
    overwriteU64(path, "Ny", 1ULL << 25);
    expectSentence([&] { kwave::readInputFile(path); }, "more than this machine's");
    std::remove(path.c_str());
}

TEST(HostileKWave, AnUnstableSimulationStopsWithASentence) {
    // Finite inputs that overflow float in the nonlinear term at the first step: the run stops at
    // its finite check instead of writing NaN outputs.
    kwave::Simulation s = smallSimulation();
    for (auto& v : s.p0) v *= 1e30f;
    s.medium.nonlinear = true;
    s.medium.bOnA = kwave::Field{{1e10f}};
    kwave::validate(s, "in.h5");
    kwave::RunOptions options;
    kwave::KSpaceSolver solver(test::context(), s, options);
    expectSentence([&] { solver.run(); }, "the simulation became unstable: the pressure field is not finite after time step 32");
}

// ---- Voronoi ----

TEST(HostileVoronoi, CoordinatesOutOfRangeAreRefused) {
    std::vector<io::Ball> balls{{0, 0, 0, 1.5}, {3, 0, 0, 1.5}, {0, 3, 0, 1.5}, {0, 0, 3, 1.5}, {1e154, 0, 0, 1}};
    expectSentence([&] { voronoi::computeReference(balls); }, "coordinates must lie within +-1e6");
    balls.back() = {1e60, 2, 2, 1};
    expectSentence([&] { voronoi::compute(test::context(), balls); }, "coordinates must lie within +-1e6");
}

TEST(HostileVoronoi, AProfileValueRefusedAfterTheUploadsLeavesNothingCopying) {
    // wide_group = 3 is refused after the balls were uploaded without waiting; the context's
    // destructor must wait for those copies before the host vectors go (ASan sees it otherwise).
    const std::string dir = temp("profiles");
    ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
    const DeviceInfo& info = test::context().device();
    {
        std::ofstream p(dir + "/hostile.profile");
        p << "[match]\nplatform = " << info.platformName << "\nvendor = " << info.vendor << "\ndevice = " << info.name
          << "\ntype = " << info.type << "\npriority = 1000000\n[voronoi]\nwide_group = 3\n";
    }
    const char* old = std::getenv("PORTACL_PLATFORMS_DIR");
    const std::string saved = old ? old : "";
    setenv("PORTACL_PLATFORMS_DIR", dir.c_str(), 1);
    std::vector<io::Ball> balls;
    for (int i = 0; i < 200; ++i) balls.push_back({double(i % 7) * 2.1, double(i / 7 % 6) * 2.2, double(i / 42) * 2.3, 1.4});
    {
        Context ctx(info);
        expectSentence([&] { voronoi::compute(ctx, balls); }, "[voronoi] wide_group = 3 is not a power of two");
    }
    if (old) setenv("PORTACL_PLATFORMS_DIR", saved.c_str(), 1);
    else unsetenv("PORTACL_PLATFORMS_DIR");
    std::remove((dir + "/hostile.profile").c_str());
    ::rmdir(dir.c_str());
}

// ---- Profiles, options, grammars ----

TEST(HostileOptions, ProfileValuesAreCheckedAgainstWhatKernelsAllow) {
    const TuningProfile lanes = TuningProfile::parse("[voronoi]\nlanes = 3\n", "t", "t.profile");
    expectSentence([&] { lanes.getInt("voronoi", "lanes", 1, 1, 1024, true); }, "[voronoi] lanes = 3 is not a power of two");
    const TuningProfile zero = TuningProfile::parse("[vector]\nwork_group = 0\n", "t", "t.profile");
    expectSentence([&] { zero.getInt("vector", "work_group", 256, 1, 65536); }, "[vector] work_group = 0 is not in [1, 65536]");
}

TEST(HostileOptions, DeviceIndicesDoNotWrap) {
    expectSentence([] { selectDevice("4294967296:0"); }, "the device index 4294967296:0 is out of range");
}

TEST(HostileOptions, MatrixSizesHaveRanges) {
    // N = 0 bound a reference to B's null data in the reference product: now an empty C.
    EXPECT_TRUE(gemmReference<float>(4, 0, 4, std::vector<float>(16), {}).empty());
    expectSentence([] { checkGemmSizes(1ULL << 31, 4, 4, 4); }, "M is 2147483648");
    expectSentence([] { checkGemmSizes(1ULL << 30, 1ULL << 30, 4, 4); }, "the matrix product of 1073741824x4 and 4x1073741824");
}

TEST(HostileOptions, MaskValuesHaveARange) {
    expectSentence([] { filter::parseOperation("conv:1e300,1,1"); }, "outside [-1e6, 1e6]");
}

TEST(HostileOptions, CommandLinesRefuseOutOfRangeNumbers) {
    expectCliRefused("kwave -i missing.h5 -o out.h5 -r 1e-30", "-r takes a progress interval from 0.01 to 100 percent");
    expectCliRefused("gemm --m 4294967297", "--m is 4294967297; it must lie in [1, 65536]");
    expectCliRefused("gemm --n 0", "--n must be a positive whole number, not 0");
    expectCliRefused("gemm --device 4294967296:0", "out of range");
    expectCliRefused("reconstruct --target missing.h5 -o out.png --reheats -1", "--reheats is -1");
}
