// Conformance: every workload, in every precision it offers, at small sizes, on one OpenCL
// implementation (PORTACL_TEST_DEVICE), against its serial C++ reference. Integer results (lineal
// path counts, filtered 8- and 16-bit images, predicate signs, Voronoi vertex sets in double and mixed)
// must be equal; float results must lie within the tolerance each case states. On a device without
// fp64 a double request must be refused with one sentence naming fp64 (the case is then reported as
// skipped, with that sentence); mixed precision must work there.
//
// PORTACL_CONFORMANCE_SIZE=tiny shrinks every case for simulators (oclgrind). The last case checks
// that the run launched every kernel of cl/. tests/CMakeLists.txt registers one run per OpenCL
// implementation present; tools/conformance_matrix.py turns their XML reports into the matrix of
// docs/portability.md. The program exits 77 (CTest's skip) when the chosen device does not exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "box_count/box_count_detail.hpp"
#include "fft/reference_dft.hpp"
#include "portacl/box_count.hpp"
#include "portacl/drainage.hpp"
#include "portacl/fft.hpp"
#include "portacl/filter.hpp"
#include "portacl/gemm.hpp"
#include "portacl/io/molecule.hpp"
#include "portacl/kwave.hpp"
#include "portacl/lineal_path.hpp"
#include "portacl/lineal_path/reconstruct.hpp"
#include "portacl/lineal_path/two_point.hpp"
#include "portacl/mesh/frame_sequence.hpp"
#include "portacl/mesh/point_in_mesh.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/predicates.hpp"
#include "portacl/runtime/data_dir.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/two_phase.hpp"
#include "portacl/skeleton.hpp"
#include "portacl/vector_ops.hpp"
#include "portacl/voronoi.hpp"
#include "skeleton/skeleton_detail.hpp"
#include "support/box_copy_cases.hpp"
#include "support/filter_images.hpp"
#include "support/kwave_bell_cases.hpp"
#include "support/kwave_simulations.hpp"
#include "support/random_phase_image.hpp"

using namespace portacl;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<Context> gContext;
bool gTiny = false;

// The conformance context records every launch (profiling on), so that the last case can list the
// kernels that ran.
Context& ctx() { return *gContext; }
bool fp64() { return ctx().device().fp64; }

// ---- comparisons ----

double relativeL2(const std::vector<double>& got, const std::vector<double>& want) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return std::sqrt(num / std::max(den, 1e-300));
}

template <typename T>
std::vector<T> randomValues(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(dist(gen));
    return v;
}

// ---- vector sum: one rounding of one addition, so the device equals the reference bit for bit ----

template <typename T>
void vectorSumCase() {
    for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(gTiny ? 1001 : 100003)}) {
        const auto a = randomValues<T>(n, 1), b = randomValues<T>(n, 2);
        EXPECT_EQ(vectorSum(ctx(), a, b), vectorSumReference(a, b)) << "n = " << n;
    }
}

// ---- matrix products: each element within K * eps * sum_k |a_ik b_kj| of the serial product ----

template <typename T>
void gemmCase(GemmKernel kernel) {
    const GemmTuning t = gemmTuning(ctx().tuning(), precisionOf<T>());
    // (tuning, M, N, K): the register-blocked kernel in both of its shapes, the profile's and the
    // other (GPU tiles, cl/gemm.cl; CPU blocks, cl/gemm_cpu.cl), so that each runs on every device.
    std::vector<std::pair<GemmTuning, std::array<std::size_t, 3>>> runs;
    const auto add = [&](const GemmTuning& tuning, std::array<std::size_t, 3> shape) { runs.push_back({tuning, shape}); };
    for (const auto& shape : std::vector<std::array<std::size_t, 3>>{{1, 1, 1}, {17, 33, 9}}) add(t, shape);
    if (!gTiny) add(t, {67, 45, 130});
    const bool tensor = kernel == GemmKernel::TensorCore || kernel == GemmKernel::Tensor3xTf32;
    if (tensor) {
        const std::string why = gemmKernelRefusal(ctx().device(), kernel, precisionOf<T>());
        if (!why.empty()) {
            ctx().requirePrecision(precisionOf<T>());  // a device without fp64 refuses double first, as gemm() does
            GTEST_SKIP() << why;
        }
        // Partial fragments, warps and tiles at every edge, and whole tiles.
        add(t, {std::size_t(t.tensorM) + 3, std::size_t(t.tensorN) + 5, std::size_t(t.tensorK) + 3});
        add(t, {2 * std::size_t(t.tensorM), std::size_t(t.tensorN), 3 * std::size_t(t.tensorK)});
    } else if (kernel == GemmKernel::RegisterBlocked) {
        GemmTuning gpuShape = t, cpuShape = t;
        gpuShape.cpuRows = 0;
        if (cpuShape.cpuRows == 0) cpuShape.cpuRows = 12;
        // GPU tiles: rows on 4-vector boundaries with guards, and whole tiles (the unguarded path).
        add(gpuShape, {std::size_t(t.tileM) + 3, std::size_t(t.tileN) + 4, std::size_t(t.tileK) + 4});
        add(gpuShape, {2 * std::size_t(t.tileM), std::size_t(t.tileN), 2 * std::size_t(t.tileK)});
        // CPU blocks: whole blocks (64 columns are whole for every native width and 2 vectors) beside
        // partial ones along both edges.
        const std::size_t rows = std::size_t(cpuShape.cpuRows);
        add(cpuShape, {2 * rows, 64, 33});
        add(cpuShape, {3 * rows + 1, 64 * std::size_t(cpuShape.cpuVectors) + 5, 17});
    } else {
        add(t, {2 * std::size_t(t.tile), std::size_t(t.tile), 3 * std::size_t(t.tile)});
    }
    for (const auto& [tuning, s] : runs) {
        const std::size_t M = s[0], N = s[1], K = s[2];
        const auto A = randomValues<T>(M * K, unsigned(M + 7 * K)), B = randomValues<T>(K * N, unsigned(N + 5 * K));
        const auto C = gemm(ctx(), kernel, M, N, K, A, B, tuning);
        // The 3xTF32 kernel against its own reference, within the roundings of its 4 ceil(K/8) float
        // sums and the reference's (docs/gemm.md); the others within K * eps * sum |a||b|.
        std::vector<T> R;
        double units = K;
        if constexpr (std::is_same_v<T, float>) {
            if (kernel == GemmKernel::Tensor3xTf32) {
                R = gemmReference3xTf32(M, N, K, A, B);
                units = 7.5 * std::ceil(K / 8.0);
            }
        }
        if (R.empty()) R = gemmReference(M, N, K, A, B);
        ASSERT_EQ(C.size(), R.size());
        const double eps = std::numeric_limits<T>::epsilon();
        double worst = 0;
        for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < N; ++j) {
                double magnitude = 0;
                for (std::size_t k = 0; k < K; ++k) magnitude += std::abs(double(A[i * K + k]) * double(B[k * N + j]));
                const double bound = units * eps * magnitude + std::numeric_limits<T>::min();
                worst = std::max(worst, std::abs(double(C[i * N + j]) - double(R[i * N + j])) / bound);
            }
        EXPECT_LE(worst, 1.0) << gemmKernelName(kernel) << " " << M << "x" << N << "x" << K << " (error / bound)";
    }
}

// ---- filters ----

io::Image filterImage(int w, int h, int channels, io::PixelType t, unsigned seed) {
    io::Image img = io::makeImage(w, h, channels, t);
    std::mt19937 rng(seed);
    const double top = t == io::PixelType::U16 ? 65535 : 255;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c) {
                const std::size_t i = (std::size_t(y) * w + x) * channels + c;
                double v = top * (0.5 + 0.3 * std::sin(0.21 * x + c) * std::cos(0.17 * y)) +
                           std::uniform_real_distribution<double>(-0.2, 0.2)(rng) * top;
                v = std::min(top, std::max(0.0, v));
                if (t == io::PixelType::U8) img.data[i] = static_cast<unsigned char>(v);
                else if (t == io::PixelType::U16) img.samples<unsigned short>()[i] = static_cast<unsigned short>(v);
                else img.samples<float>()[i] = static_cast<float>(v / top * 2.0 - 0.5);
            }
    return img;
}

