// The OpenCL path: channel planes live in device buffers from upload() to download(); each
// operation enqueues one kernel per plane (two for separable masks) into the context's in-order
// queue, from one plane buffer to another.
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "filter/filter_internal.hpp"
#include "filter/gpu_tiles.hpp"
#include "filter/median_histogram.hpp"
#include "filter/median_network.hpp"
#include "filter/planes.hpp"
#include "filter/rows.hpp"
#include "filter/strip.hpp"
#include "portacl/filter.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/growable_buffer.hpp"
#include "portacl/runtime/staging.hpp"

namespace portacl::filter {
namespace {

const char* clType(io::PixelType t) {
    switch (t) {
        case io::PixelType::U8: return "uchar";
        case io::PixelType::U16: return "ushort";
        case io::PixelType::F32: return "float";
    }
    return "uchar";
}

struct DevicePlane {
    cl::Buffer buffer;
    io::PixelType type = io::PixelType::U8;
};

// Samples of one channel between an interleaved image and a plane (`toPlane`: image -> plane), a
// sample of `Bytes` bytes at a time (a move the compiler sees, not a call per sample).
template <std::size_t Bytes>
void copyChannel(unsigned char* image, unsigned char* plane, std::size_t n, int channels, int c, bool toPlane) {
    for (std::size_t i = 0; i < n; ++i) {
        unsigned char* sample = image + (i * channels + c) * Bytes;
        if (toPlane) std::memcpy(plane + i * Bytes, sample, Bytes);
        else std::memcpy(sample, plane + i * Bytes, Bytes);
    }
}
void copyChannel(unsigned char* image, unsigned char* plane, std::size_t n, int channels, int c, std::size_t bps, bool toPlane) {
    if (channels == 1) {  // a grey image is its plane
        if (toPlane) std::memcpy(plane, image, n * bps);
        else std::memcpy(image, plane, n * bps);
        return;
    }
    switch (bps) {
        case 1: return copyChannel<1>(image, plane, n, channels, c, toPlane);
        case 2: return copyChannel<2>(image, plane, n, channels, c, toPlane);
        default: return copyChannel<4>(image, plane, n, channels, c, toPlane);
    }
}

// A staging chunk: a multiple of every sample size, large enough that a chunk's transfer costs more
// than its command, small enough that the copy into the next overlaps most of it.
constexpr std::size_t kStagingChunk = std::size_t(4) << 20;

bool isPowerOfTwo(std::int64_t d) { return d > 0 && (d & (d - 1)) == 0; }
int log2i(std::int64_t d) {
    int s = 0;
    while ((std::int64_t(1) << s) < d) ++s;
    return s;
}
// The kernels' SHIFT for a divisor: 0 for none, log2 of a power of two (a shift), -1 otherwise.
int divisionShift(std::int64_t divisor) { return divisor == 1 ? 0 : isPowerOfTwo(divisor) ? log2i(divisor) : -1; }

}  // namespace

struct Pipeline::Impl {
    Context& ctx;
    std::vector<Operation> ops;
    Options options;
    int width = 0, height = 0, colourPlanes = 0;
    std::vector<DevicePlane> source, planes;  // as uploaded; as filtered so far
    int sourceColourPlanes = 0;
    std::map<std::string, cl::Buffer> constants;  // weights uploaded once per operation
    // Plane buffers, kept from one enqueue() to the next: the n-th request gets the same buffer every
    // time (grown if a new image needs more). A fresh buffer would make the first kernel that writes
    // it pay its allocation.
    std::vector<GrowableBuffer> planePool;
    std::size_t planePoolTaken = 0;
    std::vector<GrowableBuffer> sourcePool;  // the uploaded planes, one per channel, kept the same way
    // The pinned chunks the planes cross the bus through, where the profile says the device copies
    // from pageable memory slowly (staged_transfers = 1: GPUs); null elsewhere.
    std::unique_ptr<StagedTransfers> staging;
    int tx = 16, ty = 16, px = 1;
    bool fusedSeparable = false;  // integer rank-1 masks: both passes in one kernel
    bool strip = false;           // 8-bit planes: the register path (cl/filter_strip.cl) where it applies
    bool median5Strip = true;     // 5x5 medians on the register path (median5_strip = 0: the tile kernels)
    int medianSearchMin = 82;     // medians of at least this many values: the bitwise search, not a network
    // The row-band path of 8-bit planes (cl/filter_rows.cl), for CPU devices: where the profile
    // turns it on (cpu_rows = 1), it takes the operations it can before the register path.
    bool rows = false;
    RowsLayout rowsLayout;
    // Medians of large 8-bit windows from histograms (cl/filter_median.cl), where the profile says so.
    MedianHistogramLayout medianHistogram;
    // Medians by a selection network shared over tiles of outputs (cl/filter_median_network.cl), where
    // the profile says so; the kernel of each window used, its network built and compiled once (null:
    // the device's compiler failed on it).
    MedianNetworkLayout medianNetwork;
    std::map<int, cl::Kernel*> medianNetworkKernels;
    // Masks up to 3x3, 3x3 gradient pairs |Gx| + |Gy|, 1-D rows, rank 1 up to 9x9, medians.
    StripLayout stripSmall, stripGradient, stripRow, stripSeparable, stripMedian3, stripMedian5;
    // The GPU tile kernels of 8-bit planes (rank-1 masks up to 9x9, the rotating mask up to 9x9),
    // where the profile turns them on (separable_tile = 1, rotating_tile = 1): before the register path.
    bool separableTile = false, rotatingTile = false;
    SeparableTileLayout separableTileLayout;
    RotatingTileLayout rotatingTileLayout;

