// portacl mesh-intersect: the pairs of intersecting triangles of a mesh (adjacency by vertex index,
// optionally after welding), written as sorted "i j" lines, with their count and the faces involved;
// a JSON summary, a coloured PLY copy and a picture on request.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>

#include "batch.hpp"
#include "command.hpp"
#include "json_writer.hpp"
#include "portacl/mesh/frame_sequence.hpp"
#include "portacl/mesh/mesh_output.hpp"
#include "portacl/mesh/point_in_mesh.hpp"
#include "portacl/mesh/self_intersection.hpp"
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::cli {
namespace {

// A batch member's animation (Context::state): the hierarchy built on frame 0 of the batch's mesh,
// refitted to each frame the member is handed.
struct MemberSequence {
    std::unique_ptr<mesh::FrameSequence> sequence;
    std::uint64_t batch = 0;  // the batch it was made for
};
std::atomic<std::uint64_t> animationBatches{0};

mesh::Method parseMethod(const std::string& s) {
    for (mesh::Method m : {mesh::Method::Auto, mesh::Method::Grid, mesh::Method::Hierarchy, mesh::Method::AtomicList, mesh::Method::Matrix})
        if (s == mesh::methodName(m)) return m;
    throw Error("--method takes auto, grid, hierarchy, atomic-list or matrix, not '" + s + "'");
}

mesh::Touching parseTouching(const std::string& s) {
    for (mesh::Touching t : {mesh::Touching::Count, mesh::Touching::Ignore})
        if (s == mesh::touchingName(t)) return t;
    throw Error("--touching takes count or ignore, not '" + s + "'");
}

void writeJson(std::ostream& os, const mesh::TriangleMesh& m, const mesh::Result& r, const std::vector<std::uint32_t>& faces,
               const std::string& where, const std::string& method, const std::string& precision, mesh::Touching touching, double merge,
               std::size_t merged, const mesh::SideResult& side) {
    JsonWriter w(os);
    w.beginObject();
    w.field("input", m.path);
    w.field("polygons", std::uint64_t(m.polygons));
    w.field("triangles", std::uint64_t(m.triangleCount()));
    w.field("vertices", std::uint64_t(m.vertexCount()));
    if (merge >= 0) {
        w.field("merge_vertices", merge);
        w.field("vertices_merged", std::uint64_t(merged));
    }
    w.field("device", where);
    w.field("method", method);
    w.field("precision", precision);
    w.field("touching", std::string(mesh::touchingName(touching)));
    w.field("pairs", std::uint64_t(r.pairs.size()));
    w.field("faces_involved", std::uint64_t(faces.size()));
    w.field("candidates", std::uint64_t(r.candidates));
    w.field("undecided_by_float", std::uint64_t(r.report.undecided));
    // Where those were decided exactly (double: on the device; host: the serial exact test), how long the
    // host took, and how many float's own guess had wrong.
    w.field("undecided_decided_in", std::string(phase2ArithmeticName(r.report.phase2)));
    w.field("host_seconds", r.report.hostSeconds);
    w.field("float_guesses_wrong", std::uint64_t(r.floatGuessesWrong));
    w.key("degenerate");
    w.beginArray();
    for (auto t : r.degenerate) w.value(std::uint64_t(t));
    w.endArray();
    w.key("faces");
    w.beginArray();
    for (auto t : faces) w.value(std::uint64_t(t));
    w.endArray();
    w.key("pair_list");
    w.beginArray();
    for (const auto& p : r.pairs) {
        w.beginArray();
        w.value(std::uint64_t(p.first));
        w.value(std::uint64_t(p.second));
        w.endArray();
    }
    w.endArray();
    if (!side.sides.empty()) {
        std::size_t in = 0, on = 0;
        for (mesh::Side x : side.sides) in += x == mesh::Side::Inside, on += x == mesh::Side::Boundary;
        w.key("points");
        w.beginObject();
        w.field("count", std::uint64_t(side.sides.size()));
        w.field("inside", std::uint64_t(in));
        w.field("boundary", std::uint64_t(on));
        w.field("outside", std::uint64_t(side.sides.size() - in - on));
        w.field("undecided_by_float", std::uint64_t(side.undecided));
        w.field("finished_on_host", std::uint64_t(side.hostPoints));
        w.field("float_guesses_wrong", std::uint64_t(side.floatGuessesWrong));
        w.endObject();
    }
    w.endObject();
    os << "\n";
}

int runMeshIntersect(const std::vector<std::string>& args) {
    po::options_description desc("portacl mesh-intersect options");
    CommonOptions common;
    common.precision = "mixed";
    common.add(desc);
    BatchCliOptions batch;
    batch.add(desc);
    std::string input, output, json, ply, png, inside, sides, frames, method = "auto", touchingArg = "count";
    double merge = -1;
    bool serial = false, cgal = false;
    desc.add_options()("input", po::value(&input), "the mesh (.obj, .off, .ply, .stl; ASCII or binary)")(
        "output,o", po::value(&output), "the pairs: one 'i j' line per intersecting pair of triangles (0-based, i < j, sorted)")(
        "merge-vertices", po::value(&merge), "weld vertices at most EPS apart before deciding adjacency (0: the same position)")(
        "touching", po::value(&touchingArg), "count (default: the closed triangles meet, as CGAL) or ignore (only triangles whose interiors meet)")(
        "json", po::value(&json), "a JSON summary: counts, faces involved, degenerate triangles, the pairs")(
        "ply", po::value(&ply), "a copy of the mesh with the faces involved in red (binary PLY)")(
        "png", po::value(&png), "a picture: the mesh from the front, side and top, the faces involved in red (seen through the mesh where hidden)")(
        "inside", po::value(&inside), "also classify these points (a text file, x y z per line) against the mesh, which must be closed")(
        "sides", po::value(&sides), "with --inside: one word per point, inside, outside or boundary")(
        "frames", po::value(&frames), "an animation: the mesh files of this folder (sorted by name) move MESH's vertices; -o then lists 'frame i j', frame 0 being MESH; the frames are a batch over the devices --device names")(
        "method", po::value(&method), "auto (default: the device profile's choice of the next two), grid (a uniform grid), hierarchy (a tree built on the device; --frames always uses it), atomic-list or matrix (the lecture's kernels)")(
        "serial", po::bool_switch(&serial), "use the serial C++ reference instead of the device")(
        "cgal", po::bool_switch(&cgal), "use CGAL's box intersection and exact predicates instead of the device");
    po::positional_options_description pos;
    pos.add("input", 1);
    po::variables_map vm;
    const std::string usage =
        "usage: portacl mesh-intersect MESH -o PAIRS [--merge-vertices EPS] [--touching count|ignore] [--json R.json] [--ply COLOURED.ply]\n"
        "                              [--png PICTURE.png]\n"
        "                              [--inside POINTS [--sides SIDES.txt]] [--frames FOLDER] [--method auto|grid|hierarchy|atomic-list|matrix]\n"
        "                              [--precision float|double|mixed] [--serial | --cgal]";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;
    if (input.empty()) throw Error("mesh-intersect needs a mesh file (" + usage.substr(7, usage.find('\n') - 7) + ")");
    if (output.empty()) throw Error("mesh-intersect needs -o PAIRS, the file the pairs are written to");
    if (serial && cgal) throw Error("--serial and --cgal each choose the computation; give one of them");
    const mesh::Method m = parseMethod(method);
    const mesh::Touching touching = parseTouching(touchingArg);
    const Precision precision = common.parsedPrecision();
    checkOutputPath(output, {input}, "-o");
    if (!json.empty()) {
        checkOutputExtension(json, {"json"}, "--json");
        checkOutputPath(json, {input}, "--json");
    }
    if (!ply.empty()) {
        checkOutputExtension(ply, {"ply"}, "--ply");
        checkOutputPath(ply, {input}, "--ply");
    }
    if (!png.empty()) {
        checkOutputExtension(png, {"png"}, "--png");
        checkOutputPath(png, {input}, "--png");
    }
    if (!sides.empty() && inside.empty()) throw Error("--sides needs --inside POINTS, the points whose sides it lists");
    if (!sides.empty()) checkOutputPath(sides, {input, inside}, "--sides");
    checkDistinctOutputs({{"-o", output}, {"--json", json}, {"--ply", ply}, {"--png", png}, {"--sides", sides}});
    if (vm.count("merge-vertices") && !(merge >= 0)) throw Error("--merge-vertices takes a distance of 0 or more");

    // An animation refits the hierarchy built on its first frame.
    if (!frames.empty() && (serial || cgal || (m != mesh::Method::Auto && m != mesh::Method::Hierarchy)))
        throw Error("--frames runs on the device hierarchy; it does not go with --serial, --cgal or another --method");
    mesh::TriangleMesh mesh = mesh::readMesh(input);
    std::vector<std::vector<float>> framePoints;
    std::vector<std::string> frameNames;
    if (!frames.empty()) framePoints = mesh::readFrames(frames, mesh, &frameNames);  // every frame checked before the work
    std::size_t merged = 0;
    if (merge >= 0) merged = mesh::mergeVertices(mesh, merge);
    std::vector<float> queries;
    if (!inside.empty()) {
        queries = mesh::readPoints(inside);
        mesh::requireClosed(mesh);
    }
    mesh::SideResult side;
    std::vector<std::vector<mesh::FacePair>> framePairs;  // frames 1, 2, ... (frame 0 is r)
    double frameWall = 0;
    mesh::Result r;
    std::string where = "serial reference", label = mesh::methodName(m), precisionLabel = precisionName(precision);
    if (serial) {
        r = mesh::selfIntersectionsReference(mesh, touching);
        if (!queries.empty()) side = mesh::classifyPointsReference(mesh, queries);
        label = "sweep", precisionLabel = "exact";
    } else if (cgal) {
        r = mesh::selfIntersectionsCgal(mesh, false, touching);
        if (!queries.empty()) side = mesh::classifyPointsCgal(mesh, queries);
        where = "CGAL", label = "box_self_intersection_d", precisionLabel = "exact";
    } else if (!framePoints.empty()) {
        // An animation's frames (MESH as frame 0) are a batch over the devices: each member refits its
        // own hierarchy, built on frame 0, to the frames it is handed (always moving to the frame
        // first), so a frame's pairs and counts are the same whichever member computes it.
        const std::unique_ptr<DeviceSet> devices = openDeviceSet(common, batch, precision, true);
        where = devices->size() == 1 ? devices->context(0).device().label() : std::to_string(devices->size()) + " devices";
        label = mesh::methodName(mesh::Method::Hierarchy);
        const std::uint64_t batchId = ++animationBatches;
        BatchOptions bo;
        bo.itemName = [&](std::size_t f) { return "frame " + std::to_string(f) + " ('" + (f ? frameNames[f - 1] : input) + "')"; };
        BatchReport report;
        std::vector<mesh::Result> results = devices->map<mesh::Result>(framePoints.size() + 1, [&](Context& ctx, std::size_t f) {
            MemberSequence& kept = ctx.state<MemberSequence>();
            if (!kept.sequence || kept.batch != batchId) {
                kept.sequence = std::make_unique<mesh::FrameSequence>(ctx, mesh, precision, touching);
                kept.batch = batchId;
            }
            kept.sequence->moveTo(f == 0 ? mesh.points : framePoints[f - 1]);
            return kept.sequence->pairs();
        }, &report, bo);
        frameWall = report.seconds;
        r = std::move(results[0]);
        for (std::size_t f = 1; f < results.size(); ++f) framePairs.push_back(std::move(results[f].pairs));
        if (!queries.empty()) side = mesh::classifyPoints(devices->context(0), mesh, queries, precision);
        printBatchReport(report, *devices);
        printProfile(*devices, common);
    } else {
        Context ctx(selectDevice(common.device), common.contextOptions());
        where = ctx.device().label();
        r = mesh::selfIntersections(ctx, mesh, {m, precision, touching});
        label = mesh::methodName(r.method);
        if (!queries.empty()) side = mesh::classifyPoints(ctx, mesh, queries, precision);
        printProfile(ctx, common);
    }
    const auto faces = mesh::facesInvolved(r.pairs);
    writeFileAtomically(output, [&](std::ostream& os) {
        if (framePoints.empty()) {
            for (const auto& p : r.pairs) os << p.first << ' ' << p.second << '\n';
            return;
        }
        for (const auto& p : r.pairs) os << "0 " << p.first << ' ' << p.second << '\n';
        for (std::size_t f = 0; f < framePairs.size(); ++f)
            for (const auto& p : framePairs[f]) os << f + 1 << ' ' << p.first << ' ' << p.second << '\n';
    });
    if (!json.empty())
        writeFileAtomically(json, [&](std::ostream& os) { writeJson(os, mesh, r, faces, where, label, precisionLabel, touching, merge, merged, side); });
    if (!ply.empty()) mesh::writeColouredPly(ply, mesh, faces, r.degenerate);
    if (!png.empty()) io::writeImage(png, mesh::meshPicture(mesh, faces, r.degenerate));
    if (!sides.empty())
        writeFileAtomically(sides, [&](std::ostream& os) {
            for (mesh::Side s : side.sides) os << mesh::sideName(s) << '\n';
        });

    std::cout << input << ": " << mesh.polygons << " faces fanned into " << mesh.triangleCount() << " triangles, "
              << mesh.vertexCount() << " vertices";
    if (merge >= 0) std::cout << " (" << merged << " merged into others at distance " << merge << ")";
    std::cout << "\n" << r.pairs.size() << " intersecting pairs" << (touching == mesh::Touching::Ignore ? " (touching pairs ignored)" : "") << ", "
              << faces.size() << " faces involved";
    if (!r.degenerate.empty()) std::cout << ", " << r.degenerate.size() << " degenerate triangles (in no pair)";
    std::cout << "\n" << r.candidates << " candidate pairs (overlapping boxes) on " << where << ", " << label << ", " << precisionLabel;
    if (!serial && !cgal) {
        if (precision != Precision::Double) {
            std::cout << ": " << r.report.undecided << " undecided by float";
            if (r.report.phase2 == Phase2Arithmetic::Host) {
                std::cout << ", decided exactly on the host";
                if (r.report.undecided)
                    std::cout << " (" << std::fixed << std::setprecision(3) << r.report.hostSeconds * 1e3 << " ms; float's guess wrong for "
                              << r.floatGuessesWrong << ")";
            } else {
                std::cout << ", decided in " << phase2ArithmeticName(r.report.phase2) << " (float's guess wrong for " << r.floatGuessesWrong << ")";
            }
        }
        if (r.deviceSeconds > 0) std::cout << "; device time " << std::fixed << std::setprecision(3) << r.deviceSeconds * 1e3 << " ms";
        else std::cout << "; the driver reports no device time";
    }
    std::cout << "\n";
    if (!framePairs.empty()) {
        std::cout << "frames: 0 (" << input << ") " << r.pairs.size() << " pairs";
        for (std::size_t f = 0; f < framePairs.size(); ++f) std::cout << ", " << f + 1 << " " << framePairs[f].size();
        std::cout << "\n" << framePairs.size() + 1 << " frames in " << std::fixed << std::setprecision(3) << frameWall << " s ("
                  << std::setprecision(1) << double(framePairs.size() + 1) / frameWall
                  << " frames per second, the hierarchy built once per device and refitted per frame; reading the files not counted)\n";
    }
    if (!queries.empty()) {
        std::size_t in = 0, on = 0;
        for (mesh::Side s : side.sides) in += s == mesh::Side::Inside, on += s == mesh::Side::Boundary;
        std::cout << side.sides.size() << " points: " << in << " inside, " << on << " on the boundary, " << side.sides.size() - in - on
                  << " outside";
        if (!serial && !cgal)
            std::cout << " (" << side.undecided << " undecided by float, " << side.hostPoints << " finished exactly on the host"
                      << (side.floatGuessesWrong ? ", float's answer wrong for " + std::to_string(side.floatGuessesWrong) : std::string()) << ")";
        std::cout << "\n";
    }
    return 0;
}

}  // namespace

PORTACL_COMMAND("mesh-intersect", "the intersecting triangle pairs of a mesh (exact), on the device", runMeshIntersect);

}  // namespace portacl::cli