// Integer images: equal; float images: |got - want| <= tol * (1 + |want|) (directions modulo 360).
void filterCompare(const io::Image& img, const std::vector<std::string>& specs, const filter::Options& o, double tol) {
    std::vector<filter::Operation> ops;
    std::string what;
    for (const auto& s : specs) {
        ops.push_back(filter::parseOperation(s));
        what += s + " ";
    }
    what += std::string("border=") + filter::borderName(o.border) + " " + io::pixelTypeName(img.type) + " " +
            std::to_string(img.width) + "x" + std::to_string(img.height) + "x" + std::to_string(img.channels) +
            (o.tuning.count("strip") && o.tuning.at("strip") ? " (register path)" : "") +
            (o.tuning.count("cpu_rows") && o.tuning.at("cpu_rows") ? " (row-band path)" : "");
    const io::Image want = filter::filterReference(img, ops, o);
    filter::Pipeline p(ctx(), ops, o);
    const io::Image got = p.run(img);
    ASSERT_EQ(got.type, want.type) << what;
    ASSERT_EQ(got.data.size(), want.data.size()) << what;
    if (got.type != io::PixelType::F32) {
        std::size_t bad = 0;
        for (std::size_t i = 0; i < got.data.size(); ++i) bad += got.data[i] != want.data[i];
        EXPECT_EQ(bad, 0u) << what << ": differing bytes";
        return;
    }
    const float *g = got.samples<float>(), *w = want.samples<float>();
    double worst = 0;
    for (std::size_t i = 0; i < got.sampleCount(); ++i) {
        double d = std::fabs(double(g[i]) - w[i]);
        if (what.find(":dir") != std::string::npos) d = std::min(d, 360.0 - d);
        worst = std::max(worst, d / (1 + std::fabs(w[i])));
    }
    EXPECT_LE(worst, tol) << what;
}

// The register path of 8-bit planes, asked for whatever the device's profile says.
filter::Options stripOptions() {
    filter::Options o;
    o.tuning = {{"strip", 1}, {"cpu_rows", 0}, {"strip_group_x", 4}, {"strip_group_y", 2}};
    for (const std::string kind : {"strip", "gradient_strip", "row_strip", "separable_strip", "median3_strip", "median5_strip"}) {
        o.tuning[kind + "_width"] = 8;
        o.tuning[kind + "_rows"] = kind.rfind("median", 0) == 0 ? 2 : 4;
    }
    return o;
}

// 8- and 16-bit images: the device equals the reference exactly (every operation family, every border
// mode, colour to grey, the tile kernels and the register path).
void filterIntegerCase() {
    const int w = gTiny ? 23 : 61, h = gTiny ? 17 : 47;
    const io::Image grey = filterImage(w, h, 1, io::PixelType::U8, 1);
    // Each operation family once on the tile kernels (a build each, the cost on a cold cache).
    filter::Options tiles;
    tiles.tuning = {{"strip", 0}, {"cpu_rows", 0}};
    for (const auto& op : {"conv:1,2,0;-1,3,1;2,0,1", "gaussian:9:2.0", "median:5", "threshold:3:20", "rotating:3", "rotating:5", "sobel",
                           "compass:kirsch", "laplace:8"})
        filterCompare(grey, {op}, tiles, 0);
    // Rank-1 masks with both passes in one kernel (the GPU profiles' choice), on every device.
    filter::Options fused = tiles;
    fused.tuning["fused_separable"] = 1;
    for (const auto& op : {std::string("gaussian:9:2.0"), test::decimalRank1Mask()}) filterCompare(grey, {op}, fused, 0);
    const filter::Options strips = stripOptions();
    for (const auto& op : {"box:3", "sobel", "median:3", "median:5", "gaussian:5"}) filterCompare(grey, {op}, strips, 0);
    // The border modes other than the default reflect101, each under one mask shape.
    const std::pair<filter::Border, const char*> borders[] = {{filter::Border::Constant, "conv:1,0,2,0,1;0,3,0,3,0;2,0,-9,0,2"},
                                                              {filter::Border::Replicate, "box:5"},
                                                              {filter::Border::Reflect, "median:5"},
                                                              {filter::Border::Wrap, "conv:1,0,2,0,1;0,3,0,3,0;2,0,-9,0,2"}};
    for (const auto& [b, op] : borders) {
        filter::Options o = tiles;
        o.border = b;
        o.borderValue = 200;
        filterCompare(grey, {op}, o, 0);
    }
    filterCompare(filterImage(w, h, 3, io::PixelType::U8, 2), {"grey", "median:3", "sobel"}, filter::Options{}, 0);
    filterCompare(filterImage(w, h, 4, io::PixelType::U16, 3), {"median:5", "sobel:l2"}, filter::Options{}, 0);
}

// Float images, in float (tolerance 1e-5 relative) or double (1e-6: stored as float, the double
// sums round once), and an 8-bit image converted to float.
void filterFloatCase(Precision p) {
    const io::Image img = filterImage(gTiny ? 21 : 53, gTiny ? 15 : 39, 1, io::PixelType::F32, 11);
    filter::Options o;
    o.precision = p;
    o.border = filter::Border::Reflect;
    const double tol = p == Precision::Float ? 1e-5 : 1e-6;
    for (const auto& s : {"conv:0.1,0.7,-0.2;0.3,0.2,0.1;0.05,0.5,0.25", "gaussian:9:2.0", "median:5", "sobel:dir",
                          "threshold:3:0.05", "rotating:3", "rotating:5", "compass:kirsch"})
        filterCompare(img, {s}, o, tol);
    filterCompare(filterImage(gTiny ? 21 : 53, gTiny ? 15 : 39, 1, io::PixelType::U8, 12), {"box:3", "float", "sobel:x"}, o, tol);
}

// ---- lineal path: exact integer counts ----

void linealCompare(const lineal::PhaseImage& img, int ml, bool periodic) {
    const lineal::Options opt{ml, periodic};
    const auto dev = lineal::linealPath(ctx(), img, opt);
    const auto ref = lineal::linealPathReference(img, opt);
    ASSERT_EQ(dev.count.size(), ref.count.size());
    EXPECT_EQ(dev.tried, ref.tried);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < dev.count.size(); ++i) differ += dev.count[i] != ref.count[i];
    EXPECT_EQ(differ, 0u) << "displacements with other counts, " << img.nz << "x" << img.ny << "x" << img.nx << " ML "
                          << ml << (periodic ? " periodic" : "");
}

void linealCase(bool threeD) {
    using test::randomPhaseImage;
    if (!threeD) {
        // Rows of one word and a partial one (40 + 2*ML bits), ML = smallest side - 1 when not periodic.
        const auto img = gTiny ? randomPhaseImage(1, 13, 21, 0.7, 1) : randomPhaseImage(1, 37, 45, 0.7, 1);
        linealCompare(img, gTiny ? 5 : 12, true);
        linealCompare(img, gTiny ? 5 : 12, false);
        linealCompare(randomPhaseImage(1, 9, 40, 0.9, 2), 8, false);
    } else {
        const auto img = gTiny ? randomPhaseImage(5, 6, 7, 0.75, 4) : randomPhaseImage(9, 11, 13, 0.75, 4);
        linealCompare(img, gTiny ? 2 : 5, true);
        linealCompare(img, gTiny ? 2 : 5, false);
        linealCompare(randomPhaseImage(4, 5, 40, 0.9, 5), 4, true);  // ML = the smallest side
    }
}

// ---- box counting and thinning: exact integer results ----

// Overlapping balls of radius 1..3: thick shapes with branches, for both volume workloads.
io::BinaryVolume ballsVolume(int nz, int ny, int nx, int balls, unsigned seed) {
    io::BinaryVolume v;
    v.nz = nz, v.ny = ny, v.nx = nx;
    v.mask.assign(v.size(), 0);
    std::mt19937 rng(seed);
    for (int b = 0; b < balls; ++b) {
        const int cz = int(rng() % unsigned(nz)), cy = int(rng() % unsigned(ny)), cx = int(rng() % unsigned(nx)), r = 1 + int(rng() % 3);
        for (int z = std::max(0, cz - r); z <= std::min(nz - 1, cz + r); ++z)
            for (int y = std::max(0, cy - r); y <= std::min(ny - 1, cy + r); ++y)
                for (int x = std::max(0, cx - r); x <= std::min(nx - 1, cx + r); ++x)
                    if ((z - cz) * (z - cz) + (y - cy) * (y - cy) + (x - cx) * (x - cx) <= r * r) v.mask[v.index(z, y, x)] = 1;
    }
    return v;
}

void boxCountCase() {
    const auto v = gTiny ? ballsVolume(6, 7, 9, 4, 3) : ballsVolume(17, 20, 23, 12, 3);
    for (auto count : {boxcount::Count::Occupied, boxcount::Count::Mixed}) {
        boxcount::Options opt;
        opt.count = count;
        opt.offsetAverage = true;
        opt.sizes = {1, 2, 3, 4, 8};  // the pyramid, and side 3 by the scan per box and by the runs per axis
        const auto ref = boxcount::boxCountReference(v, opt);
        cl::Buffer mask = ctx().upload(v.mask, "conformance mask");
        for (std::size_t directMinBoxes : {std::size_t(0), SIZE_MAX}) {
            const auto dev = boxcount::detail::boxCountOnDevice(ctx(), mask, v.nz, v.ny, v.nx, opt, directMinBoxes);
            EXPECT_EQ(dev.counts, ref.counts);
            EXPECT_EQ(dev.offsetMean, ref.offsetMean);
        }
    }
}