    Impl(Context& c, std::vector<Operation> o, Options opt) : ctx(c), ops(std::move(o)), options(opt) {
        ctx.requirePrecision(options.precision == Precision::Double ? Precision::Double : Precision::Float);
        // GPUs: 32 work-items along a row (one warp writes 32 contiguous pixels), 4 outputs each, one
        // below the other; CPUs (PoCL): square tiles, one output per work-item (PoCL vectorises across
        // work-items).
        const bool gpu = ctx.device().isGpu;
        // NVIDIA's byte dot products (dp4a), saturating packed stores (cvt.pack) and 16-bit lanes, by
        // compute capability.
        const DeviceInfo& dev = ctx.device();
        const bool dp4a = dev.nvidiaFrom(61), cvtPack = dev.nvidiaFrom(72), halfLanes = dev.nvidiaFrom(80);
        tx = setting("tile_x", gpu ? 32 : 16);
        ty = setting("tile_y", gpu ? 8 : 16);
        px = setting("pixels_per_item", gpu ? 4 : 1);
        fusedSeparable = setting("fused_separable", gpu ? 1 : 0) != 0;
        if (tx < 1 || ty < 1 || px < 1 || static_cast<std::size_t>(tx * ty) > ctx.device().maxWorkGroupSize)
            throw Error("the [filter] tile of the tuning profile " + ctx.tuning().name + " (" + std::to_string(tx) + "x" +
                        std::to_string(ty) + ") does not fit a work-group of this device.");
        // The register path: on every device (PoCL too runs it several times faster than the tiles).
        strip = setting("strip", 1) != 0;
        median5Strip = setting("median5_strip", 1) != 0;
        if (setting("staged_transfers", gpu ? 1 : 0) != 0) staging = std::make_unique<StagedTransfers>(ctx, kStagingChunk);
        rows = setting("cpu_rows", 0) != 0;
        rowsLayout.band = setting("cpu_rows_band", rowsLayout.band);
        rowsLayout.median3Band = setting("cpu_rows_median3_band", rowsLayout.median3Band);
        rowsLayout.windowBytes = setting("cpu_rows_window_bytes", rowsLayout.windowBytes);
        rowsLayout.segment = setting("cpu_rows_segment", rowsLayout.segment);
        rowsLayout.medianVector = setting("cpu_rows_median_vector", rowsLayout.medianVector);
        rowsLayout.linearVector = setting("cpu_rows_linear_vector", rowsLayout.linearVector);
        rowsLayout.rowVector = setting("cpu_rows_row_vector", rowsLayout.rowVector);
        rowsLayout.doubleVector = setting("cpu_rows_double_vector", rowsLayout.doubleVector);
        rowsLayout.estimate = setting("cpu_rows_estimate", rowsLayout.estimate);
        rowsLayout.walkSegment = setting("cpu_rows_walk_segment", rowsLayout.walkSegment);
        rowsLayout.extendedVectors = setting("cpu_rows_extended_vectors", 0) != 0;
        if (rows && !rowsLayout.valid())
            throw Error("the [filter] row bands of the tuning profile " + ctx.tuning().name + " (" + std::to_string(rowsLayout.band) + " and " +
                        std::to_string(rowsLayout.median3Band) + " rows by " +
                        std::to_string(rowsLayout.segment) + " columns; vectors of " + std::to_string(rowsLayout.medianVector) + ", " +
                        std::to_string(rowsLayout.linearVector) + ", " + std::to_string(rowsLayout.rowVector) + " and " +
                        std::to_string(rowsLayout.doubleVector) +
                        " bytes) are not a layout the path can run (vectors of 16, 32 or 64 bytes, over 16 only where the profile sets "
                        "cpu_rows_extended_vectors = 1 for a compiler that takes clang's extended vectors; at least one row; columns a multiple of each vector).");
        medianSearchMin = setting("median_search_min", 82);
        separableTile = setting("separable_tile", 0) != 0;
        separableTileLayout.groupX = setting("separable_tile_group_x", separableTileLayout.groupX);
        separableTileLayout.groupY = setting("separable_tile_group_y", separableTileLayout.groupY);
        separableTileLayout.rows = setting("separable_tile_rows", separableTileLayout.rows);
        separableTileLayout.everyMask = setting("separable_tile_all", 0) != 0;
        separableTileLayout.doubleSums = setting("separable_tile_double", 0) != 0;
        rotatingTile = setting("rotating_tile", 0) != 0;
        rotatingTileLayout.groupX = setting("rotating_tile_group_x", rotatingTileLayout.groupX);
        rotatingTileLayout.groupY = setting("rotating_tile_group_y", rotatingTileLayout.groupY);
        rotatingTileLayout.tileX = setting("rotating_tile_x", rotatingTileLayout.tileX);
        rotatingTileLayout.tileY = setting("rotating_tile_y", rotatingTileLayout.tileY);
        rotatingTileLayout.smallTileX = setting("rotating_tile_x_small", rotatingTileLayout.smallTileX);
        rotatingTileLayout.walkRows = setting("rotating_tile_walk", rotatingTileLayout.walkRows);
        rotatingTileLayout.dotsFrom = setting("rotating_tile_dot", dp4a ? 5 : 0);
        rotatingTileLayout.dp4a = dp4a;
        const auto groupFits = [&](int x, int y) { return x >= 1 && y >= 1 && static_cast<std::size_t>(x) * y <= ctx.device().maxWorkGroupSize; };
        if ((separableTile && (!groupFits(separableTileLayout.groupX, separableTileLayout.groupY) || separableTileLayout.rows < 1 || separableTileLayout.rows > 16)) ||
            (rotatingTile && (!groupFits(rotatingTileLayout.groupX, rotatingTileLayout.groupY) || rotatingTileLayout.tileX < 4 ||
                              rotatingTileLayout.tileX % 4 != 0 || rotatingTileLayout.tileY < 1 || rotatingTileLayout.walkRows < 0 ||
                              rotatingTileLayout.walkRows > 32)))
            throw Error("the [filter] GPU tiles of the tuning profile " + ctx.tuning().name + " (separable: work-groups of " +
                        std::to_string(separableTileLayout.groupX) + " x " + std::to_string(separableTileLayout.groupY) + ", " +
                        std::to_string(separableTileLayout.rows) + " rows a work-item; rotating: work-groups of " +
                        std::to_string(rotatingTileLayout.groupX) + " x " + std::to_string(rotatingTileLayout.groupY) + ", tiles of " +
                        std::to_string(rotatingTileLayout.tileX) + " x " + std::to_string(rotatingTileLayout.tileY) + ", walks of " +
                        std::to_string(rotatingTileLayout.walkRows) +
                        " rows) are not a layout this device can run (work-groups it takes, 1 to 16 rows; tiles a multiple of 4 wide, walks of 0 (automatic) to 32 rows).");
        medianHistogram.method = setting("median_histogram", medianHistogram.method);
        medianHistogram.minWindow = setting("median_histogram_min", medianHistogram.minWindow);
        medianHistogram.segment = setting("median_histogram_segment", medianHistogram.segment);
        // Bands of 24 rows, 32 for the GPU tile: a band's first 2 RX rows only fill its column
        // histograms (14 of 46 rows at 15x15), while taller bands leave fewer work-groups to fill the
        // GPU (4096^2 in tiles of 64 by 32 rows: 8192); 32 by 64 ran best of bands 32-64 by groups
        // 32-64 on an H200 (docs/engineering/filter.md).
        medianHistogram.band = setting("median_histogram_band", medianHistogram.method == 3 ? 32 : medianHistogram.band);
        // Work-groups: one work-item for the CPU's segments (each holds tens of KiB of histograms), 64
        // for the portable column walk and the GPU tile (whose 78 column histograms, 21 KB, leave room
        // for several work-groups on a multiprocessor), unless the profile says otherwise.
        medianHistogram.group = setting("median_histogram_group", medianHistogram.method == 1 ? 1 : medianHistogram.group);
        if (!medianHistogram.fits(ctx.device().maxWorkGroupSize, ctx.device().localMemBytes))
            throw Error("the [filter] median histograms of the tuning profile " + ctx.tuning().name + " (method " +
                        std::to_string(medianHistogram.method) + ", segments of " + std::to_string(medianHistogram.segment) +
                        " columns, bands of " + std::to_string(medianHistogram.band) + " rows, work-groups of " +
                        std::to_string(medianHistogram.group) +
                        ") are not a layout this device can run (method 0, 1, 2 or 3; segments of 1 to 4096 columns; work-groups this device takes, whose 272 bytes a work-item, and for method 3 those of 14 more columns, fit its local memory).");
        medianNetwork.enabled = setting("median_network", 0) != 0;
        medianNetwork.minWindow = setting("median_network_min", medianNetwork.minWindow);
        medianNetwork.maxWindow = setting("median_network_max", medianNetwork.maxWindow);
        medianNetwork.tileX = setting("median_network_tile_x", medianNetwork.tileX);
        medianNetwork.largeTileX = setting("median_network_tile_x_large", medianNetwork.largeTileX);
        medianNetwork.tileY = setting("median_network_tile_y", medianNetwork.tileY);
        medianNetwork.groupX = setting("median_network_group_x", medianNetwork.groupX);
        medianNetwork.groupY = setting("median_network_group_y", medianNetwork.groupY);
        medianNetwork.u16x2 = setting("median_network_u16x2", dev.nvidiaFrom(90) ? 1 : 0) != 0;
        medianNetwork.sortedColumns = setting("median_network_sorted_columns", 0) != 0;
        if (medianNetwork.enabled && !medianNetwork.fits(ctx.device().maxWorkGroupSize, ctx.device().localMemBytes))
            throw Error("the [filter] median networks of the tuning profile " + ctx.tuning().name + " (windows " +
                        std::to_string(medianNetwork.minWindow) + " to " + std::to_string(medianNetwork.maxWindow) + ", tiles of " +
                        std::to_string(medianNetwork.tileX) + " x " + std::to_string(medianNetwork.tileY) +
                        (medianNetwork.largeTileX > 0 ? " (" + std::to_string(medianNetwork.largeTileX) + " wide from 13 x 13)" : std::string()) +
                        ", work-groups of " + std::to_string(medianNetwork.groupX) + " x " + std::to_string(medianNetwork.groupY) +
                        ") are not a layout this device can run (windows 3 to 15, tiles of at most 32 outputs, work-groups it takes whose patch fits its local memory).");
        const int groupX = setting("strip_group_x", gpu ? 32 : 8), groupY = setting("strip_group_y", 2);
        const int wide = gpu ? 16 : 8;
        // Each family may have a work-group of its own (<family>_group_x/y), else strip_group_x/y.
        const auto family = [&](const std::string& prefix, int width, int rows) {
            return StripLayout{setting(prefix + "strip_width", width), setting(prefix + "strip_rows", rows),
                               setting(prefix.empty() ? "strip_group_x" : prefix + "group_x", groupX),
                               setting(prefix.empty() ? "strip_group_y" : prefix + "group_y", groupY)};
        };
        stripSmall = family("", wide, gpu ? 8 : 4);
        // Gradient pairs (in 16-bit lanes where strip_gradient_lanes is on) and 1-D rows (which
        // share nothing between output rows): layouts of their own, by default the small masks'.
        stripGradient = family("gradient_", stripSmall.width, stripSmall.rows);
        stripRow = family("row_", stripSmall.width, stripSmall.rows);
        stripSeparable = family("separable_", 8, gpu ? 8 : 4);
        stripMedian3 = family("median3_", wide, gpu ? 4 : 2);
        stripMedian5 = family("median5_", 8, 2);
        // Byte dot products and saturating packed stores: by default where NVIDIA's dp4a and
        // cvt.pack instructions exist (elsewhere the products spelt out cost more than the shared
        // base sums). The image width compiled in: one program per width (the profile says where).
        const bool floatSums = setting("strip_float", 0) != 0, byteDots = setting("strip_dot", dp4a ? 1 : 0) != 0,
                   satPack = setting("strip_pack", cvtPack ? 1 : 0) != 0, fixedWidth = setting("strip_fixed_width", 0) != 0,
                   gradientLanes = setting("strip_gradient_lanes", halfLanes ? 1 : 0) != 0,
                   laneDots = setting("strip_lane_dots", dp4a ? 1 : 0) != 0;
        for (StripLayout* l : {&stripSmall, &stripGradient, &stripRow, &stripSeparable, &stripMedian3, &stripMedian5}) {
            l->floatSums = floatSums;  // (linear masks only: the median families ignore the first three)
            l->byteDots = byteDots;
            l->dp4a = dp4a;
            l->satPack = satPack;
            l->cvtPack = cvtPack;
            l->fixedWidth = fixedWidth;
            l->gradientLanes = gradientLanes;
            l->halfLanes = halfLanes;
            l->laneDots = laneDots;
        }
        for (const StripLayout* l : {&stripSmall, &stripGradient, &stripRow, &stripSeparable, &stripMedian3, &stripMedian5})
            if ((l->width != 4 && l->width != 8 && l->width != 16) || l->rows < 1 || l->rows > 64 || l->groupX < 1 || l->groupY < 1 ||
                static_cast<std::size_t>(l->groupX * l->groupY) > ctx.device().maxWorkGroupSize)
                throw Error("the [filter] strip layout of the tuning profile " + ctx.tuning().name + " (strips of " + std::to_string(l->width) +
                            " x " + std::to_string(l->rows) + ", work-groups of " + std::to_string(l->groupX) + " x " +
                            std::to_string(l->groupY) + ") is not one this device can run (strip widths 4, 8 or 16).");
    }

