// The additively weighted Voronoi diagram of balls (the Euclidean Voronoi diagram of atoms), by edge
// tracing: its vertices are the empty spheres tangent to four balls, as Voronota's calculate-vertices
// writes them; its edges join vertices along the locus of spheres tangent to three balls.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include "portacl/io/molecule.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"
#include "portacl/runtime/two_phase.hpp"

namespace portacl {
class AtomicOutput;
}

namespace portacl::voronoi {

struct PORTACL_API Vertex {
    int q[4];              // ball indices, ascending
    double x, y, z, r;     // tangent sphere: centre and radius (negative when the balls overlap it)
};

struct PORTACL_API Edge {
    int v0, v1;            // vertex indices; v1 = -1 for an edge unbounded beyond v0. An edge with no vertex:
                           // v0 = v1 = -2 for a closed one (an ellipse), v0 = v1 = -1 for an open one
                           // (unbounded both ways); both found by the completeness pass
    int g[3];              // the three balls the edge is equidistant from, ascending
    double minRadius;      // smallest tangent-sphere radius along the edge (its bottleneck)
};

struct PORTACL_API Diagram {
    std::vector<Vertex> vertices;
    std::vector<Edge> edges;
    int components = 0;            // connected pieces of the vertex-edge graph
    int hiddenBalls = 0;           // balls inside other balls (no part in the diagram)
    std::size_t solvedEdges = 0;   // end-vertex searches (including retries with a wider search)
    std::size_t phase2Edges = 0;   // searches that float could not decide and double redid (mixed)
    // Where phase 2 redid them: Double on the device, or Host (in double, on a device without fp64).
    Phase2Arithmetic phase2 = Phase2Arithmetic::None;
    std::size_t redoneOnHost = 0;     // device answers (float) whose ball had no entering root in
                                      // double: searched again serially in double
    std::size_t unresolvedEdges = 0;  // edges whose end sphere was beyond 1e6 x the balls' extent or
                                      // not empty in double (near-coplanar hull balls): recorded as unbounded
    int waves = 0;                 // device launches of the wave tracer (per precision phase 1)
    std::size_t closedEdges = 0;   // edges with no vertex: closed ellipses (v0 = v1 = -2)
    std::size_t freeEdges = 0;     // open edges with no vertex (v0 = v1 = -1)
    // The completeness pass (docs/voronoi.md): its rounds, the faces and candidate triples it tested,
    // the faces the filter flagged for the exact host step, and the vertices it found that tracing
    // had not reached (each one traced from as a new start).
    int passes = 0;
    std::size_t passFaces = 0, passTriples = 0, passFlagged = 0, passSeeds = 0;
    double seconds = 0;            // wall time of the computation
};

// How the device splits a search over work-items (docs/voronoi.md, "Tuning"). 0: the device profile's
// [voronoi] value, or its PORTACL_VORONOI_* override; sizes are rounded down to powers of two.
struct PORTACL_API SearchTuning {
    int lanes = 0;           // work-items per search (1: one work-item walks all candidates)
    int group = 0;           // work-group size of the narrow searches (lanes x searches per group)
    int flaggedLanes = 0;    // work-items per flagged search in phase 2 of mixed mode (1: as lanes)
    int wideGroup = 0;       // work-items per wide search
    int wideCandidates = 0;  // a search whose box holds more balls is wide
    // Mixed mode's phases on a device with fp64: 2, float and then double for the searches float
    // cannot decide; 1, every search in double (the same diagram; CPU devices, where double costs
    // what float does and phase 2's searches are the slowest ones).
    int mixedPhases = 0;
    // Double searches skip the balls whose line misses the arc up to the best found so far (1), or
    // offer every candidate (-1); 0: the profile's [voronoi] prune (default: every candidate). The
    // same answers either way; the CPU profiles prune.
    int prune = 0;
    // Launches of one work-item per search have at least this many work-groups per compute unit,
    // smaller groups where a wave has few searches (CPUs run a work-group on one core); 0: the
    // profile's [voronoi] groups_per_unit (default: none, groups of the engine's item size).
    int groupsPerUnit = 0;
    // Launches of one work-item per search have work-groups of at most this many work-items (a power of
    // two); 0: the profile's [voronoi] item_group (default: the engine's item size, [two_phase]
    // item_work_group). Smaller groups balance a wave's searches over a CPU's cores more evenly.
    int itemGroup = 0;
};

struct PORTACL_API Options {
    Precision precision = Precision::Mixed;
    SearchTuning tuning;
    // The completeness pass after tracing (closed edges with no vertex, pieces no start reached);
    // off only to show what tracing alone misses (tests).
    bool completenessPass = true;
};

// The serial C++ reference: the same tracing with one edge at a time, in double, and the same
// completeness pass.
PORTACL_API Diagram computeReference(const std::vector<io::Ball>& balls, bool completenessPass = true);

// On the device: all pending edges of a wave in one launch per phase. Float: phase 1 decides alone;
// double: every search in double; mixed: float, then double for the searches float flagged.
PORTACL_API Diagram compute(Context& ctx, const std::vector<io::Ball>& balls, const Options& options = {});

// Several frames (models of an ensemble, trajectory snapshots) traced together: each wave's pending
// edges of every frame go to the device in one launch. Diagram::seconds is the batch's time per frame.
PORTACL_API std::vector<Diagram> computeFrames(Context& ctx, const std::vector<std::vector<io::Ball>>& frames,
                                               const Options& options = {});

// Voronota's vertex format: `q1 q2 q3 q4 x y z r`, one line per tangent sphere, sorted by quadruple.
PORTACL_API std::string formatVertices(const Diagram& d);
// `v0 v1 g1 g2 g3 min_radius` (v1 = -1 for unbounded edges; -2 -2: a closed edge with no vertex, -1 -1:
// an open one), vertex indices into the sorted vertex list.
PORTACL_API std::string formatEdges(const Diagram& d);
// The same texts into `out` (its contents replaced, its memory kept: a batch's writer reuses one
// string for every frame instead of fresh pages a frame).
PORTACL_API void formatVertices(const Diagram& d, std::string& out);
PORTACL_API void formatEdges(const Diagram& d, std::string& out);

// What an HDF5 diagram file records besides the diagram and its balls (attributes of the root group).
struct PORTACL_API Hdf5Info {
    std::string input;       // the input file name
    std::string precision;   // "mixed", "double", "float", or "serial" (the serial reference)
    std::string radii;       // the radius table: its file name, or a line naming Voronota's built-in table
    std::string radiiTable;  // the table's text (empty for the built-in table)
    int frame = 1, frames = 1;  // which model of the input this diagram is (1-based), of how many
};
// Writes the diagram (vertices, edges, in the order of formatVertices and formatEdges), the balls
// (after filtering, numbered from 0) and the summary to an HDF5 file (docs/voronoi.md, "Output"),
// through a temporary file renamed into place; on failure no file is left and portacl::Error says so.
PORTACL_API void writeHdf5(const std::string& path, const Diagram& d, const std::vector<io::Ball>& balls, const Hdf5Info& info);
// The same into one member of an output group (the caller commits).
PORTACL_API void writeHdf5To(const AtomicOutput& out, const Diagram& d, const std::vector<io::Ball>& balls, const Hdf5Info& info);

// Sorts vertices by quadruple then centre and renumbers the edges accordingly.
PORTACL_API void canonicalize(Diagram& d);

}  // namespace portacl::voronoi