void skeletonCase() {
    const auto v = gTiny ? ballsVolume(7, 8, 9, 5, 4) : ballsVolume(18, 21, 24, 20, 4);
    EXPECT_EQ(skeleton::thin(ctx(), v).mask, skeleton::thinReference(v).mask);
    const auto parallel = skeleton::thinSubfieldsReference(v).mask;
    EXPECT_EQ(skeleton::thinSubfields(ctx(), v).mask, parallel);
    EXPECT_EQ(skeleton::thinPSimple(ctx(), v).mask, skeleton::thinPSimpleReference(v).mask);  // skel_psimple
    // Launches per subfield, the subfields in rounds (skel_subfields_first, _tail; with no assignment
    // tried, so that the tail has work), and one work-group for every pass (skel_thin_group).
    const skeleton::detail::SubfieldSchedule schedules[] = {{0, false, 8, 63}, {0, true, 8, 63}, {0, true, 0, 63}, {SIZE_MAX, false, 8, 63}};
    for (const auto& schedule : schedules)
        EXPECT_EQ(skeleton::detail::thinSubfieldsOnDevice(ctx(), v, nullptr, schedule).mask, parallel);
}

// ---- drainage: filling, directions, flats, accumulation (both schemes of the slides too), Strahler
// order and watersheds, every result exactly the serial reference's ----

void drainageCase(Precision p) {
    const int rows = gTiny ? 9 : 40, cols = gTiny ? 11 : 50;
    io::Raster dem;
    dem.frame.rows = rows, dem.frame.cols = cols;
    dem.hasNoData = true, dem.noData = -1;
    dem.path = "conformance DEM";
    std::mt19937 rng(7);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) dem.values.push_back(r == 3 && c == 4 ? -1 : double((r + c) / 2 + int(rng() % 4)));
    const io::Raster filled = drainage::fillDepressions(ctx(), dem, p);
    ASSERT_EQ(filled.values, drainage::fillDepressionsReference(dem, p).values);
    const drainage::DirectionGrid d8 = drainage::d8Directions(ctx(), filled, p);
    ASSERT_EQ(d8.dir, drainage::d8DirectionsReference(filled, p).dir);
    const drainage::DirectionGrid g = drainage::resolveFlats(ctx(), filled, d8, p);
    ASSERT_EQ(g.dir, drainage::resolveFlatsReference(filled, d8, p).dir);
    drainage::AccumulationOptions opt;
    opt.edgeContamination = true;
    const auto counts = drainage::accumulate(ctx(), g, opt);
    EXPECT_EQ(counts.counts, drainage::accumulateReference(g, opt).counts);
    std::vector<double> w(dem.size());
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.25 + double(i % 7);
    opt.weights = &w;
    opt.precision = p;
    EXPECT_EQ(drainage::accumulate(ctx(), g, opt).sums, drainage::accumulateReference(g, opt).sums);
    {
        // The same steps with the grids kept on the device between them (drainage::Pipeline).
        drainage::Pipeline pipe(ctx(), dem, p);
        pipe.fillDepressions();
        pipe.d8Directions();
        pipe.resolveFlats();
        EXPECT_EQ(pipe.directions().dir, g.dir);
        EXPECT_EQ(pipe.accumulate(opt).sums, drainage::accumulateReference(g, opt).sums);
        EXPECT_EQ(pipe.watersheds(), drainage::watershedsReference(g));
        EXPECT_EQ(pipe.heights().values, filled.values);
    }
    if (p != Precision::Float) return;
    drainage::AccumulationOptions moved;
    moved.includeSelf = false;
    const auto expected = drainage::accumulateReference(g, moved).counts;
    EXPECT_EQ(drainage::accumulateIterative(ctx(), g, drainage::Iterative::Pull), expected);
    if (ctx().device().device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") != std::string::npos)
        EXPECT_EQ(drainage::accumulateIterative(ctx(), g, drainage::Iterative::Push), expected);
    const auto s = drainage::streams(drainage::accumulateReference(g), 4);
    EXPECT_EQ(drainage::strahlerOrder(ctx(), g, s), drainage::strahlerOrderReference(g, s));
    EXPECT_EQ(drainage::watersheds(ctx(), g), drainage::watershedsReference(g));
}

// ---- tiled drainage: filling, directions, flats, accumulation, Strahler order and watersheds in
// small tiles, every result the serial reference's exactly ----

void drainageTilesCase(Precision p) {
    const int rows = gTiny ? 9 : 31, cols = gTiny ? 11 : 37;
    io::Raster dem;
    dem.frame.rows = rows, dem.frame.cols = cols;
    dem.hasNoData = true, dem.noData = -1;
    dem.path = "conformance DEM";
    std::mt19937 rng(11);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            dem.values.push_back(r == 4 && c == 5 ? -1 : double(int(rng() % 9) + 6 * int(std::abs(r - rows / 2) + std::abs(c - cols / 2)) / 5));
    const drainage::Tiling tiles{4, 5};
    const io::Raster filled = drainage::fillDepressions(ctx(), dem, p, tiles);
    ASSERT_EQ(filled.values, drainage::fillDepressionsReference(dem, p).values);
    const drainage::DirectionGrid d8 = drainage::d8Directions(ctx(), filled, p, tiles);
    ASSERT_EQ(d8.dir, drainage::d8DirectionsReference(filled, p).dir);
    const drainage::DirectionGrid g = drainage::resolveFlats(ctx(), filled, d8, p, tiles);
    ASSERT_EQ(g.dir, drainage::resolveFlatsReference(filled, d8, p).dir);
    drainage::AccumulationOptions opt;
    opt.edgeContamination = true;
    opt.tiling = tiles;
    EXPECT_EQ(drainage::accumulate(ctx(), g, opt).counts, drainage::accumulateReference(g, opt).counts);
    std::vector<double> w(dem.size());
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.25 + double(i % 7);
    opt.weights = &w;
    opt.precision = p;
    EXPECT_EQ(drainage::accumulate(ctx(), g, opt).sums, drainage::accumulateReference(g, opt).sums);
    const auto s = drainage::streams(drainage::accumulateReference(g), 4);
    EXPECT_EQ(drainage::strahlerOrder(ctx(), g, s, tiles), drainage::strahlerOrderReference(g, s));
    EXPECT_EQ(drainage::watersheds(ctx(), g, {}, tiles), drainage::watershedsReference(g));
}

// ---- mesh self-intersection: every method gives the serial reference's pairs exactly in every
// precision (float: the pairs float cannot decide go to the host's exact test) on crossing grids with
// exactly coplanar overlaps ----

void meshCase(Precision p) {
    const mesh::TriangleMesh m = mesh::crossingGrids(gTiny ? 2 : 6);
    const mesh::Result ref = mesh::selfIntersectionsReference(m);
    ASSERT_GT(ref.pairs.size(), 0u);
    for (mesh::Method method : {mesh::Method::Hierarchy, mesh::Method::Grid, mesh::Method::AtomicList, mesh::Method::Matrix}) {
        const mesh::Result dev = mesh::selfIntersections(ctx(), m, {method, p});
        EXPECT_EQ(dev.candidates, ref.candidates) << mesh::methodName(method);
        if (p != Precision::Double) EXPECT_GT(dev.report.undecided, 0u) << mesh::methodName(method);
        EXPECT_EQ(dev.pairs, ref.pairs) << mesh::methodName(method);
    }
    // Touching pairs left out (the coplanar grids' edge contacts), by the kernels built for it.
    const mesh::Result refIgnore = mesh::selfIntersectionsReference(m, mesh::Touching::Ignore);
    EXPECT_LT(refIgnore.pairs.size(), ref.pairs.size());
    for (mesh::Method method : {mesh::Method::Hierarchy, mesh::Method::Grid}) {
        const mesh::Result ignore = mesh::selfIntersections(ctx(), m, {method, p, mesh::Touching::Ignore});
        EXPECT_EQ(ignore.pairs, refIgnore.pairs) << mesh::methodName(method);
    }
    // An animation's second frame: the same grids, the tilted one raised, on the refitted tree.
    mesh::FrameSequence seq(ctx(), m, p);
    mesh::TriangleMesh moved = m;
    for (std::size_t i = moved.points.size() * 2 / 3 + 2; i < moved.points.size(); i += 3) moved.points[i] += 0.125f;
    seq.moveTo(moved.points);
    const mesh::Result frame = seq.pairs();
    EXPECT_EQ(frame.pairs, mesh::selfIntersectionsReference(moved).pairs);
}

// Point-in-mesh on a closed box of 12 triangles: points inside, outside, on faces, edges and corners
// (float flags these and the host decides them; every precision gives the reference's sides), a grid
// of points through it.
void meshInsideCase(Precision p) {
    mesh::TriangleMesh cube;
    cube.points = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    cube.triangles = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    std::vector<float> q;
    const int k = gTiny ? 3 : 7;
    for (int z = 0; z < k; ++z)
        for (int y = 0; y < k; ++y)
            for (int x = 0; x < k; ++x) q.insert(q.end(), {-0.25f + 1.5f * x / (k - 1), -0.25f + 1.5f * y / (k - 1), -0.25f + 1.5f * z / (k - 1)});
    q.insert(q.end(), {1, 1, 0.5f, 0, 0, 0, 0.5f, 0.5f, 1});
    const auto ref = mesh::classifyPointsReference(cube, q);
    const auto dev = mesh::classifyPoints(ctx(), cube, q, p);
    if (p != Precision::Double) EXPECT_GT(dev.undecided, 0u);
    EXPECT_EQ(dev.sides, ref.sides);
}