    // A kernel of the register path or the GPU tiles, or null when the device's compiler failed on it
    // (said once; the tile kernels take the operation instead).
    cl::Kernel* builtOrFallback(const char* file, const char* name, const std::string& defines) {
        try {
            return &kernel(file, name, defines);
        } catch (const BuildError& e) {
            if (!e.compilerFailed()) throw;
            portableFallback(e, "the register path or the tile kernels take this operation instead");
            return nullptr;
        }
    }

    // A new output plane of in's type, bound with the arguments every plane kernel takes first:
    // in, out, width, height, the border value.
    DevicePlane bindPlane(cl::Kernel& k, const DevicePlane& in) {
        DevicePlane out{planeBuffer(planeBytes(in.type), "filtered plane"), in.type};
        setArg(k, 0, in.buffer);
        setArg(k, 1, out.buffer);
        setArg(k, 2, static_cast<cl_int>(width));
        setArg(k, 3, static_cast<cl_int>(height));
        setArg(k, 4, static_cast<cl_int>(saturate(options.borderValue, in.type)));
        return out;
    }

    // The row-band path's kernel for op on an 8-bit plane, if the profile chose it and it takes the
    // operation: launched, its output returned.
    bool tryRows(const DevicePlane& in, const Operation& op, DevicePlane& out) {
        if (!rows) return false;
        const std::string defines = rowsDefines(op, in.type, width, height, options.border, rowsLayout, ctx.device().fp64);
        if (defines.empty()) return false;
        cl::Kernel* built = builtOrFallback("filter_rows.cl", "filter_rows", defines);
        if (!built) return false;
        cl::Kernel& k = *built;
        out = bindPlane(k, in);
        // Rank-1 masks walk along the rows where the profile says so (HWALK): their own segments and bands.
        const bool walk = defines.find("-D HWALK=1") != std::string::npos;
        const int band = walk ? rowsLayout.walkBandFor(height, ctx.device().computeUnits)
                              : rowsLayout.bandFor(op, width, height, ctx.device().computeUnits);
        const int segment = walk ? rowsLayout.walkSegment : rowsLayout.segment;
        setArg(k, 5, static_cast<cl_int>(band));
        setArg(k, 6, static_cast<cl_int>(segment));
        const std::size_t segments = (static_cast<std::size_t>(width) + segment - 1) / segment;
        const std::size_t bands = (static_cast<std::size_t>(height) + band - 1) / band;
        ctx.launch(k, cl::NDRange(segments, bands), cl::NDRange(1, 1));
        return true;
    }

