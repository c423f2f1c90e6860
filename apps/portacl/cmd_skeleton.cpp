// portacl skeleton: the Lee-Kashyap-Chu skeleton of a binary volume (identical to scikit-image's
// skeletonize_3d), the 8-subfield parallel thinning's or the P-simple thinning's, written as a TIFF stack, NIfTI, HDF5 or .npy
// with the input's voxel size; a folder or list of volumes is a batch over the devices (and ranks).
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>

#include "batch.hpp"
#include "command.hpp"
#include "portacl/io/binary_volume.hpp"
#include "portacl/io/image.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/skeleton.hpp"
#include "portacl/skeleton_graph.hpp"
#include "volume_batch.hpp"
#include "volume_input.hpp"

namespace portacl::cli {
namespace {

// The skeleton by `method` (lee, parallel or psimple): on the device, or without one the serial reference.
io::BinaryVolume thinBy(const std::string& method, Context* ctx, const io::BinaryVolume& v, skeleton::Stats* st) {
    if (method == "lee") return ctx ? skeleton::thin(*ctx, v, st) : skeleton::thinReference(v, st);
    if (method == "parallel") return ctx ? skeleton::thinSubfields(*ctx, v, st) : skeleton::thinSubfieldsReference(v, st);
    return ctx ? skeleton::thinPSimple(*ctx, v, st) : skeleton::thinPSimpleReference(v, st);
}

// A folder or list of volumes, each thinned on whichever device of the set (or rank of mpirun) is
// free and written to OUTDIR/<name>.<format>; one line per volume on standard output, in input order.
int runSkeletonBatch(const VolumeInputOptions& in, const po::variables_map& vm, const std::string& outDir, const std::string& format,
                     const std::string& method, bool serial, const CommonOptions& common, const BatchCliOptions& batch) {
    VolumeBatch vb(in, vm, outDir, format);
    const std::vector<std::string>& inputs = vb.inputs;
    const std::vector<std::string>& outputs = vb.outputs;
    for (const auto& out : outputs) io::checkBinaryVolumeOutputName(out, "--format");
    FileBatch fb = vb.fileBatch(serial);
    fb.compute = [&](Context* ctx, std::size_t i) -> std::function<std::string()> {
        const io::BinaryVolume v = vb.read(i);
        io::checkBinaryVolumeFits(outputs[i], v.nz, v.ny, v.nx, "-o");
        skeleton::validate(v);
        skeleton::Stats st;
        auto s = std::make_shared<io::BinaryVolume>(thinBy(method, ctx, v, &st));
        std::ostringstream line;
        line << inputs[i] << ": " << v.nz << "x" << v.ny << "x" << v.nx << ", " << v.count() << " voxels, skeleton " << s->count()
             << " voxels after " << st.iterations << " passes -> " << outputs[i] << "\n";
        return [&, i, s, text = line.str()] {
            const auto turn = hdf5TurnFor(outputs[i]);
            io::writeBinaryVolume(outputs[i], *s, "skeleton");
            return text;
        };
    };
    VolumeBatch::run(fb, common, batch);
    return 0;
}

int runSkeleton(const std::vector<std::string>& args) {
    po::options_description desc("portacl skeleton options");
    CommonOptions common;
    common.add(desc, "", false);
    BatchCliOptions batch;
    batch.add(desc);
    VolumeInputOptions in;
    in.add(desc);
    std::string output, branches, mip, method = "lee", format = "tif";
    bool serial = false;
    desc.add_options()("output,o", po::value(&output), "the skeleton, with the input's voxel size: .tif/.tiff (uint8 0/255 pages, ImageJ spacing), .nii/.nii.gz (NIfTI-1 uint8 0/1), .h5/.hdf5 (dataset 'skeleton', uint8 0/1) or .npy (uint8 0/1)")(
        "method", po::value(&method), "lee (default): Lee, Kashyap and Chu's thinning, voxel for voxel scikit-image's skeletonize_3d; parallel: a directional 8-subfield thinning (fully parallel, topology-preserving, its own skeleton); psimple: a directional thinning removing each direction's P-simple border voxels at once (fully parallel, topology-preserving, its own skeleton)")(
        "branches", po::value(&branches), "the skeleton's branches as CSV (type, end nodes, voxels, length), as skan summarises them")(
        "mip", po::value(&mip), "a picture (.png, .tif, ...) of the object (grey) and its skeleton (red) projected along z, y and x")(
        "serial", po::bool_switch(&serial), "use the serial C++ reference instead of the device")(
        "format", po::value(&format), "a batch's outputs: tif (default), nii, nii.gz, h5 or npy");
    po::positional_options_description pos;
    pos.add("input", -1);
    po::variables_map vm;
    const std::string usage = "usage: portacl skeleton VOLUME -o SKELETON.tif|.nii|.nii.gz|.h5|.npy [--threshold T | --label L]\n"
                              "                        [--method lee|parallel|psimple] [--branches B.csv] [--mip M.png]\n"
                              "       portacl skeleton V1 V2 ... | INDIR -o OUTDIR [--format tif|nii|nii.gz|h5|npy] [--device all]   (a batch over the devices)";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;
    in.resolve();
    if (method != "lee" && method != "parallel" && method != "psimple")
        throw Error("--method takes lee, parallel or psimple, not '" + method + "'");
    const bool lee = method == "lee";
    if (output.empty()) throw Error("name the skeleton's file with -o");
    if (in.isBatch()) {
        if (!branches.empty() || !mip.empty()) throw Error("--branches and --mip are for one volume; a batch writes the skeletons alone");
        return runSkeletonBatch(in, vm, output, format, method, serial, common, batch);
    }
    if (vm.count("format")) throw Error("--format names a batch's outputs; for one volume, -o's extension gives the format");
    if (ranks()) throw Error("one volume runs in one process; give a folder or several volumes to spread over the ranks of mpirun");
    io::checkBinaryVolumeOutputName(output, "-o");
    checkOutputPath(output, {in.path}, "-o");
    if (!branches.empty()) {
        checkOutputExtension(branches, {"csv"}, "--branches");
        checkOutputPath(branches, {in.path}, "--branches");
    }
    if (!mip.empty()) {
        checkOutputExtension(mip, io::writableImageExtensions(), "--mip");
        checkOutputPath(mip, {in.path}, "--mip");
    }
    checkDistinctOutputs({{"-o", output}, {"--branches", branches}, {"--mip", mip}});
    const io::BinaryVolume v = in.read(vm, false);
    io::checkBinaryVolumeFits(output, v.nz, v.ny, v.nx, "-o");
    skeleton::validate(v);

    const auto t0 = std::chrono::steady_clock::now();
    skeleton::Stats st;
    io::BinaryVolume s;
    std::string where = "serial reference";
    double deviceSeconds = 0;  // first transfer's start to the last command's end
    if (serial) {
        s = thinBy(method, nullptr, v, &st);
    } else {
        Context ctx(selectDevice(common.device), common.contextOptions());
        where = ctx.device().label();
        ctx.beginTiming();
        s = thinBy(method, &ctx, v, &st);
        deviceSeconds = ctx.endTiming();
        printProfile(ctx, common);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    io::writeBinaryVolume(output, s, "skeleton");
    const skeleton::Graph graph = skeleton::skeletonGraph(s);
    if (!branches.empty()) skeleton::writeBranchesCsv(branches, graph);
    if (!mip.empty()) io::writeProjectionPicture(mip, v, s);
    std::cout << "skeleton of " << v.nz << "x" << v.ny << "x" << v.nx << " (" << in.describe(vm) << ", " << v.count()
              << " voxels): " << s.count() << " voxels after " << st.iterations << " passes (" << st.candidates << (lee ? " candidates" : " voxels removed");
    if (!serial && lee) std::cout << ", " << st.rounds << " recheck rounds";
    std::cout << ") in " << seconds << " s";
    if (!serial) std::cout << " (" << deviceSeconds << " s of device time)";
    std::cout << " on " << where << "\n";
    std::uint64_t types[4] = {};
    for (const auto& b : graph.branches) ++types[b.type];
    std::cout << "graph: " << graph.endPoints << " end points, " << graph.junctions() << " junctions (" << graph.junctionVoxels
              << " junction voxels), " << graph.branches.size() << " branches (end-end " << types[0] << ", junction-end "
              << types[1] << ", junction-junction " << types[2] << ", loops " << types[3] << "), total length "
              << graph.totalLength();
    const std::string voxel = VolumeInputOptions::voxelSize(s);
    std::cout << (voxel.empty() ? " voxels" : " (" + voxel + ")") << "\n";
    return 0;
}

}  // namespace

PORTACL_OVER_RANKS("skeleton", skeleton);
PORTACL_COMMAND("skeleton", "3-D skeleton of a binary volume (Lee-Kashyap-Chu thinning, as scikit-image)", runSkeleton);

}  // namespace portacl::cli