// ---- D∞ directions and accumulation: angles within 1e-4 rad (float) and 1e-9 (double) of the
// reference's, the accumulation of the reference's angles within 1e-5 and 1e-12 relative; in tiles,
// the one-piece run's bit for bit ----

void drainageDinfCase(Precision p) {
    const int rows = gTiny ? 8 : 36, cols = gTiny ? 10 : 44;
    io::Raster dem;
    dem.frame.rows = rows, dem.frame.cols = cols;
    dem.frame.geoTransform = {0, 30, 0, 30.0 * rows, 0, -25};
    dem.frame.hasGeoTransform = true;
    dem.hasNoData = true, dem.noData = -1;
    dem.path = "conformance DEM";
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0, 2);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) dem.values.push_back(r == 2 && c == 3 ? -1 : 0.4 * r + 0.3 * c + u(rng));
    const double angleTol = p == Precision::Float ? 1e-4 : 1e-9, sumTol = p == Precision::Float ? 1e-5 : 1e-12;
    const drainage::DinfGrid ref = drainage::dinfDirectionsReference(dem, p);
    const drainage::DinfGrid dev = drainage::dinfDirections(ctx(), dem, p);
    for (std::size_t i = 0; i < ref.angle.size(); ++i) ASSERT_NEAR(dev.angle[i], ref.angle[i], angleTol) << "cell " << i;
    std::vector<double> w(dem.size());
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.25 + double(i % 3);
    for (bool weighted : {false, true}) {
        drainage::AccumulationOptions opt;
        opt.precision = p;
        if (weighted) opt.weights = &w;
        const auto want = drainage::dinfAccumulateReference(ref, opt), got = drainage::dinfAccumulate(ctx(), ref, opt);
        for (std::size_t i = 0; i < want.sums.size(); ++i)
            ASSERT_NEAR(got.sums[i], want.sums[i], std::abs(want.sums[i]) * sumTol) << "cell " << i;
        // In tiles of 3x4 (dinf_window_dependencies): the one-piece sums bit for bit.
        opt.tiling = {3, 4};
        EXPECT_EQ(drainage::dinfAccumulate(ctx(), ref, opt).sums, got.sums);
    }
    EXPECT_EQ(drainage::dinfDirections(ctx(), dem, p, {3, 4}).angle, dev.angle);
    // A cycle: the cycle check's kernel reports it.
    drainage::DinfGrid cycle;
    cycle.frame.rows = 2, cycle.frame.cols = 2;
    const double pi = std::acos(-1.0);
    cycle.angle = {0, 3 * pi / 2, pi / 2, pi};
    drainage::AccumulationOptions opt;
    opt.precision = p;
    EXPECT_THROW(drainage::dinfAccumulate(ctx(), cycle, opt), Error);
}

// ---- two-point probability S2 through the FFT: float within 2e-5, double within 1e-12 ----

void twoPointCase(Precision p) {
    const double tol = p == Precision::Float ? 2e-5 : 1e-12;
    struct Item {
        lineal::PhaseImage img;
        int ml;
    };
    const std::vector<Item> items = {
        {test::randomPhaseImage(1, gTiny ? 12 : 37, gTiny ? 15 : 45, 0.4, 11), gTiny ? 4 : 12},
        {test::randomPhaseImage(gTiny ? 4 : 9, gTiny ? 5 : 11, gTiny ? 6 : 13, 0.5, 12), gTiny ? 2 : 5}};
    // A 2-D image with periodic wrap, a 3-D one zero-padded (each another FFT size to build).
    for (const auto& it : items) {
        const bool periodic = !it.img.is3d();
        const lineal::Options opt{it.ml, periodic};
        const auto got = lineal::twoPointProbability(ctx(), it.img, opt, p);
        const auto want = lineal::twoPointProbabilityReference(it.img, opt);
        ASSERT_EQ(got.size(), want.size());
        double worst = 0;
        for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
        EXPECT_LE(worst, tol) << it.img.nz << "x" << it.img.ny << "x" << it.img.nx << (periodic ? " periodic" : "");
    }
}

// ---- reconstruction: exact incremental counts, and each swap's change of the error within 1e-8
// (float: sums of ~100 terms of ~1e-3 * 2/N) or 1e-15 (double) of the serial evaluator's ----

lineal::PhaseImage bothPhases(int nz, int ny, int nx, double fraction, unsigned seed) {
    lineal::PhaseImage img = test::randomPhaseImage(nz, ny, nx, fraction, seed);
    img.mask[1] = 0;
    return img;
}

void reconstructionCase(Precision p) {
    struct Item {
        int nz, ny, nx, ml;
        double s2Weight;
    };
    const std::vector<Item> items = gTiny ? std::vector<Item>{{1, 10, 12, 3, 0.5}, {4, 5, 6, 2, 0.0}}
                                          : std::vector<Item>{{1, 18, 22, 5, 0.7}, {6, 7, 8, 2, 0.0}, {5, 6, 7, 2, 1.0}};
    const int swaps = gTiny ? 6 : 60;
    // Both ways of reading a candidate's pixels (windows around it, or the whole image), whichever the
    // device's profile takes.
    for (const bool windows : {true, false})
    for (const auto& it : items) {
        SCOPED_TRACE(std::to_string(it.nz) + "x" + std::to_string(it.ny) + "x" + std::to_string(it.nx) + " S2 weight " +
                     std::to_string(it.s2Weight) + (windows ? ", windows" : ", whole image"));
        const auto t = lineal::targetFromImage(ctx(), bothPhases(it.nz, it.ny, it.nx, 0.5, 7), it.ml, it.s2Weight);
        const auto start = bothPhases(it.nz, it.ny, it.nx, 0.5, 8);
        auto dev = lineal::makeDeviceEvaluator(ctx(), t, start, p, windows);
        auto ref = lineal::makeReferenceEvaluator(t, start);
        std::mt19937 rng(9);
        // Float: ΔE sums at most a few hundred squared differences of L values below 1, so its
        // rounding stays far below 1e-6 (an evaluation order other than PoCL's, oclgrind's, gives 1.2e-8).
        const double tol = p == Precision::Float ? 1e-6 : 1e-15;
        for (int s = 0; s < swaps; ++s) {
            const auto& img = ref->image();
            std::vector<std::uint32_t> in, out;
            for (std::uint32_t i = 0; i < img.size(); ++i) (img.mask[i] ? in : out).push_back(i);
            std::vector<std::pair<std::uint32_t, std::uint32_t>> batch;
            for (int k = 0; k < 8; ++k) batch.push_back({in[rng() % in.size()], out[rng() % out.size()]});
            const auto want = ref->deltaErrors(batch), got = dev->deltaErrors(batch);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol) << "swap " << s << " candidate " << i;
            const std::size_t pick = rng() % batch.size();
            dev->apply(pick);
            ref->apply(pick);
        }
        EXPECT_EQ(dev->image().mask, ref->image().mask);
        EXPECT_EQ(dev->counts(), ref->counts());
        EXPECT_EQ(dev->counts(), lineal::linealPathReference(dev->image(), {t.maxLength, true}).count);
        if (it.s2Weight > 0) EXPECT_EQ(dev->s2Counts(), lineal::twoPointCounts(dev->image(), t.maxLength));
    }
}

// ---- Voronoi: double and mixed give the serial reference's vertex file byte for byte; float's
// vertices are within 1e-3 Å of the reference's, and at most 1 % of them differ in any way ----

std::vector<io::Ball> voronoiBalls(std::size_t count) {
    // The shared data where the engine finds it (PORTACL_DATA_DIR first), as a user's run would.
    const std::string dir = dataDirectory();
    if (dir.empty()) throw std::runtime_error("the Voronoi case needs the shared data: " + dataDirectoryHint());
    auto balls = io::readMolecule(dir + "/pdb/1A8O.pdb")[0].balls;
    if (balls.size() > count) balls.resize(count);
    return balls;
}

struct VertexKey {
    int q[4];
    bool operator<(const VertexKey& o) const { return std::lexicographical_compare(q, q + 4, o.q, o.q + 4); }
};