    // A GPU tile kernel (cl/filter_separable_tile.cl, cl/filter_rotating_tile.cl) for op on an 8-bit
    // plane, if the profile turned it on and it takes the operation: launched, its output returned.
    bool tryGpuTile(const DevicePlane& in, const Operation& op, DevicePlane& out) {
        const bool rotating = op.kind == Operation::Kind::RotatingMask;
        if (!(rotating ? rotatingTile : separableTile)) return false;
        const std::size_t local = ctx.device().localMemBytes;
        const TileKernel tk = rotating ? rotatingTileKernel(op, in.type, width, height, options.border, rotatingTileLayout, local)
                                       : separableTileKernel(op, in.type, width, height, options.border, separableTileLayout, local, ctx.device().fp64);
        if (tk.defines.empty()) return false;
        cl::Kernel* built = rotating ? builtOrFallback("filter_rotating_tile.cl", "filter_rotating_tile", tk.defines)
                                     : builtOrFallback("filter_separable_tile.cl", "filter_separable_tile", tk.defines);
        if (!built) return false;
        cl::Kernel& k = *built;
        out = bindPlane(k, in);
        ctx.launch(k, cl::NDRange(tk.globalX, tk.globalY), cl::NDRange(tk.groupX, tk.groupY));
        return true;
    }

    // A median by a tile's selection network (cl/filter_median_network.cl), if the profile sends op
    // there: launched, its output returned.
    bool tryMedianNetwork(const DevicePlane& in, const Operation& op, DevicePlane& out) {
        if (!medianNetwork.takes(op, in.type)) return false;
        const MedianNetworkLayout layout = medianNetwork.forWindow(op.width);
        auto built = medianNetworkKernels.find(op.width);
        if (built == medianNetworkKernels.end()) {
            const MedianNetwork network = buildMedianNetwork(op.width, layout.tileX, layout.tileY, layout.sortedColumns);
            cl::Kernel* k = nullptr;
            try {
                k = &ctx.kernel("filter_median_network.cl", "median_network_tile", real(), layout.defines(op.width, options.border),
                                network.openclFunction());
            } catch (const BuildError& e) {
                // A compiler that crashes or takes too long on the network's straight-line code (Intel's
                // CPU runtime on 15x15): said once, and the kernels below take the median.
                if (!e.compilerFailed()) throw;
                portableFallback(e, "the histograms or the per-window networks take this median instead");
            }
            built = medianNetworkKernels.emplace(op.width, k).first;
        }
        if (!built->second) return false;
        cl::Kernel& k = *built->second;
        out = bindPlane(k, in);
        const std::size_t groupsX = (static_cast<std::size_t>(width) + layout.groupOutputsX() - 1) / layout.groupOutputsX();
        const std::size_t groupsY = (static_cast<std::size_t>(height) + layout.groupOutputsY() - 1) / layout.groupOutputsY();
        ctx.launch(k, cl::NDRange(groupsX * medianNetwork.groupX, groupsY * medianNetwork.groupY), cl::NDRange(medianNetwork.groupX, medianNetwork.groupY));
        return true;
    }

    // A median from histograms (cl/filter_median.cl), if the profile sends op there: launched, its
    // output returned.
    bool tryMedianHistogram(const DevicePlane& in, const Operation& op, DevicePlane& out) {
        const MedianHistogramKernel mk = medianHistogramKernel(op, in.type, options.border, medianHistogram);
        if (mk.name.empty()) return false;
        cl::Kernel& k = kernel("filter_median.cl", mk.name, mk.defines);
        out = bindPlane(k, in);
        const int band = medianHistogram.bandFor(height, ctx.device().computeUnits);
        setArg(k, 5, static_cast<cl_int>(band));
        const std::size_t bands = (static_cast<std::size_t>(height) + band - 1) / band;
        if (medianHistogram.method == 1) {
            const std::size_t segments = (static_cast<std::size_t>(width) + medianHistogram.segment - 1) / medianHistogram.segment;
            ctx.launch(k, cl::NDRange(roundUp(segments, medianHistogram.group), bands), cl::NDRange(medianHistogram.group, 1));
        } else {
            ctx.launch(k, cl::NDRange(roundUp(width, medianHistogram.group), bands), cl::NDRange(medianHistogram.group, 1));
        }
        return true;
    }

