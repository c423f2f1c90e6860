// portacl voronoi: the vertices (and optionally edges) of the additively weighted Voronoi diagram of
// a structure's atoms, in Voronota's vertex format or in HDF5; multi-model input, or a topology and its
// trajectories (DCD, XTC, TRR), runs every model or step as a frame.
#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <fstream>
#include <iostream>
#include <iterator>
#include <unistd.h>

#include "batch.hpp"
#include "command.hpp"
#include "write_behind.hpp"
#include "portacl/cluster/distributed_batch.hpp"
#include "portacl/io/molecule.hpp"
#include "portacl/io/trajectory.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/voronoi.hpp"

namespace portacl::cli {
namespace {

// Standard input as a file that the readers can sniff and parse (Voronota's pipes:
// `... | portacl voronoi - -o - | ...`); removed when the command ends.
struct StdinCopy {
    std::string path;
    StdinCopy() {
        char name[] = "/tmp/portacl-voronoi-stdin-XXXXXX";
        const int fd = ::mkstemp(name);
        if (fd < 0) throw Error("cannot make a temporary file to hold standard input");
        ::close(fd);
        path = name;
        std::ofstream out(path, std::ios::binary);
        out << std::cin.rdbuf();
        out.close();
        if (!out) {
            std::remove(path.c_str());
            throw Error("cannot copy standard input to a temporary file");
        }
    }
    ~StdinCopy() { std::remove(path.c_str()); }
};

// Frames a device traces in one call: enough to fill a GPU's waves, few enough that a member's
// formatting and writing of one chunk overlaps its device's next.
constexpr std::size_t kFramesPerCall = 256;

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// For frame f of n: "out.txt" stays as is for one frame, else "out.txt" -> "out.<f>.txt"; standard
// output ("-") takes every frame in turn.
std::string framePath(const std::string& path, std::size_t f, std::size_t n) {
    if (n == 1 || path.empty() || path == "-") return path;
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    const std::string tag = "." + std::to_string(f + 1);
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + tag;
    return path.substr(0, dot) + tag + path.substr(dot);
}

// A diagram as bytes and back, for the trip from the rank that computed it to rank 0 (the ranks of
// one job run the same build on the same architecture).
template <typename T>
void put(std::string& out, const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
void get(const std::string& in, std::size_t& at, T& v) {
    if (at + sizeof v > in.size()) throw Error("a diagram sent between ranks arrived truncated");
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
}
template <typename T>
void putVector(std::string& out, const std::vector<T>& v) {
    put(out, static_cast<std::uint64_t>(v.size()));
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
template <typename T>
void getVector(const std::string& in, std::size_t& at, std::vector<T>& v) {
    std::uint64_t n = 0;
    get(in, at, n);
    if (n > (in.size() - at) / sizeof(T)) throw Error("a diagram sent between ranks arrived truncated");
    v.resize(static_cast<std::size_t>(n));
    std::memcpy(v.data(), in.data() + at, v.size() * sizeof(T));
    at += v.size() * sizeof(T);
}

std::string encodeDiagram(const voronoi::Diagram& d) {
    std::string out;
    putVector(out, d.vertices);
    putVector(out, d.edges);
    put(out, d.components), put(out, d.hiddenBalls), put(out, d.solvedEdges), put(out, d.phase2Edges);
    put(out, d.phase2), put(out, d.redoneOnHost), put(out, d.unresolvedEdges), put(out, d.waves);
    put(out, d.closedEdges), put(out, d.freeEdges), put(out, d.passes), put(out, d.passFaces);
    put(out, d.passTriples), put(out, d.passFlagged), put(out, d.passSeeds), put(out, d.seconds);
    return out;
}

voronoi::Diagram decodeDiagram(const std::string& in) {
    voronoi::Diagram d;
    std::size_t at = 0;
    getVector(in, at, d.vertices);
    getVector(in, at, d.edges);
    get(in, at, d.components), get(in, at, d.hiddenBalls), get(in, at, d.solvedEdges), get(in, at, d.phase2Edges);
    get(in, at, d.phase2), get(in, at, d.redoneOnHost), get(in, at, d.unresolvedEdges), get(in, at, d.waves);
    get(in, at, d.closedEdges), get(in, at, d.freeEdges), get(in, at, d.passes), get(in, at, d.passFaces);
    get(in, at, d.passTriples), get(in, at, d.passFlagged), get(in, at, d.passSeeds), get(in, at, d.seconds);
    return d;
}

// True for --output-format hdf5, or auto with an output ending in .h5/.hdf5 (else text).
bool wantsHdf5(const std::string& format, const std::string& output) {
    if (format == "hdf5") return true;
    if (format == "text") return false;
    if (format != "auto") throw Error("unknown --output-format '" + format + "' (auto, text, hdf5)");
    std::string lower = output;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    auto endsWith = [&](const std::string& e) { return lower.size() >= e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0; };
    return endsWith(".h5") || endsWith(".hdf5");
}

// The radius table as the HDF5 file records it: its name and its text.
void describeRadii(const std::string& radiiFile, voronoi::Hdf5Info& info) {
    if (radiiFile.empty()) {
        info.radii = "Voronota's built-in table (atom name starting with C 1.70, N 1.55, O 1.52, S 1.80, P 1.80, H 1.20; other 1.70)";
        return;
    }
    info.radii = radiiFile;
    std::ifstream in(radiiFile, std::ios::binary);
    info.radiiTable.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int runVoronoi(const std::vector<std::string>& args) {
    po::options_description desc("portacl voronoi options");
    CommonOptions common;
    common.precision = "mixed";
    std::vector<std::string> inputFiles;
    std::string input, output, edges, radii, format = "auto", outputFormat = "auto", summary;
    int repeats = 1;
    bool hydrogens = false, hetero = false, waters = false, allAltlocs = false, firstModel = false, serial = false;
    desc.add_options()("input", po::value(&inputFiles)->composing(), "structure (.pdb, .cif) or ball list (.xyzr: x y z r per line); - reads standard input; several files: their models one after another, as frames; a structure then trajectories (.dcd, .xtc, .trr): the structure's first model gives the atoms and radii, each step of the trajectories a frame")(
        "output,o", po::value(&output), "vertices file (Voronota's 'q1 q2 q3 q4 x y z r'), or with .h5/.hdf5 an HDF5 file of vertices, edges, balls and summary; frames of a multi-model input get .1, .2, ... before the extension; - writes the text to standard output")(
        "output-format", po::value(&outputFormat), "auto (HDF5 for .h5/.hdf5, else text), text, hdf5")(
        "edges", po::value(&edges), "also write the edges: 'v0 v1 g1 g2 g3 min_radius' (v1 = -1: unbounded; -2 -2: closed, no vertex; -1 -1: open, no vertex)")(
        "radii", po::value(&radii), "radius table in Voronota's format ('resName atomName radius', * wildcards)")(
        "format", po::value(&format), "input format: auto (by extension, else by content), pdb, cif, xyzr")(
        "hydrogens", po::bool_switch(&hydrogens), "keep hydrogen atoms")(
        "hetero", po::bool_switch(&hetero), "keep HETATM records (Voronota leaves them out by default)")(
        "waters", po::bool_switch(&waters), "keep waters (with --hetero)")(
        "all-altlocs", po::bool_switch(&allAltlocs), "keep every alternate location (default, as Voronota: atoms with no alternate location, or with A or 1)")(
        "first-model", po::bool_switch(&firstModel), "only the first model of a multi-model file")(
        "summary", po::value(&summary), "write the summary to this file instead of stderr")(
        "serial", po::bool_switch(&serial), "run the serial C++ reference instead of the device")(
        "repeats", po::value(&repeats), "compute the diagram this many times in one context (timing: the first run loads the kernels); the summary gives the last run and a line with every run's seconds");
    common.add(desc);
    BatchCliOptions batch;
    // A frame on a GPU is mostly host work (set-up, the tracer's steps between waves): a batch takes
    // a member per core (batch.coreMembersItems, set below), each tracing its frames on its own thread.
    batch.membersPerGpu = 2;
    batch.add(desc);
    po::positional_options_description pos;
    pos.add("input", -1);
    po::variables_map vm;
    if (!parseArgs(args, desc, pos, vm,
                   "usage: portacl voronoi INPUT [INPUT ...] | TOPOLOGY TRAJ.xtc|TRAJ.dcd [...] -o vertices.txt|diagram.h5 [--edges edges.txt] [--radii FILE] [--precision mixed|double|float] [--format pdb|cif|xyzr]",
                   common.help))
        return 0;
    if (inputFiles.empty()) throw Error("no input file given (portacl voronoi INPUT -o vertices.txt)");
    if (inputFiles.size() > 1 && std::count(inputFiles.begin(), inputFiles.end(), "-"))
        throw Error("standard input cannot be one of several inputs; name the files");
    input = inputFiles.front();
    // A topology followed by trajectories: the steps are the frames.
    const bool trajectory = std::any_of(inputFiles.begin(), inputFiles.end(), [](const std::string& p) { return io::isTrajectoryPath(p); });
    if (trajectory) {
        if (io::isTrajectoryPath(input))
            throw Error("'" + input + "' is a trajectory: give its topology first (portacl voronoi TOPOLOGY.pdb TRAJ.xtc -o v.txt), a PDB or mmCIF of the same atoms in the same order");
        for (std::size_t i = 1; i < inputFiles.size(); ++i)
            if (!io::isTrajectoryPath(inputFiles[i]))
                throw Error("'" + inputFiles[i] + "' follows a trajectory's topology but is no trajectory (.dcd, .xtc, .trr); run structures and trajectories separately");
        if (firstModel) throw Error("--first-model is for multi-model structure files; a trajectory runs every step of it");
        if (const std::string problem = io::chemfilesProblem(); !problem.empty()) throw Error(problem);
    }
    if (output.empty()) throw Error("no output file given (-o vertices.txt)");
    if (repeats < 1) throw Error("--repeats must be at least 1");
    const bool hdf5 = wantsHdf5(outputFormat, output);
    if (hdf5 && output == "-") throw Error("HDF5 cannot be written to standard output; name a file or use the text format");
    if (output == "-" && edges == "-") throw Error("the vertices and the edges cannot both go to standard output");
    if (summary == "-") throw Error("the summary goes to standard error by default; name a file for it");
    // Every output is checked before the input is read: its folder, and that it is none of the inputs.
    std::vector<std::string> inputs = inputFiles;
    inputs.push_back(radii);
    checkOutputPath(output, inputs, "-o");
    if (!edges.empty()) checkOutputPath(edges, inputs, "--edges");
    if (!summary.empty()) checkOutputPath(summary, inputs, "--summary");
    checkDistinctOutputs({{"-o", output}, {"--edges", edges}, {"--summary", summary}});
    if (ranks() && serial) throw Error("--serial runs in one process; run it without mpirun");
    if (ranks() && input == "-") throw Error("standard input reaches rank 0 alone; name the input file when running under mpirun");
    // Standard input: the format comes from --format or, without an extension to go by, the content.
    const std::string inputName = input == "-" ? "standard input" : input;
    std::unique_ptr<StdinCopy> stdinCopy;
    if (input == "-") {
        stdinCopy = std::make_unique<StdinCopy>();
        input = stdinCopy->path;
    }

    const auto readStart = std::chrono::steady_clock::now();
    io::MoleculeOptions mo;
    mo.format = io::parseMoleculeFormat(format);
    mo.radiiFile = radii;
    mo.hydrogens = hydrogens;
    mo.hetero = hetero;
    mo.waters = waters;
    mo.allAltlocs = allAltlocs;
    mo.allModels = !firstModel && !trajectory;  // a topology's first model only
    // Every model of every input, in order: the frames. Each remembers its file and its model there.
    struct Source {
        std::string name;
        int model = 1, models = 1;
        bool step = false;  // a trajectory's step, not a model
    };
    std::vector<io::Frame> frames;
    std::vector<Source> sources;
    for (std::size_t i = 0; i < inputFiles.size() && !trajectory; ++i) {
        std::vector<io::Frame> read = io::readMolecule(i == 0 ? input : inputFiles[i], mo);
        for (std::size_t m = 0; m < read.size(); ++m) {
            sources.push_back({i == 0 ? inputName : inputFiles[i], static_cast<int>(m + 1), static_cast<int>(read.size())});
            frames.push_back(std::move(read[m]));
        }
    }
    if (trajectory) {
        const io::Frame topology = io::readMolecule(input, mo).front();
        if (topology.balls.size() < 4)
            throw Error("the topology '" + inputName + "' has " + std::to_string(topology.balls.size()) +
                        " balls after filtering; a Voronoi diagram needs at least 4 (as Voronota's calculate-vertices)");
        for (std::size_t i = 1; i < inputFiles.size(); ++i) {
            std::vector<io::Frame> read = io::readTrajectory(inputFiles[i], topology, inputName);
            for (std::size_t s = 0; s < read.size(); ++s) {
                sources.push_back({inputFiles[i], static_cast<int>(s + 1), static_cast<int>(read.size()), true});
                frames.push_back(std::move(read[s]));
            }
        }
    }
    auto frameName = [&](std::size_t f) {
        const Source& src = sources[f];
        return (src.models > 1 || src.step ? (src.step ? "frame " : "model ") + std::to_string(src.model) + " of " : std::string()) + "'" + src.name + "'";
    };
    for (std::size_t f = 0; f < frames.size(); ++f)
        if (frames[f].balls.size() < 4) {
            const Source& src = sources[f];
            throw Error("'" + src.name + "'" + (src.models > 1 ? " model " + std::to_string(src.model) : std::string()) + " has " +
                        std::to_string(frames[f].balls.size()) + " balls after filtering; a Voronoi diagram needs at least 4 (as Voronota's calculate-vertices)");
        }

    const double readSeconds = secondsSince(readStart);

    voronoi::Options vo;
    vo.precision = common.parsedPrecision();
    // The devices: one, or a set (--device all, 0:0,1:0, ...) that shares the frames out.
    std::unique_ptr<DeviceSet> devices;
    batch.coreMembersItems = frames.size();
    if (!serial) devices = openDeviceSet(common, batch, vo.precision, true);
    passRankGate();  // under mpirun: every rank has read the input and opened its devices
    cluster::World* world = ranks();
    const bool writes = !world || world->isRoot();  // rank 0 writes the files
    const std::size_t n = frames.size();

    // Every output file of the run, made before the batch (one reading of their folders), in the
    // order they commit. Text frames are written by the member that computed them, while the devices
    // go on with the next frames; HDF5 files (the library is not thread-safe) after the batch.
    OutputGroup files;
    std::vector<const AtomicOutput*> vertexFiles(n, nullptr), edgeFiles(n, nullptr);
    std::vector<std::string> paths;
    if (writes) {
        for (std::size_t f = 0; f < n; ++f) {
            if (output != "-") paths.push_back(framePath(output, f, n));
            if (!edges.empty() && edges != "-") paths.push_back(framePath(edges, f, n));
        }
        if (!summary.empty()) paths.push_back(summary);
    }
    OutputFolderScan folderScan(paths);
    if (writes)
        for (std::size_t f = 0; f < n; ++f) {
            if (output != "-") vertexFiles[f] = &files.add(framePath(output, f, n));
            if (!edges.empty() && edges != "-") edgeFiles[f] = &files.add(framePath(edges, f, n));
        }

    // Per frame: its summary line, the text for standard output, and the first failure to write it.
    struct FrameText {
        std::string line, vertices, edges, failure;
    };
    std::vector<FrameText> texts(n);
    std::vector<voronoi::Diagram> diagrams(hdf5 ? n : 0);  // kept for the HDF5 files only
    auto summaryLine = [&](std::size_t f, const voronoi::Diagram& d) {
        char line[512];
        std::snprintf(line, sizeof line,
                      "%sballs %zu hidden %d vertices %zu edges %zu components %d unresolved_edges %zu phase2_edges %zu phase2 %s redone_on_host %zu searches %zu "
                      "waves %d closed_edges %zu free_open_edges %zu pass_rounds %d pass_faces %zu pass_triples %zu pass_flagged %zu "
                      "pass_starts %zu seconds %.4f\n",
                      n > 1 ? ("frame " + std::to_string(f + 1) + " ").c_str() : "", frames[f].balls.size(),
                      d.hiddenBalls, d.vertices.size(), d.edges.size(), d.components, static_cast<std::size_t>(d.unresolvedEdges), d.phase2Edges, phase2ArithmeticName(d.phase2), d.redoneOnHost, d.solvedEdges,
                      d.waves, d.closedEdges, d.freeEdges, d.passes, d.passFaces, d.passTriples, d.passFlagged, d.passSeeds,
                      d.seconds);
        return std::string(line);
    };
    // Frame f: its texts formatted and, for files, written on the calling thread; only the summary
    // line (and the text for standard output) is kept. Never throws.
    auto writeFrame = [&](std::size_t f, const voronoi::Diagram& d) {
        FrameText t;
        // A writer's text for files, kept for its next frame: its memory is reused, not fresh pages
        // a frame (the text for standard output is kept in t instead).
        thread_local std::string fileText;
        try {
            t.line = summaryLine(f, d);
            if (vertexFiles[f] && !hdf5) {
                voronoi::formatVertices(d, fileText);
                writeFileContents(*vertexFiles[f], [&](std::ostream& os) { os << fileText; }, true);
            } else if (!hdf5 && output == "-") {
                t.vertices = voronoi::formatVertices(d);
            }
            if (edgeFiles[f]) {
                voronoi::formatEdges(d, fileText);
                writeFileContents(*edgeFiles[f], [&](std::ostream& os) { os << fileText; }, true);
            } else if (!edges.empty()) {
                t.edges = voronoi::formatEdges(d);
            }
        } catch (const std::exception& e) {
            t.failure = e.what();
        }
        texts[f] = std::move(t);
    };

    // Every frame's diagram (on each device, chunks of frames traced together, from a shared queue).
    // Its text is formatted and written by host threads behind the devices: a member hands its
    // chunk's frames over, one job each, and takes its next chunk. The writers are one per usable
    // core; at most about one chunk per member waits for them, which bounds the memory they hold.
    std::vector<double> runSeconds;
    BatchReport batchReport;
    cluster::DistributedReport rankReport;
    double wallSeconds = 0, writeSeconds = 0, serialSeconds = 0;
    std::string writersLine;
    for (int run = 0; run < repeats; ++run) {
        if (serial) {
            serialSeconds = 0;
            for (std::size_t f = 0; f < n; ++f) {
                voronoi::Diagram d = voronoi::computeReference(frames[f].balls);
                serialSeconds += d.seconds;
                writeFrame(f, d);
                if (hdf5) diagrams[f] = std::move(d);
            }
        } else {
            BatchOptions bo;
            bo.maxChunk = kFramesPerCall;
            // A call's waves cost the same for one frame as for many: the last chunks keep a few.
            bo.minChunk = std::min<std::size_t>(kFramesPerCall, std::max<std::size_t>(1, n / (64 * devices->size())));
            bo.itemName = frameName;
            auto compute = [&](Context& ctx, std::size_t b, std::size_t e) {
                std::vector<std::vector<io::Ball>> balls;
                for (std::size_t f = b; f < e; ++f) balls.push_back(frames[f].balls);
                return voronoi::computeFrames(ctx, balls, vo);
            };
            std::unique_ptr<WriteBehind> behind;
            // About a chunk per member waits for the writers (guided chunks are at most a quarter of
            // the frames over the members).
            const std::size_t members = devices->size();
            const std::size_t chunk = std::min(kFramesPerCall, (n + 4 * members - 1) / (4 * members) + 1);
            if (writes) behind = std::make_unique<WriteBehind>(writerThreads(), members * chunk + writerThreads());
            // Frame f's diagram, written behind; an HDF5 file's is kept for after the batch (the
            // library is not thread-safe), and the writer reads it there.
            auto submit = [&](std::size_t f, voronoi::Diagram&& d) {
                std::shared_ptr<const voronoi::Diagram> held;
                if (hdf5) {
                    diagrams[f] = std::move(d);
                    held = std::shared_ptr<const voronoi::Diagram>(std::shared_ptr<const voronoi::Diagram>(), &diagrams[f]);
                } else {
                    held = std::make_shared<const voronoi::Diagram>(std::move(d));
                }
                behind->submit([&, f, held] { writeFrame(f, *held); });
            };
            try {
                if (world) {
                    // Every rank sends its frames' diagrams to rank 0, whose writers format and write
                    // each one as it arrives, while the ranks compute the next.
                    cluster::runDistributedBatch(*world, *devices, n,
                        [&](Context& ctx, std::size_t b, std::size_t e, std::string* out) {
                            const auto computed = compute(ctx, b, e);
                            PhaseScope encoding(BatchPhase::Write);
                            for (std::size_t f = b; f < e; ++f) out[f - b] = encodeDiagram(computed[f - b]);
                        }, bo, &rankReport,
                        [&](std::size_t f, std::string&& bytes) {
                            voronoi::Diagram d = decodeDiagram(bytes);
                            bytes = std::string();
                            submit(f, std::move(d));
                        });
                    wallSeconds = rankReport.seconds;
                } else {
                    // Claimed frame by frame: an idle member may copy the frames a slower one holds
                    // (its first call, say, still building kernels), and the first copy is written.
                    batchReport = devices->run(n, DeviceSet::ClaimingWork([&](Context& ctx, std::size_t b, std::size_t e, BatchCall& call) {
                        auto computed = compute(ctx, b, e);
                        for (std::size_t f = b; f < e; ++f)
                            if (call.claim(f)) submit(f, std::move(computed[f - b]));
                    }), bo);
                    wallSeconds = batchReport.seconds;
                }
            } catch (...) {
                if (behind) behind->drain();
                throw;
            }
            // The batch ends when its last frame is written.
            const auto w0 = std::chrono::steady_clock::now();
            if (behind) behind->drain();
            writeSeconds = secondsSince(w0);
            wallSeconds += writeSeconds;
            batchReport.seconds += writeSeconds;
            rankReport.seconds += writeSeconds;
            if (behind) writersLine = behind->describe(wallSeconds, writeSeconds);
        }
        runSeconds.push_back(serial ? serialSeconds : wallSeconds);
    }
    if (!writes) return 0;
    for (std::size_t f = 0; f < n; ++f)
        if (!texts[f].failure.empty()) throw Error(texts[f].failure);
    const auto commitStart = std::chrono::steady_clock::now();
    std::string toStdout;  // "-": the text goes to standard output once the files are in place
    std::string report;
    for (std::size_t f = 0; f < n; ++f) {
        if (hdf5) {
            const AtomicOutput& vertexFile = *vertexFiles[f];
            voronoi::Hdf5Info info;
            info.input = sources[f].name;
            info.precision = serial ? "serial" : precisionName(vo.precision);
            describeRadii(radii, info);
            info.frame = sources[f].model;
            info.frames = sources[f].models;
            voronoi::writeHdf5To(vertexFile, diagrams[f], frames[f].balls, info);
        } else if (output == "-") {
            toStdout += texts[f].vertices;
        }
        if (edges == "-") toStdout += texts[f].edges;
        report += texts[f].line;
    }
    if (n > 1) {
        // The batch's wall time (the devices overlap), or the serial reference's sum of frames.
        const double total = serial ? serialSeconds : wallSeconds;
        char line[160];
        std::snprintf(line, sizeof line, "frames %zu seconds %.4f frames_per_second %.2f\n", n, total, n / total);
        report += line;
    }
    if (repeats > 1) {
        report += "runs_seconds";
        for (double s : runSeconds) {
            char v[32];
            std::snprintf(v, sizeof v, " %.4f", s);
            report += v;
        }
        report += "\n";
    }
    if (!summary.empty()) writeFileContents(files.add(summary), [&](std::ostream& os) { os << report; }, true);
    files.commit();
    if (!toStdout.empty()) {
        std::cout << toStdout;
        std::cout.flush();
        if (!std::cout) throw Error("cannot write to standard output");
    }
    const double commitSeconds = secondsSince(commitStart);
    if (summary.empty()) std::cerr << report;
    if (world) std::cerr << rankReport.describe();
    else if (devices) {
        if (n > 1 || devices->size() > 1) printBatchReport(batchReport, *devices);
        printProfile(*devices, common);
    }
    if (n > 1 && !serial) {
        // The writers, and the host's part outside the batch, so that a user sees what the devices do not hide.
        char line[256];
        std::snprintf(line, sizeof line, "  outside the batch: input read in %.3f s, every file committed in %.3f s\n", readSeconds,
                      commitSeconds);
        std::cerr << writersLine << line;
    }
    return 0;
}

}  // namespace

PORTACL_OVER_RANKS("voronoi", voronoi);
PORTACL_COMMAND("voronoi", "vertices and edges of the additively weighted Voronoi diagram of atoms (Voronota's format)", runVoronoi);

}  // namespace portacl::cli