// Vertices of `got` with no vertex of `want` on the same quadruple within `tol`, plus the reverse.
std::size_t differingVertices(const voronoi::Diagram& got, const voronoi::Diagram& want, double tol) {
    std::multimap<VertexKey, const voronoi::Vertex*> index;
    for (const auto& v : want.vertices) index.insert({VertexKey{{v.q[0], v.q[1], v.q[2], v.q[3]}}, &v});
    std::size_t bad = 0, matched = 0;
    for (const auto& v : got.vertices) {
        bool found = false;
        auto range = index.equal_range(VertexKey{{v.q[0], v.q[1], v.q[2], v.q[3]}});
        for (auto it = range.first; it != range.second && !found; ++it) {
            const auto* w = it->second;
            found = std::max({std::fabs(v.x - w->x), std::fabs(v.y - w->y), std::fabs(v.z - w->z), std::fabs(v.r - w->r)}) <= tol;
        }
        found ? ++matched : ++bad;
    }
    return bad + (want.vertices.size() - std::min(want.vertices.size(), matched));
}

void voronoiCase(Precision p) {
    const auto balls = voronoiBalls(gTiny ? 24 : 200);
    const auto ref = voronoi::computeReference(balls);
    ASSERT_GT(ref.vertices.size(), 10u);
    // The profile's tuning; in mixed also the two phases with the wide, split and flagged search paths forced on.
    voronoi::Options plain;
    plain.precision = p;
    voronoi::Options forced = plain;
    forced.tuning.lanes = 4;
    forced.tuning.group = 64;
    forced.tuning.flaggedLanes = 8;
    forced.tuning.wideGroup = 64;
    forced.tuning.wideCandidates = 8;
    forced.tuning.mixedPhases = 2;
    std::vector<const voronoi::Options*> runs{&plain};
    // Mixed: phase 1 in float, phase 2 in double; double: the wide search's double kernel.
    if (p != Precision::Float) runs.push_back(&forced);
    for (const auto* o : runs) {
        const auto d = voronoi::compute(ctx(), balls, *o);
        const char* which = o == &plain ? "profile tuning" : "wide, split and flagged searches";
        if (p == Precision::Float) {
            const std::size_t bad = differingVertices(d, ref, 1e-3);
            EXPECT_LE(bad * 100, ref.vertices.size()) << which << ": " << bad << " of " << ref.vertices.size() << " vertices differ";
        } else {
            EXPECT_TRUE(voronoi::formatVertices(d) == voronoi::formatVertices(ref))
                << which << ": " << differingVertices(d, ref, 1e-6) << " vertices differ from the serial reference's";
            EXPECT_EQ(d.edges.size(), ref.edges.size()) << which;
        }
    }
}

// ---- k-Wave: every recorded quantity within a relative L2 of the serial reference: 2e-4 in single
// precision, 1e-10 in double, 2e-2 with reduced storage (reduced-min/mid/max) ----

void kwaveCompare(const kwave::Simulation& s, const kwave::RunOptions& o, double tol, const std::string& what) {
    const kwave::Recording ref = kwave::referenceRun(s, o.outputs);
    kwave::KSpaceSolver solver(ctx(), s, o);
    solver.run();
    const kwave::Recording got = solver.recording();
    ASSERT_EQ(got.samples, ref.samples) << what;
    for (const auto& [name, v] : ref.data) {
        auto it = got.data.find(name);
        ASSERT_NE(it, got.data.end()) << what << ": " << name;
        ASSERT_EQ(it->second.size(), v.size()) << what << ": " << name;
        EXPECT_LT(relativeL2(it->second, v), tol) << what << ": " << name;
    }
}

kwave::OutputSelection everyOutput() {
    kwave::OutputSelection o;
    o.pRaw = o.pRms = o.pMax = o.pMin = o.pMaxAll = o.pMinAll = o.pFinal = true;
    o.uRaw = o.uRms = o.uMax = o.uMin = o.uMaxAll = o.uMinAll = o.uFinal = true;
    o.uNonStaggeredRaw = true;
    return o;
}

// Pressure, velocity and transducer sources in `mode` on a 2-D grid with a cuboid sensor.
kwave::Simulation sourcesSimulation(kwave::SourceMode mode) {
    using namespace kwave;
    Simulation s = test::ballSimulation(32, 24, 1, gTiny ? 5 : 12);
    s.p0.clear();
    s.pml.size = {4, 4, 0};
    s.p.length = 8;
    s.p.mode = mode;
    s.p.many = mode == SourceMode::Additive;
    s.p.index = {5 + 32 * 10, 6 + 32 * 10, 7 + 32 * 11};
    for (std::size_t t = 0; t < s.p.length; ++t)
        for (std::size_t i = 0; i < (s.p.many ? 3u : 1u); ++i) s.p.signal.push_back(static_cast<float>(std::sin(0.7 * t + i) * 10.0));
    s.u.length = {6, 4, 0};
    s.u.mode = mode;
    s.u.index = {12 + 32 * 5, 13 + 32 * 5};
    for (int a = 0; a < 2; ++a)
        for (std::size_t t = 0; t < s.u.length[a]; ++t) s.u.signal[a].push_back(static_cast<float>(1e-3 * std::cos(0.5 * t + a)));
    for (int i = 0; i < 12; ++i) s.transducer.signal.push_back(static_cast<float>(1e-3 * std::sin(0.3 * i)));
    s.transducer.delay = {0, 2};
    s.transducer.length = 10;
    s.sensor.type = SensorMask::Type::Corners;
    s.sensor.cuboids = {Cuboid{{2, 3, 0}, {9, 7, 0}}, Cuboid{{15, 15, 0}, {20, 18, 0}}};
    s.sensor.index.clear();
    if (mode == SourceMode::Additive) {
        s.medium.absorption = Absorption::PowerLaw;
        s.medium.alphaCoeff = test::scalarField(0.75);
        s.medium.alphaPower = 1.5;
    }
    return s;
}

void kwaveCase(Precision p, kwave::Storage storage) {
    using namespace kwave;
    RunOptions o;
    o.precision = p;
    o.storage = storage;
    o.outputs = everyOutput();
    const double tol = storage != Storage::Full ? 2e-2 : p == Precision::Double ? 1e-10 : 2e-4;
    const std::size_t steps = gTiny ? 2 : 10;
    // 32x4x16: the z transforms fused with the spectral operators and the x transforms with the
    // velocity update (forced on where the device profile turns them off, as the CPU profiles do
    // with FFTW); 12x10x6: full 3-D transforms; 32x24: a 2-D grid, Stokes absorption.
    struct Grid {
        std::size_t nx, ny, nz;
        Absorption absorption;
    };
    // Under the simulator (tiny), the reduced storage modes run the two 3-D grids only (they took a
    // quarter of its run with all five): what they change is how fields are stored, which the grids'
    // steps exercise; the simulator runs the 2-D grid and the sources in float and double, and the
    // other implementations run all five in every mode.
    const bool gridsOnly = gTiny && storage != Storage::Full;
    for (const Grid g : {Grid{32, 4, 16, Absorption::PowerLaw}, Grid{12, 10, 6, Absorption::PowerLaw},
                         Grid{32, 24, 1, Absorption::Stokes}}) {
        if (gridsOnly && g.nz == 1) continue;
        Simulation s = test::ballSimulation(g.nx, g.ny, g.nz, steps);
        test::makeHard(s, g.absorption);
        s.pml.size[1] = std::min<std::size_t>(s.pml.size[1], g.ny / 2);
        RunOptions og = o;
        if (g.nz == 16) og.profileKeys = {{"fused_z", 1}, {"fftw_fused_z", 1}};
        kwaveCompare(s, og, tol, std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz));
    }
    if (gridsOnly) return;
    for (const SourceMode mode : {SourceMode::Dirichlet, SourceMode::Additive})
        kwaveCompare(sourcesSimulation(mode), o, tol, "sources, mode " + std::to_string(int(mode)));
}

// ---- predicates: double and mixed give the exact sign of every query; float's signs may be wrong
// only where its error bound flagged the query ----

void predicatesCase(predicates::Predicate which, Precision p) {
    using namespace predicates;
    const Batch b = syntheticBatch(which, gTiny ? 64 : 4096, gTiny ? 40 : 512, 0.1, 5);
    const auto exact = evaluateReference(which, b.points, b.queries);
    const Result r = evaluate(ctx(), which, b.points, b.queries, p);
    ASSERT_EQ(r.signs.size(), exact.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < exact.size(); ++i) wrong += r.signs[i] != exact[i];
    if (p == Precision::Float) EXPECT_LE(wrong, r.report.undecided) << "signs wrong beyond the flagged queries";
    else EXPECT_EQ(wrong, 0u) << "wrong signs";
    if (p == Precision::Mixed) EXPECT_GT(r.report.undecided, 0u) << "the batch's degenerate queries were not flagged";
    // The same batch over the cloud padded on the device (padPoints, PointLayout::Padded): the same signs.
    const std::size_t n = exact.size();
    const cl::Buffer packed = ctx().upload(b.points, "packed points"), queries = ctx().upload(b.queries, "queries");
    const cl::Buffer padded = padPoints(ctx(), packed, b.points.size() / 3), signs = ctx().buffer(n, "signs");
    std::vector<std::uint32_t> hostItems;
    TwoPhaseReport report = evaluateOnDevice(ctx(), which, padded, PointLayout::Padded, queries, n, signs, p, &hostItems);
    std::vector<std::int8_t> got = ctx().download<std::int8_t>(signs, n, "signs");
    for (std::uint32_t i : hostItems) got[i] = kDoubleFloatUndecided;
    if (report.phase2 != Phase2Arithmetic::None) finishOnHost(which, b.points, b.queries, got, report);
    EXPECT_EQ(got, r.signs) << "padded points";
}