    // The register path's kernel for op on an 8-bit plane, if it takes it: launched, its output returned.
    bool tryStrip(const DevicePlane& in, const Operation& op, DevicePlane& out) {
        if (!strip) return false;
        const bool gradientPair = op.combine == Combine::L1 && op.masks.size() == 2 && op.width == 3 && op.height == 3;
        const StripLayout& layout = op.kind == Operation::Kind::Median ? (op.width == 3 ? stripMedian3 : stripMedian5)
                                    : gradientPair                     ? stripGradient
                                    : op.height == 1                   ? stripRow
                                    : op.rowFactor.empty()             ? stripSmall
                                                                       : stripSeparable;
        if (op.kind == Operation::Kind::Median && op.width == 5 && !median5Strip) return false;
        const std::string defines = stripDefines(op, in.type, width, height, options.border, layout);
        if (defines.empty()) return false;
        try {
            out = stripPass(in, defines, layout);
        } catch (const BuildError& e) {
            if (!e.compilerFailed()) throw;
            portableFallback(e, "the tile kernels take this operation instead");
            return false;
        }
        return true;
    }

    // A vendor compiler crashed or hung on a specialised kernel: said once per pipeline, then the
    // caller takes the portable kernel for the same operation.
    void portableFallback(const BuildError& e, const std::string& instead) {
        if (saidFallback.insert(e.what()).second) std::cerr << "portacl: " << e.what() << "; " << instead << "\n";
    }
    std::set<std::string> saidFallback;

    // A [filter] setting: the options' override, else the device profile's, else the default.
    int setting(const std::string& key, int fallback) const {
        const auto it = options.tuning.find(key);
        if (it != options.tuning.end()) return static_cast<int>(it->second);
        return static_cast<int>(ctx.tuning().getInt("filter", key, fallback));
    }

    Precision real() const { return options.precision == Precision::Double ? Precision::Double : Precision::Float; }

    cl::Kernel& kernel(const std::string& file, const std::string& name, const std::string& defines) {
        return ctx.kernel(file, name, real(), defines);
    }

    // A plane's buffer: its samples and kStripSlack bytes after them (the register path reads the
    // word right of a row's last strip, also on the last row).
    std::size_t planeBytes(io::PixelType t) const { return static_cast<std::size_t>(width) * height * bytesPerSample(t) + kStripSlack; }

    template <typename T>
    cl::Buffer& weights(const std::string& key, const std::vector<T>& values) {
        auto it = constants.find(key);
        if (it == constants.end()) it = constants.emplace(key, ctx.upload(values, "filter weights", CL_MEM_READ_ONLY)).first;
        return it->second;
    }

    // A tile kernel's work-group: x by y work-items, perItem outputs each, one below the other.
    struct Tile {
        int x, y, perItem;
    };
    Tile profileTile() const { return Tile{tx, ty, px}; }

    std::string commonDefines(io::PixelType in, io::PixelType out, int rx, int ry, const Tile& tile) const {
        std::ostringstream d;
        d << "-D SRC_T=" << clType(in) << " -D DST_T=" << clType(out) << " -D INTEGER=" << (in != io::PixelType::F32 ? 1 : 0)
          << " -D BORDER=" << static_cast<int>(options.border) << " -D TX=" << tile.x << " -D TY=" << tile.y << " -D RX=" << rx
          << " -D RY=" << ry;
        if (out != io::PixelType::F32) d << " -D OUT_MAX=" << maxSample(out);
        return d.str();
    }

    cl::NDRange global2d() const { return cl::NDRange(roundUp(width, tx), roundUp(height, ty)); }
    cl::NDRange globalWindow(const Tile& t) const {
        const std::size_t rows = static_cast<std::size_t>(t.y) * t.perItem;
        return cl::NDRange(roundUp(width, t.x), (static_cast<std::size_t>(height) + rows - 1) / rows * t.y);
    }

    // The profile's tile, with fewer outputs per work-item, then fewer work-items (the longer side
    // halved), until its local memory (bytes(tile)) fits half the device's; refused when even one
    // work-item's does not.
    template <typename Bytes>
    Tile fitTile(const Bytes& bytes, const Operation& op) const {
        const std::size_t budget = ctx.device().localMemBytes / 2;
        Tile t = profileTile();
        while (bytes(t) > budget && (t.perItem > 1 || t.x > 1 || t.y > 1)) {
            if (t.perItem > 1) --t.perItem;
            else if (t.y >= t.x) t.y = (t.y + 1) / 2;
            else t.x = (t.x + 1) / 2;
        }
        if (bytes(t) > budget)
            throw Error("'" + op.spec + "' needs " + std::to_string(bytes(t)) + " bytes of local memory for a single output, more than half of this device's " +
                        std::to_string(ctx.device().localMemBytes) + " bytes.");
        return t;
    }

    void setOutside(cl::Kernel& k, int index, io::PixelType t) {
        if (t != io::PixelType::F32) {
            setArg(k, index, static_cast<cl_int>(saturate(options.borderValue, t)));
        } else if (real() == Precision::Double) {
            setArg(k, index, static_cast<cl_double>(static_cast<float>(options.borderValue)));
        } else {
            setArg(k, index, static_cast<cl_float>(options.borderValue));
        }
    }

    void setReal(cl::Kernel& k, int index, double v) {
        if (real() == Precision::Double) setArg(k, index, static_cast<cl_double>(v));
        else setArg(k, index, static_cast<cl_float>(v));
    }

    std::vector<unsigned char> realBytes(const std::vector<double>& v) const {
        std::vector<unsigned char> bytes;
        for (double x : v) {
            if (real() == Precision::Double) {
                const auto* p = reinterpret_cast<const unsigned char*>(&x);
                bytes.insert(bytes.end(), p, p + sizeof x);
            } else {
                const float f = static_cast<float>(x);
                const auto* p = reinterpret_cast<const unsigned char*>(&f);
                bytes.insert(bytes.end(), p, p + sizeof f);
            }
        }
        return bytes;
    }

    // The register path over one 8-bit plane (the caller checked that it takes the operation).
    DevicePlane stripPass(const DevicePlane& in, const std::string& defines, const StripLayout& layout) {
        cl::Kernel& k = kernel("filter_strip.cl", "filter_strip", defines);
        DevicePlane out{planeBuffer(planeBytes(in.type), "filtered plane"), in.type};
        setArg(k, 0, in.buffer);
        setArg(k, 1, out.buffer);
        setArg(k, 2, static_cast<cl_int>(width));
        setArg(k, 3, static_cast<cl_int>(height));
        setArg(k, 4, static_cast<cl_int>(saturate(options.borderValue, in.type)));
        const std::size_t items = (static_cast<std::size_t>(width) + layout.width - 1) / layout.width;
        const std::size_t rows = (static_cast<std::size_t>(height) + layout.rows - 1) / layout.rows;
        ctx.launch(k, cl::NDRange(roundUp(items, layout.groupX), roundUp(rows, layout.groupY)), cl::NDRange(layout.groupX, layout.groupY));
        return out;
    }

    // One window kernel over one plane.
    DevicePlane window(const DevicePlane& in, const Operation& op, std::size_t opIndex) {
        DevicePlane viaStrip;
        if (tryMedianNetwork(in, op, viaStrip) || tryMedianHistogram(in, op, viaStrip) || tryRows(in, op, viaStrip) || tryGpuTile(in, op, viaStrip) || tryStrip(in, op, viaStrip))
            return viaStrip;
        const io::PixelType outT = outputType(op, in.type);
        int opCode = 1, rx = op.width / 2, ry = op.height / 2;
        if (op.kind == Operation::Kind::Median) opCode = 2;
        if (op.kind == Operation::Kind::ThresholdMean) opCode = 3;
        if (op.kind == Operation::Kind::RotatingMask) {
            opCode = 4;
            rx = 2 * (op.width / 2);
            ry = 2 * (op.height / 2);
        }
        IntegerPlan plan;
        if (op.kind == Operation::Kind::Linear && in.type != io::PixelType::F32) plan = planInteger(op, in.type);
        bool narrowAcc = plan.narrow, narrowSum = true;
        const std::size_t valBytes = in.type != io::PixelType::F32 ? 4 : real() == Precision::Double ? 8 : 4;
        // The rotating mask also keeps two sums (of the samples, of their squares) per tile row and
        // column of window centres (cl/filter_window.cl, rotating_statistics): int where the sums,
        // the sums of squares and the dispersions n*Q - S^2 (at most n^2 max^2 / 4) fit.
        std::size_t windowBytes = 0;
        if (op.kind == Operation::Kind::RotatingMask) {
            if (in.type != io::PixelType::F32) {
                const std::int64_t n = static_cast<std::int64_t>(op.width) * op.height, top = maxSample(in.type);
                narrowSum = n * top <= INT32_MAX;
                narrowAcc = std::max(n * top * top, n * n * top * top / 4) <= INT32_MAX;
                windowBytes = (narrowSum ? 4 : 8) + (narrowAcc ? 4 : 8);
            } else {
                windowBytes = 2 * valBytes;
            }
        }
        const auto tileBytes = [&](const Tile& t) {
            const std::size_t rows = static_cast<std::size_t>(t.y) * t.perItem + 2 * ry;
            return (static_cast<std::size_t>(t.x) + 2 * rx) * rows * valBytes + (static_cast<std::size_t>(t.x) + 2 * (op.width / 2)) * rows * windowBytes;
        };
        const Tile tile = fitTile(tileBytes, op);
        std::ostringstream d;
        d << commonDefines(in.type, outT, rx, ry, tile) << " -D PY=" << tile.perItem << " -D ACC_T=" << (narrowAcc ? "int" : "long")
          << " -D SUM_T=" << (narrowSum ? "int" : "long")
          << " -D DIV_NARROW=" << (plan.narrowDivision ? 1 : 0) << " -D OP=" << opCode << " -D KW=" << op.width << " -D KH=" << op.height
          << " -D NMASK=" << std::max<std::size_t>(1, op.masks.size()) << " -D COMBINE=" << static_cast<int>(op.combine);
        // Medians beyond 9x9: a bitwise search (the selection network grows as N^2 and compiles slowly;
        // up to 9x9 it is several times faster).
        if (op.kind == Operation::Kind::Linear && in.type != io::PixelType::F32)
            d << " -D DIVISOR=" << plan.divisor << " -D SHIFT=" << divisionShift(plan.divisor);
        const bool search = op.kind == Operation::Kind::Median && op.width * op.height >= medianSearchMin;
        d << " -D KEY_BITS=" << 8 * bytesPerSample(in.type);
        // A median's selection network is long straight-line code that a vendor compiler may fail
        // on (docs/portability.md): the bitwise search is the portable path.
        cl::Kernel* built = nullptr;
        try {
            built = &kernel("filter_window.cl", "filter_window", d.str() + " -D MEDIAN_SEARCH=" + (search ? "1" : "0"));
        } catch (const BuildError& e) {
            if (!e.compilerFailed() || search || op.kind != Operation::Kind::Median) throw;
            portableFallback(e, "the median's bitwise search takes it instead");
            built = &kernel("filter_window.cl", "filter_window", d.str() + " -D MEDIAN_SEARCH=1");
        }
        cl::Kernel& k = *built;
        DevicePlane out{planeBuffer(planeBytes(outT), "filtered plane"), outT};
        std::int64_t divisor = 1;
        const std::string wkey = std::to_string(opIndex) + clType(in.type);
        cl::Buffer maskBuf;
        if (op.kind == Operation::Kind::Linear) {
            if (in.type != io::PixelType::F32) {
                std::vector<std::int32_t> flat;
                for (const auto& m : plan.masks) flat.insert(flat.end(), m.begin(), m.end());
                maskBuf = weights(wkey, flat);
                divisor = plan.divisor;
            } else {
                std::vector<double> flat;
                for (const auto& m : op.masks)
                    for (double v : m) flat.push_back(v / op.divisor);
                maskBuf = weights(wkey, realBytes(flat));
            }
        } else {
            maskBuf = weights("dummy", std::vector<std::int32_t>{0});
        }
        const std::int64_t n = static_cast<std::int64_t>(op.width) * op.height;
        setArg(k, 0, in.buffer);
        setArg(k, 1, out.buffer);
        setArg(k, 2, static_cast<cl_int>(width));
        setArg(k, 3, static_cast<cl_int>(height));
        setOutside(k, 4, in.type);
        setArg(k, 5, maskBuf);
        setArg(k, 6, static_cast<cl_long>(divisor));
        setArg(k, 7, static_cast<cl_int>(divisionShift(divisor)));
        setReal(k, 8, op.threshold);
        setArg(k, 9, static_cast<cl_long>(std::floor(static_cast<double>(n) * op.threshold)));
        ctx.launch(k, globalWindow(tile), cl::NDRange(tile.x, tile.y));
        return out;
    }