// ---- the two-phase dispatch's stream compaction (runTwoPhase; the predicates list their flagged
// queries instead): the indices and the count equal the serial compaction's ----

void compactionCase() {
    const std::size_t n = gTiny ? 300 : 100003;
    std::mt19937 rng(12);
    std::bernoulli_distribution flagged(0.03);
    std::vector<std::uint8_t> flags(n);
    for (auto& f : flags) f = flagged(rng) ? 1 : 0;
    const auto expected = compactFlagsReference(flags);
    const cl::Buffer flagsBuf = ctx().upload(flags, "flags"), indices = ctx().buffer(n * sizeof(cl_uint), "indices");
    ASSERT_EQ(compactFlags(ctx(), flagsBuf, n, indices), expected.size());
    EXPECT_EQ(ctx().download<std::uint32_t>(indices, expected.size(), "indices"), expected);
    EXPECT_EQ(countFlags(ctx(), flagsBuf, n), expected.size());
}

// ---- FFT: relative L2 against a direct DFT in long double, 1e-5 in float and 1e-12 in double ----

template <typename T>
std::vector<double> fftRun(const fft::PlanDesc& d, const std::vector<double>& input, std::size_t outputCount) {
    fft::Plan& plan = fft::plan(ctx(), d);
    const std::vector<T> hostIn(input.begin(), input.end());
    cl::Buffer in = ctx().upload(hostIn, "fft input");
    cl::Buffer out = ctx().buffer(fft::outputBytes(d, d.kind == fft::Kind::C2R ? fft::Direction::Inverse : fft::Direction::Forward), "fft output");
    plan.execute(in, out, d.kind == fft::Kind::C2R ? fft::Direction::Inverse : fft::Direction::Forward);
    const auto hostOut = ctx().download<T>(out, outputCount, "fft output");
    return std::vector<double>(hostOut.begin(), hostOut.end());
}

std::vector<double> interleave(const std::vector<std::complex<double>>& c) {
    std::vector<double> v(2 * c.size());
    for (std::size_t i = 0; i < c.size(); ++i) v[2 * i] = c[i].real(), v[2 * i + 1] = c[i].imag();
    return v;
}

template <typename T>
void fftCase(fft::Backend backend) {
    // FFTW transforms on the host: a backend of CPU devices, in builds that have it.
    if (backend == fft::Backend::FFTW && (!fft::available(backend) || !ctx().device().isCpu)) {
        ctx().requirePrecision(precisionOf<T>());  // a device without fp64 still refuses double
        GTEST_SKIP() << "FFTW runs on CPU devices only, in builds with libfftw3-dev";
    }
    const double tol = std::is_same<T, double>::value ? 1e-12 : 1e-5;
    const std::vector<std::vector<std::size_t>> shapes =
        gTiny ? std::vector<std::vector<std::size_t>>{{12}, {6, 10}, {4, 6, 10}}
              : std::vector<std::vector<std::size_t>>{{15}, {6, 10, 14}};
    for (const auto& shape : shapes) {
        std::size_t n = 1;
        for (auto v : shape) n *= v;
        std::string what = fft::backendName(backend);
        for (auto v : shape) what += " " + std::to_string(v);
        fft::PlanDesc d;
        d.shape = shape;
        d.precision = precisionOf<T>();
        d.backend = backend;
        // Complex to complex, forward.
        const auto x = randomValues<double>(2 * n, 3);
        std::vector<std::complex<double>> xc(n);
        for (std::size_t i = 0; i < n; ++i) xc[i] = {x[2 * i], x[2 * i + 1]};
        d.kind = fft::Kind::C2C;
        EXPECT_LE(relativeL2(fftRun<T>(d, x, 2 * n), interleave(fft::reference::dft(xc, shape, fft::Direction::Forward))), tol)
            << what << " C2C";
        // Real to complex, and complex to real (scaled by 1/N).
        const auto r = randomValues<double>(n, 4);
        const auto half = fft::reference::dftRealForward(r, shape);
        d.kind = fft::Kind::R2C;
        EXPECT_LE(relativeL2(fftRun<T>(d, r, 2 * half.size()), interleave(half)), tol) << what << " R2C";
        d.kind = fft::Kind::C2R;
        EXPECT_LE(relativeL2(fftRun<T>(d, interleave(half), n), fft::reference::dftRealInverse(half, shape)), tol) << what << " C2R";
    }
}

// ---- the peak-measuring kernels of `portacl bench`: copies exact, FMA chains within 1e-5 / 1e-12
// relative of the same recurrence in double on the host ----

template <typename T>
void peaksCase() {
    const std::size_t n4 = gTiny ? 37 : 4099;
    const auto src = randomValues<T>(4 * n4, 6);
    for (const auto& [name, perItem] : {std::pair<const char*, std::size_t>{"stream_copy", 1}, {"stream_copy_x4", 4}}) {
        cl::Buffer a = ctx().upload(src, "copy source"), b = ctx().buffer(src.size() * sizeof(T), "copy destination");
        cl::Kernel k = ctx().kernel("vector_ops.cl", name, precisionOf<T>());
        k.setArg(0, a);
        k.setArg(1, b);
        k.setArg(2, cl_ulong(n4));
        ctx().launch(k, cl::NDRange((n4 + perItem - 1) / perItem));
        EXPECT_EQ(ctx().download<T>(b, src.size(), "copy destination"), src) << name;
    }
    const std::size_t items = gTiny ? 16 : 256;
    const int iterations = 4;
    const T y = T(0.999999);
    cl::Buffer out = ctx().buffer(items * sizeof(T), "fma output");
    cl::Kernel k = ctx().kernel("vector_ops.cl", "fma_peak", precisionOf<T>());
    k.setArg(0, out);
    k.setArg(1, y);
    k.setArg(2, iterations);
    ctx().launch(k, cl::NDRange(items));
    const auto got = ctx().download<T>(out, items, "fma output");
    const double tol = std::is_same<T, double>::value ? 1e-12 : 1e-5;
    for (std::size_t g = 0; g < items; ++g) {
        double sum = 0;
        for (int chain = 0; chain < 4; ++chain)
            for (int lane = 0; lane < 8; ++lane) {
                double x = double(T(g) * T(1e-9) + T(lane) * T(1e-3)) + 0.1 * chain;
                for (int i = 0; i < 8 * iterations; ++i) x = x * double(y) + 1e-7;
                sum += x;
            }
        ASSERT_NEAR(got[g], sum, tol * std::abs(sum)) << "fma_peak item " << g;
    }
}

// The predicates' gather floor (the bench's GPU rows: cl/predicates.cl, *_gather_floor): each query's
// points gathered from a packed and a padded cloud, the byte written the sign of their float sum
// taken in the kernel's order, against the same sums on the host.
void gatherFloorCase() {
    const std::size_t points = gTiny ? 23 : 1031, n = gTiny ? 29 : 4099;
    const auto cloud = randomValues<float>(3 * points, 11);
    std::mt19937 rng(12);
    for (predicates::Predicate q : {predicates::Predicate::Orient3d, predicates::Predicate::Insphere}) {
        const std::size_t k = predicates::arity(q);
        std::vector<cl_uint> queries(n * k);
        for (auto& i : queries) i = cl_uint(rng() % points);
        std::vector<cl_char> want(n);
        for (std::size_t i = 0; i < n; ++i) {
            float s[3] = {0, 0, 0};
            for (std::size_t j = 0; j < k; ++j)
                for (int d = 0; d < 3; ++d) s[d] = j == 0 ? cloud[3 * queries[i * k] + d] : s[d] + cloud[3 * queries[i * k + j] + d];
            want[i] = cl_char((s[0] + s[1]) + s[2] > 0.0f);
        }
        const cl::Buffer packed = ctx().upload(cloud, "gather floor cloud");
        const cl::Buffer query = ctx().upload(queries, "gather floor queries");
        for (bool padded : {false, true}) {
            const cl::Buffer gathered = padded ? predicates::padPoints(ctx(), packed, points) : packed;
            cl::Buffer out = ctx().buffer(n, "gather floor bytes");
            cl::Kernel kernel = ctx().kernel("predicates.cl", std::string(predicates::predicateName(q)) + "_gather_floor", Precision::Float,
                                             padded ? "-D PRED_POINT_STRIDE=4" : "-D PRED_POINT_STRIDE=3");
            kernel.setArg(0, cl_uint(n));
            kernel.setArg(1, gathered);
            kernel.setArg(2, query);
            kernel.setArg(3, out);
            ctx().launch(kernel, cl::NDRange((n + 63) / 64 * 64), cl::NDRange(64));
            EXPECT_EQ(ctx().download<cl_char>(out, n, "gather floor bytes"), want) << predicates::predicateName(q) << (padded ? " padded" : " packed");
        }
    }
}