    DevicePlane separable(const DevicePlane& in, const Operation& op, std::size_t opIndex) {
        DevicePlane viaStrip;
        if (tryRows(in, op, viaStrip) || tryGpuTile(in, op, viaStrip) || tryStrip(in, op, viaStrip)) return viaStrip;
        const int rx = op.width / 2, ry = op.height / 2;
        const bool integer = in.type != io::PixelType::F32;
        std::string midT = clType(io::PixelType::F32);
        std::size_t midBytes = 4;
        cl::Buffer rowBuf, colBuf;
        std::int64_t divisor = 1;
        double outsideRow = 0;
        const double outside = integer ? saturate(options.borderValue, in.type) : static_cast<float>(options.borderValue);
        if (integer) {
            const IntegerPlan plan = planInteger(op, in.type);
            midT = plan.wideIntermediate ? "long" : "int";
            midBytes = plan.wideIntermediate ? 8 : 4;
            rowBuf = weights(std::to_string(opIndex) + clType(in.type) + "r", plan.row);
            colBuf = weights(std::to_string(opIndex) + clType(in.type) + "c", plan.col);
            divisor = plan.divisor;
            std::int64_t rs = 0;
            for (auto v : plan.row) rs += v;
            outsideRow = static_cast<double>(static_cast<std::int64_t>(outside) * rs);
        } else {
            midT = real() == Precision::Double ? "double" : "float";
            midBytes = real() == Precision::Double ? 8 : 4;
            std::vector<double> col;
            for (double v : op.colFactor) col.push_back(v / op.divisor);
            rowBuf = weights(std::to_string(opIndex) + "rf", realBytes(op.rowFactor));
            colBuf = weights(std::to_string(opIndex) + "cf", realBytes(col));
            // The constant row's horizontal sum, in the real type, summed in the kernel's order.
            if (real() == Precision::Double) {
                double rs = 0;
                for (double v : op.rowFactor) rs += v;
                outsideRow = static_cast<double>(outside) * rs;
            } else {
                float rs = 0;
                for (double v : op.rowFactor) rs += static_cast<float>(v);
                outsideRow = static_cast<float>(static_cast<float>(outside) * rs);
            }
        }
        const IntegerPlan plan = integer ? planInteger(op, in.type) : IntegerPlan{};
        const std::string defines = commonDefines(in.type, in.type, rx, ry, profileTile()) + " -D MID_T=" + midT + " -D ACC_T=" +
                                    (plan.narrow ? "int" : "long") + " -D DIV_NARROW=" + (plan.narrowDivision ? "1" : "0");
        if (integer && fusedSeparable) {
            // One kernel: the input tile and its row sums in local memory (half the device's at most).
            int perItem = px;
            const auto bytes = [&](int py) {
                return (static_cast<std::size_t>(tx) + 2 * rx) * (ty * py + 2 * ry) * 4 + static_cast<std::size_t>(tx) * (ty * py + 2 * ry) * midBytes;
            };
            while (perItem > 1 && bytes(perItem) > ctx.device().localMemBytes / 2) --perItem;
            if (bytes(perItem) <= ctx.device().localMemBytes / 2) {
                DevicePlane out{planeBuffer(planeBytes(in.type), "filtered plane"), in.type};
                cl::Kernel& k = kernel("filter_separable.cl", "filter_separable_fused",
                                       defines + " -D PY=" + std::to_string(perItem) + " -D DIVISOR=" + std::to_string(divisor) +
                                           " -D SHIFT=" + std::to_string(divisionShift(divisor)));
                setArg(k, 0, in.buffer);
                setArg(k, 1, out.buffer);
                setArg(k, 2, static_cast<cl_int>(width));
                setArg(k, 3, static_cast<cl_int>(height));
                setOutside(k, 4, in.type);
                setArg(k, 5, rowBuf);
                setArg(k, 6, colBuf);
                setArg(k, 7, static_cast<cl_long>(divisor));
                setArg(k, 8, static_cast<cl_int>(divisionShift(divisor)));
                ctx.launch(k, globalWindow(Tile{tx, ty, perItem}), cl::NDRange(tx, ty));
                return out;
            }
        }
        cl::Buffer mid = planeBuffer(static_cast<std::size_t>(width) * height * midBytes, "separable intermediate");
        DevicePlane out{planeBuffer(planeBytes(in.type), "filtered plane"), in.type};

        cl::Kernel& rows = kernel("filter_separable.cl", "filter_rows", defines);
        setArg(rows, 0, in.buffer);
        setArg(rows, 1, mid);
        setArg(rows, 2, static_cast<cl_int>(width));
        setArg(rows, 3, static_cast<cl_int>(height));
        setOutside(rows, 4, in.type);
        setArg(rows, 5, rowBuf);
        ctx.launch(rows, global2d(), cl::NDRange(tx, ty));

        cl::Kernel& cols = kernel("filter_separable.cl", "filter_cols", defines);
        setArg(cols, 0, mid);
        setArg(cols, 1, out.buffer);
        setArg(cols, 2, static_cast<cl_int>(width));
        setArg(cols, 3, static_cast<cl_int>(height));
        if (midT == "int") setArg(cols, 4, static_cast<cl_int>(outsideRow));
        else if (midT == "long") setArg(cols, 4, static_cast<cl_long>(outsideRow));
        else if (midT == "double") setArg(cols, 4, static_cast<cl_double>(outsideRow));
        else setArg(cols, 4, static_cast<cl_float>(outsideRow));
        setArg(cols, 5, colBuf);
        setArg(cols, 6, static_cast<cl_long>(divisor));
        setArg(cols, 7, static_cast<cl_int>(divisionShift(divisor)));
        ctx.launch(cols, global2d(), cl::NDRange(tx, ty));
        return out;
    }

    void grey(const Operation& op) {
        const io::PixelType t = planes[0].type;
        std::string defines = std::string("-D SRC_T=") + clType(t) + " -D INTEGER=" + (t != io::PixelType::F32 ? "1" : "0") +
                              " -D GREY_FLOOR=" + (op.greyFloor ? "1" : "0");
        cl::Kernel& k = kernel("filter_pointwise.cl", "filter_grey", defines);
        DevicePlane out{planeBuffer(planeBytes(t), "grey plane"), t};
        const int n = width * height;
        setArg(k, 0, planes[0].buffer);
        setArg(k, 1, planes[1].buffer);
        setArg(k, 2, planes[2].buffer);
        setArg(k, 3, out.buffer);
        setArg(k, 4, static_cast<cl_int>(n));
        ctx.launch(k, cl::NDRange(roundUp(n, 256)), cl::NDRange(256));
        std::vector<DevicePlane> next{out};
        if (planes.size() == 4) next.push_back(planes[3]);
        planes = next;
        colourPlanes = 1;
    }

    DevicePlane toFloat(const DevicePlane& in) {
        if (in.type == io::PixelType::F32) return in;
        cl::Kernel& k = kernel("filter_pointwise.cl", "filter_to_float", std::string("-D SRC_T=") + clType(in.type) + " -D INTEGER=1 -D GREY_FLOOR=0");
        DevicePlane out{planeBuffer(planeBytes(io::PixelType::F32), "float plane"), io::PixelType::F32};
        const int n = width * height;
        setArg(k, 0, in.buffer);
        setArg(k, 1, out.buffer);
        setArg(k, 2, static_cast<cl_int>(n));
        ctx.launch(k, cl::NDRange(roundUp(n, 256)), cl::NDRange(256));
        return out;
    }

    cl::Buffer planeBuffer(std::size_t bytes, const std::string& what) {
        if (planePoolTaken == planePool.size()) planePool.emplace_back();
        return planePool[planePoolTaken++].reserve(ctx, bytes, what);
    }

    void enqueue() {
        planePoolTaken = 0;
        planes = source;
        colourPlanes = sourceColourPlanes;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Operation& op = ops[i];
            if (op.kind == Operation::Kind::Grey) {
                grey(op);
                continue;
            }
            const io::PixelType outT = outputType(op, planes[0].type);
            for (int c = 0; c < static_cast<int>(planes.size()); ++c) {
                DevicePlane& p = planes[c];
                if (op.kind == Operation::Kind::ToFloat || (c >= colourPlanes && outT != p.type)) {
                    p = toFloat(p);  // alpha follows the image to float
                    continue;
                }
                if (c >= colourPlanes) continue;
                const bool sep = op.kind == Operation::Kind::Linear && op.combine == Combine::Single && !op.rowFactor.empty();
                p = sep ? separable(p, op, i) : window(p, op, i);
            }
        }
    }

    void upload(const io::Image& img) {
        validate(img, ops);
        width = img.width;
        height = img.height;
        sourceColourPlanes = colourPlanes = img.channels == 2 || img.channels == 4 ? img.channels - 1 : img.channels;
        const std::size_t bps = bytesPerSample(img.type), n = img.pixelCount();
        ctx.checkFits(img.byteCount() * 4 + n * 8, "filtering the image (its planes and their working copies)");
        planes.clear();
        static const unsigned char zeros[kStripSlack] = {};
        unsigned char* interleaved = const_cast<unsigned char*>(img.data.data());
        std::vector<unsigned char> plane(img.channels > 1 && !staging ? n * bps : 0);
        for (int c = 0; c < img.channels; ++c) {
            if (sourcePool.size() <= static_cast<std::size_t>(c)) sourcePool.emplace_back();
            cl::Buffer b = sourcePool[c].reserve(ctx, n * bps + kStripSlack, "image plane");
            if (staging) {
                // Each chunk of the plane is gathered (a grey image: copied) into pinned memory while
                // the chunk before it crosses the bus.
                staging->upload<unsigned char>(b, n * bps, "upload image plane", [&](unsigned char* chunk, std::size_t first, std::size_t bytes) {
                    copyChannel(interleaved + first * img.channels, chunk, bytes / bps, img.channels, c, bps, true);
                });
            } else if (img.channels == 1) {
                ctx.write(b, img.data.data(), n * bps, "upload image plane");  // a grey image is its own plane
            } else {
                copyChannel(interleaved, plane.data(), n, img.channels, c, bps, true);
                ctx.write(b, plane.data(), n * bps, "upload image plane");
            }
            ctx.write(b, zeros, kStripSlack, "upload image plane", n * bps);  // the slack the register path reads
            planes.push_back({b, img.type});
        }
        source = planes;
    }

    void download(io::Image& img) {
        const int channels = static_cast<int>(planes.size());
        if (img.width != width || img.height != height || img.channels != channels || img.type != planes[0].type ||
            img.data.size() != img.byteCount())
            img = io::makeImage(width, height, channels, planes[0].type);
        const std::size_t bps = bytesPerSample(img.type), n = img.pixelCount();
        std::vector<unsigned char> plane(img.channels > 1 && !staging ? n * bps : 0);
        for (int c = 0; c < img.channels; ++c) {
            if (staging) {
                staging->download<unsigned char>(planes[c].buffer, n * bps, "download image plane", [&](const unsigned char* chunk, std::size_t first, std::size_t bytes) {
                    copyChannel(img.data.data() + first * img.channels, const_cast<unsigned char*>(chunk), bytes / bps, img.channels, c, bps, false);
                });
            } else if (img.channels == 1) {
                ctx.read(planes[0].buffer, img.data.data(), n * bps, "download image plane");
            } else {
                ctx.read(planes[c].buffer, plane.data(), n * bps, "download image plane");
                copyChannel(img.data.data(), plane.data(), n, img.channels, c, bps, false);
            }
        }
    }
};

Pipeline::Pipeline(Context& ctx, std::vector<Operation> ops, Options options)
    : impl_(std::make_unique<Impl>(ctx, std::move(ops), options)) {}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;

void Pipeline::upload(const io::Image& in) { impl_->upload(in); }
void Pipeline::enqueue() { impl_->enqueue(); }
io::Image Pipeline::download() {
    io::Image out;
    impl_->download(out);
    return out;
}
void Pipeline::download(io::Image& out) { impl_->download(out); }

io::Image Pipeline::run(const io::Image& in) {
    io::Image out;
    run(in, out);
    return out;
}
void Pipeline::run(const io::Image& in, io::Image& out) {
    impl_->upload(in);
    impl_->enqueue();
    impl_->download(out);
}

}  // namespace portacl::filter