// ---- the table of cases ----

struct Case {
    std::string workload;
    Precision precision;
    std::string label;  // the precision column: float, double, mixed, integer, reduced-min ...
    std::function<void()> run;
};

const char* kIntegerLabel = "integer";

// The row-band path of 8-bit planes (the CPU profiles' choice; portable 16-byte vectors elsewhere),
// on every device: each kind of operation it takes, equal to the reference. (The fixed-point
// Gaussian's column sums are in double, so without fp64 the register path takes it.)
void filterRowsCase() {
    const io::Image grey = filterImage(gTiny ? 37 : 83, gTiny ? 17 : 47, 1, io::PixelType::U8, 4);
    filter::Options rows;
    rows.tuning = {{"cpu_rows", 1}, {"cpu_rows_band", 5}, {"cpu_rows_median3_band", 3}, {"cpu_rows_segment", 32}, {"cpu_rows_median_vector", 16},
                   {"cpu_rows_linear_vector", 16}, {"cpu_rows_row_vector", 16}, {"cpu_rows_double_vector", 16}};
    rows.border = filter::Border::Constant;
    rows.borderValue = 200;
    for (const auto& op : {std::string("conv:1,3,5;2,4,1;3,5,2:sum"), std::string("conv:1;8;28;56;70;56;28;8;1:sum"), std::string("gaussian:9:2.0"),
                           test::decimalRank1Mask(), std::string("median:3"), std::string("median:5")})
        filterCompare(grey, {op}, rows, 0);
    // Rank-1 masks walked along the rows, in segments of two vectors.
    rows.tuning["cpu_rows_walk_segment"] = 32;
    for (const auto& op : {std::string("box:5"), std::string("gaussian:9:2.0"), test::decimalRank1Mask()}) filterCompare(grey, {op}, rows, 0);
}

// Medians of large windows from histograms (cl/filter_median.cl), on every device: the CPU profiles'
// segments with column histograms (method 1), the portable column walk (method 2) and the GPU tile
// of column histograms (method 3), forced, in segments and work-groups that do not divide the image,
// against the reference.
void filterMedianHistogramCase() {
    const io::Image grey = filterImage(gTiny ? 37 : 83, gTiny ? 17 : 47, 1, io::PixelType::U8, 5);
    filter::Options o;
    o.border = filter::Border::Constant;
    o.borderValue = 200;
    for (int method : {1, 2, 3}) {
        o.tuning = {{"median_histogram", method}, {"median_histogram_min", 7}, {"median_histogram_segment", 32},
                    {"median_histogram_band", 5}, {"median_histogram_group", 16}};
        for (const auto& op : {"median:7", "median:15"}) filterCompare(grey, {op}, o, 0);
    }
}

// Medians by a tile's shared selection network (cl/filter_median_network.cl; NVIDIA's profiles'
// choice from 7x7), forced on every device, tiles and work-groups that do not divide the image, with
// and without the columns' shared rows sorted once a work-group.
void filterMedianNetworkCase() {
    const io::Image grey = filterImage(gTiny ? 37 : 83, gTiny ? 17 : 47, 1, io::PixelType::U8, 7);
    filter::Options o;
    o.border = filter::Border::Constant;
    o.borderValue = 200;
    for (int sorted : {0, 1}) {
        o.tuning = {{"median_network", 1},         {"median_network_min", 5},    {"median_network_max", 9},
                    {"median_network_tile_x", 4},  {"median_network_tile_y", 2}, {"median_network_group_x", 4},
                    {"median_network_group_y", 2}, {"median_network_sorted_columns", sorted}};
        for (const auto& op : {"median:5", "median:9"}) filterCompare(grey, {op}, o, 0);
    }
}

// The GPU tile kernels of 8-bit planes (cl/filter_separable_tile.cl, cl/filter_rotating_tile.cl;
// NVIDIA's profiles' choice), forced on every device: a fixed-point decimal mask (64-bit column sums,
// and double where the device has fp64), OpenCV's integer Gaussian, an integer rank-1 mask, and the rotating mask with uint and
// ulong keys, in work-groups that do not divide the image, against the reference.
void filterGpuTilesCase() {
    const io::Image grey = filterImage(gTiny ? 37 : 83, gTiny ? 17 : 47, 1, io::PixelType::U8, 6);
    filter::Options o;
    o.border = filter::Border::Constant;
    o.borderValue = 200;
    o.tuning = {{"cpu_rows", 0},           {"separable_tile", 1},        {"separable_tile_all", 1},   {"separable_tile_group_x", 8},
                {"separable_tile_group_y", 4}, {"separable_tile_rows", 3}, {"rotating_tile", 1},        {"rotating_tile_x", 16},
                {"rotating_tile_y", 8},        {"rotating_tile_walk", 4},  {"rotating_tile_group_x", 8}, {"rotating_tile_group_y", 4}};
    for (const auto& op : {test::decimalRank1Mask(), std::string("gaussian:9:2.0"), std::string("box:7"), std::string("rotating:5"), std::string("rotating:9")})
        filterCompare(grey, {op}, o, 0);
    if (ctx().device().fp64) {
        o.tuning["separable_tile_double"] = 1;
        filterCompare(grey, {test::decimalRank1Mask()}, o, 0);
    }
}

std::vector<Case> cases() {
    using P = Precision;
    std::vector<Case> c;
    auto both = [&](const std::string& w, std::function<void()> f, std::function<void()> d) {
        c.push_back({w, P::Float, "float", std::move(f)});
        c.push_back({w, P::Double, "double", std::move(d)});
    };
    both("vector_sum", vectorSumCase<float>, vectorSumCase<double>);
    for (GemmKernel k : {GemmKernel::Direct, GemmKernel::Tiled, GemmKernel::RegisterBlocked, GemmKernel::TensorCore,
                         GemmKernel::Tensor3xTf32})
        both(std::string("gemm_") + gemmKernelName(k), [k] { gemmCase<float>(k); }, [k] { gemmCase<double>(k); });
    c.push_back({"filter", P::Float, kIntegerLabel, filterIntegerCase});
    c.push_back({"filter_rows", P::Float, kIntegerLabel, filterRowsCase});
    c.push_back({"filter_median_histogram", P::Float, kIntegerLabel, filterMedianHistogramCase});
    c.push_back({"filter_median_network", P::Float, kIntegerLabel, filterMedianNetworkCase});
    c.push_back({"filter_gpu_tiles", P::Float, kIntegerLabel, filterGpuTilesCase});
    both("filter", [] { filterFloatCase(P::Float); }, [] { filterFloatCase(P::Double); });
    c.push_back({"lineal_path_2d", P::Float, kIntegerLabel, [] { linealCase(false); }});
    c.push_back({"lineal_path_3d", P::Float, kIntegerLabel, [] { linealCase(true); }});
    c.push_back({"box_count", P::Float, kIntegerLabel, boxCountCase});
    c.push_back({"skeleton", P::Float, kIntegerLabel, skeletonCase});
    both("drainage", [] { drainageCase(P::Float); }, [] { drainageCase(P::Double); });
    both("drainage_tiles", [] { drainageTilesCase(P::Float); }, [] { drainageTilesCase(P::Double); });
    both("drainage_dinf", [] { drainageDinfCase(P::Float); }, [] { drainageDinfCase(P::Double); });
    both("mesh_self_intersection", [] { meshCase(P::Float); }, [] { meshCase(P::Double); });
    c.push_back({"mesh_self_intersection", P::Mixed, "mixed", [] { meshCase(P::Mixed); }});
    both("mesh_point_in_mesh", [] { meshInsideCase(P::Float); }, [] { meshInsideCase(P::Double); });
    c.push_back({"mesh_point_in_mesh", P::Mixed, "mixed", [] { meshInsideCase(P::Mixed); }});
    both("two_point_s2", [] { twoPointCase(P::Float); }, [] { twoPointCase(P::Double); });
    both("reconstruction", [] { reconstructionCase(P::Float); }, [] { reconstructionCase(P::Double); });
    both("voronoi", [] { voronoiCase(P::Float); }, [] { voronoiCase(P::Double); });
    c.push_back({"voronoi", P::Mixed, "mixed", [] { voronoiCase(P::Mixed); }});
    both("kwave", [] { kwaveCase(P::Float, kwave::Storage::Full); }, [] { kwaveCase(P::Double, kwave::Storage::Full); });
    both("kwave_box_copy", [] { test::checkBoxCopies<float>(ctx()); }, [] { test::checkBoxCopies<double>(ctx()); });
    both("kwave_bell", [] { test::checkBellKernel<float>(ctx()); }, [] { test::checkBellKernel<double>(ctx()); });
    for (kwave::Storage s : {kwave::Storage::ReducedMin, kwave::Storage::ReducedMid, kwave::Storage::ReducedMax})
        c.push_back({"kwave", P::Float, kwave::storageName(s), [s] { kwaveCase(P::Float, s); }});
    for (predicates::Predicate q : {predicates::Predicate::Orient3d, predicates::Predicate::Insphere}) {
        const std::string w = std::string("predicates_") + predicates::predicateName(q);
        both(w, [q] { predicatesCase(q, P::Float); }, [q] { predicatesCase(q, P::Double); });
        c.push_back({w, P::Mixed, "mixed", [q] { predicatesCase(q, P::Mixed); }});
    }
    c.push_back({"two_phase_compaction", P::Float, kIntegerLabel, compactionCase});
    for (fft::Backend b : {fft::Backend::VkFFT, fft::Backend::ClFFT, fft::Backend::FFTW})
        both(std::string("fft_") + fft::backendName(b), [b] { fftCase<float>(b); }, [b] { fftCase<double>(b); });
    both("bench_peaks", peaksCase<float>, peaksCase<double>);
    c.push_back({"bench_gather_floor", P::Float, "float", gatherFloorCase});
    return c;
}

std::string caseName(const Case& c) {
    std::string s = c.workload + "__" + c.label;
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

// Case names instead of bytes in gtest's messages.
void PrintTo(const Case& c, std::ostream* os) { *os << caseName(c); }

class Conformance : public ::testing::TestWithParam<Case> {};

TEST_P(Conformance, MatchesSerialReference) {
    const Case& c = GetParam();
    RecordProperty("workload", c.workload);
    RecordProperty("precision", c.label);
    if (c.precision == Precision::Double && !fp64()) {
        // The one-sentence refusal is the conforming answer.
        try {
            c.run();
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("fp64"), std::string::npos) << "refused for another reason: " << m;
            EXPECT_EQ(m.find('\n'), std::string::npos) << "not one sentence: " << m;
            if (!HasFailure()) GTEST_SKIP() << "refused: " << m;
            return;
        }
        FAIL() << "double ran on a device without fp64";
    }
    try {
        c.run();
    } catch (const std::exception& e) {
        FAIL() << "threw: " << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Workloads, Conformance, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return caseName(info.param); });

// Every __kernel of cl/ ran at least once in this process. Meaningful only for the whole set (a
// filtered run skips it).
class ConformanceCoverage : public ::testing::TestWithParam<int> {};

// A parameterized suite, defined after the workloads' so that it runs after them.
TEST_P(ConformanceCoverage, EveryKernelRan) {
    if (::testing::GTEST_FLAG(filter) != "*") GTEST_SKIP() << "a filtered run";
    std::set<std::string> ran;
    for (const auto& row : ctx().profiler().summary())
        if (row.kind == EventKind::Kernel) ran.insert(row.name);
    std::set<std::string> missing;
    const std::regex kernel(R"(__kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+(\w+)\s*\()");
    std::size_t total = 0;
    // The sources this process compiled: PORTACL_KERNEL_DIR where set (a packed build run elsewhere).
    const char* kernelDir = std::getenv("PORTACL_KERNEL_DIR");
    const fs::path clDir = kernelDir && *kernelDir ? fs::path(kernelDir) : fs::path(PORTACL_SOURCE_DIR) / "cl";
    ASSERT_TRUE(fs::is_directory(clDir)) << "the kernel sources are not at " << clDir << "; set PORTACL_KERNEL_DIR";
    for (const auto& e : fs::directory_iterator(clDir)) {
        if (e.path().extension() != ".cl") continue;
        std::ifstream in(e.path());
        std::stringstream text;
        text << in.rdbuf();
        std::string s = text.str();
        std::replace(s.begin(), s.end(), '\n', ' ');
        for (std::sregex_iterator it(s.begin(), s.end(), kernel), end; it != end; ++it) {
            ++total;
            if (!ran.count((*it)[1])) missing.insert((*it)[1]);
        }
    }
    EXPECT_GE(total, 50u) << "the kernel pattern no longer matches cl/";
    // Kernels that exist only for double: without fp64, Voronoi's phase 2 runs on the host and
    // clFFT's double scaling has nothing to scale.
    if (!fp64())
        for (const char* doubleOnly : {"voronoi_edges_phase2", "voronoi_edges_flagged_phase2", "voronoi_edges_wide_phase2", "fft_scale", "mesh_pairs_phase2", "mesh_point_side_phase2"})
            missing.erase(doubleOnly);
    // The mesh hierarchy refits its boxes in one launch through atomics, or in passes where the device
    // profile says its atomics do not order that hand-over ([mesh] refit = levels): one of the two runs.
    missing.erase(ctx().tuning().get("mesh", "refit", "atomic") == "levels" ? "mesh_bvh_refit" : "mesh_bvh_refit_level");
    // The tensor-core products run on NVIDIA GPUs of compute capability 8.0 and up only.
    if (!tensorCoreRefusal(ctx().device(), Precision::Double).empty()) missing.erase("gemm_dmma");
    if (!gemmKernelRefusal(ctx().device(), GemmKernel::Tensor3xTf32, Precision::Float).empty()) missing.erase("gemm_3xtf32");
    // The slides' push scheme adds 64-bit counts with atomics, which some devices lack (it refuses there).
    if (ctx().device().device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") == std::string::npos)
        missing.erase("d8_push_step");
    std::string list;
    for (const auto& m : missing) list += " " + m;
    EXPECT_TRUE(missing.empty()) << missing.size() << " of " << total << " kernels never ran:" << list;
    RecordProperty("kernels_ran", std::to_string(total - missing.size()) + " of " + std::to_string(total));
}

INSTANTIATE_TEST_SUITE_P(AfterWorkloads, ConformanceCoverage, ::testing::Values(0));

// Each case's result as a line of <report>.jsonl the moment it ends (and a line when it starts), so
// that a run a driver crash ends still says what passed and which case it died in.
class StreamedResults : public ::testing::EmptyTestEventListener {
public:
    explicit StreamedResults(const std::string& path) {
        std::error_code ec;
        fs::create_directories(fs::path(path).parent_path(), ec);
        out_.open(path, std::ios::trunc);
    }
    void OnTestStart(const ::testing::TestInfo& info) override { write(info, "started", ""); }
    void OnTestEnd(const ::testing::TestInfo& info) override {
        const auto* r = info.result();
        std::string message;
        for (int i = 0; i < r->total_part_count(); ++i) {
            const auto& part = r->GetTestPartResult(i);
            if (part.failed() || part.skipped()) message += std::string(message.empty() ? "" : " / ") + part.message();
        }
        write(info, r->Skipped() ? "skipped" : r->Failed() ? "failed" : "passed", message);
    }

private:
    static std::string quoted(const std::string& text) {
        std::string q = "\"";
        for (char ch : text) {
            if (ch == '"' || ch == '\\') q += '\\', q += ch;
            else if (ch == '\n') q += "\\n";
            else if (static_cast<unsigned char>(ch) >= 0x20) q += ch;
        }
        return q + "\"";
    }
    void write(const ::testing::TestInfo& info, const char* status, const std::string& message) {
        if (!out_) return;
        const char* param = info.value_param();
        out_ << "{\"case\": " << quoted(param ? param : info.name()) << ", \"status\": \"" << status
             << "\", \"message\": " << quoted(message) << "}" << std::endl;
    }
    std::ofstream out_;
};

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const char* spec = std::getenv("PORTACL_TEST_DEVICE");
    const char* size = std::getenv("PORTACL_CONFORMANCE_SIZE");
    gTiny = size && std::string(size) == "tiny";
    DeviceInfo device;
    try {
        device = selectDevice(spec ? spec : "");
    } catch (const Error& e) {
        std::cout << "conformance: skipped, no such device: " << e.what() << "\n";
        return 77;
    }
    ContextOptions options = defaultContextOptions();
    options.profile = true;
    gContext = std::make_unique<Context>(device, options);
    std::cout << "conformance on " << device.label() << ": " << device.platformVersion << ", driver "
              << device.driverVersion << ", " << device.deviceVersion << (device.fp64 ? ", fp64" : ", no fp64")
              << (gTiny ? ", tiny sizes" : "") << "\n";
    ::testing::Test::RecordProperty("device", device.name);
    ::testing::Test::RecordProperty("platform", device.platformName);
    ::testing::Test::RecordProperty("platform_version", device.platformVersion);
    ::testing::Test::RecordProperty("driver_version", device.driverVersion);
    ::testing::Test::RecordProperty("fp64", device.fp64 ? "yes" : "no");
    ::testing::Test::RecordProperty("sizes", gTiny ? "tiny" : "small");
    const std::string output = ::testing::GTEST_FLAG(output);
    if (output.rfind("xml:", 0) == 0 && output.size() > 8 && output.compare(output.size() - 4, 4, ".xml") == 0)
        ::testing::UnitTest::GetInstance()->listeners().Append(
            new StreamedResults(output.substr(4, output.size() - 8) + ".jsonl"));
    const int rc = RUN_ALL_TESTS();
    gContext.reset();
    return rc;
}
