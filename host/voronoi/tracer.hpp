// The bookkeeping of edge tracing, shared by the serial reference and the device version: balls and
// their spatial grid, hidden balls, start vertices, the vertex dictionary and the edge stack. How one
// edge's end is found (serially or a wave at a time on the device) is up to the caller.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "common/voronoi_geometry.h"  // cl/common/: the kernel's geometry, compiled for the host
#include "portacl/voronoi.hpp"
#include "voronoi/vertex_dictionary.hpp"

namespace portacl {
class HostPool;
}

namespace portacl::voronoi {

constexpr double kUnboundedRadius = std::numeric_limits<double>::infinity();

// Uniform grid over the balls' centres; cells hold ball indices (CSR).
// The stated range of ball coordinates and radii (any unit): beyond it the squared distances of the
// searches lose their meaning (1e154 overflows double; 1e50 and more empties the diagram in float).
constexpr double kMaxCoordinate = 1e6, kMaxRadius = 1e4;

struct BallGrid {
    double lo[3] = {0, 0, 0};
    double h = 1;
    int dims[3] = {1, 1, 1};
    std::vector<int> cellStart;  // size cells + 1
    std::vector<int> cellBalls;  // ball indices, cell by cell
    void build(const std::vector<io::Ball>& balls, const std::vector<char>& use, double cellSize);
    // Calls f(ballIndex) for every ball in the cells overlapping the cube around p of half-size R.
    template <typename F>
    void forNear(const double p[3], double R, F&& f) const;
    // The cells [a, b] (per axis) that overlap the cube around p of half-size R; forCells visits them
    // in forNear's order.
    void cellRange(const double p[3], double R, int a[3], int b[3]) const;
    template <typename F>
    void forCells(const int a[3], const int b[3], F&& f) const;
};

// One edge to trace: from vertex `from`, along the three balls `tri`, away from ball `bs`.
struct EdgeTask {
    int from;
    int tri[3];
    int bs;
    double searchRadius;   // candidates: balls whose centres lie within this distance of the start vertex's
};

// What a search found: the end ball (or -1), or that the search must be redone with a larger radius.
struct EdgeAnswer {
    int endBall = -1;
    double retryRadius = 0;  // > 0: redo with this search radius
    // Float could not be trusted with this search (float mode keeps such answers): a new vertex it
    // gives is checked for emptiness in double, and the search redone on the host if it is not empty.
    bool uncertain = false;
};

// The geometry of an answer, worked out before the answer is recorded: it depends only on the task,
// the answer and vertices that already exist, so a wave's answers can be resolved in parallel and
// then recorded in order (Tracer::resolve, then Tracer::commit).
struct ResolvedAnswer {
    enum Kind : std::uint8_t { Retry, NoEdge, Unbounded, Redo, End };
    Kind kind = Retry;
    double minRadius = 0;  // NoEdge and Unbounded: the edge's bottleneck; End: the arc's smallest radius
    double maxRadius = 0;  // the arc's largest radius (Unbounded: the start's; the window of the completeness pass)
    double top[3] = {0, 0, 0};  // where the arc's sphere is largest
    double t0 = 0;         // the start sphere's radius
    Vertex end;            // End: the vertex from the chosen ball, quadruple sorted (the dictionary key)
    // End, when the vertex was not known yet at resolve time (it is then most likely new): its sphere
    // recomputed from the sorted quadruple, and for a large sphere whether it is empty.
    bool knownBefore = false;
    // End: the dictionary's match for the end vertex, or -1 (the first match stays first as the
    // dictionary grows, so commit takes it as it is).
    int knownId = -1;
    Vertex canonical;
    enum Emptiness : std::uint8_t { Unchecked, Empty, NotEmpty };
    Emptiness emptiness = Unchecked;
};

// One face of the completeness pass (docs/voronoi.md, "Completeness pass"): balls b < c, the window
// (the tangent spheres up to radius tau; kWholeConic: all of them) and the third balls of the face's
// traced edges, FacePass::known[known0, known0 + knownCount).
struct FaceTask {
    int b, c;
    double tau;
    int known0, knownCount;
    // 1: a traced face, where a missed loop bounds a hole and its triples' conics are ellipses that
    // lie in the window whole; 0: a face of a ball in no vertex (any triple with a valid point).
    int holes;
    // A traced face whose traced edges are all bounded: the point of largest tangent sphere on them
    // (x, y, z, t), from which the meridian search looks for a loop around them.
    int bounded;
    double top[4];
};
struct FacePass {
    std::vector<FaceTask> tasks;
    std::vector<int> known;
};
// The filter's answer for one face: whether a triple of it that no traced edge has keeps a valid
// point in its window (the exact host step then takes the face), and how many triples it tested.
struct FaceScan {
    bool flagged = false;
    int triples = 0;
};
constexpr double kWholeConic = 1e30;  // a window radius that takes the whole conic (>= VOR_WHOLE)


class Tracer {
public:
    PORTACL_API explicit Tracer(const std::vector<io::Ball>& balls);  // exported for the fuzzers

    const std::vector<io::Ball>& balls() const { return balls_; }
    const std::vector<char>& active() const { return active_; }  // not hidden
    const BallGrid& grid() const { return grid_; }
    double maxRadius() const { return rmax_; }
    double minRadius() const { return rmin_; }  // of the balls that are not hidden
    const std::vector<Vertex>& vertices() const { return d_.vertices; }
    const std::vector<Edge>& edges() const { return d_.edges; }

    // Seeds the tracing; false when every ball is accounted for. The first call starts from one ball
    // of every block of the grid (many fronts, so that the waves are few; their start vertices are
    // searched in parallel on `pool` when given); later calls start from a ball that is in no vertex
    // yet (another piece of the diagram, if it has one).
    bool seedNextComponent(HostPool* pool = nullptr);
    // The pending edges (the stack), taken all at once.
    std::vector<EdgeTask> takePending();
    // The same, appended to `out` (the stack keeps its memory for the next wave).
    void movePendingTo(std::vector<EdgeTask>& out);
    bool hasPending() const { return !pending_.empty(); }
    // Records a search's answer: a new or known end vertex, an unbounded edge, or a retry.
    // accept = commit(resolve): resolve is const and may run on many answers at once.
    void accept(const EdgeTask& task, const EdgeAnswer& answer);
    // knownBelow: vertices from this id on count as unknown (the wave's own, when resolve runs just
    // before its commit, after the commits of the wave's earlier answers), as they were to a resolve
    // that ran before any of the wave's commits: the same answer either way.
    ResolvedAnswer resolve(const EdgeTask& task, const EdgeAnswer& answer, std::size_t knownBelow = SIZE_MAX) const;
    void commit(const EdgeTask& task, const EdgeAnswer& answer, const ResolvedAnswer& r);
    // commit(resolve(...)) of one answer of a wave whose first knownBelow vertices were there before
    // its commits; an edge traced from its other end in the same wave (a third of a wave's answers)
    // skips resolve.
    void resolveAndCommit(const EdgeTask& task, const EdgeAnswer& answer, std::size_t knownBelow);
    // Asks the cache for what recording `answers` answers reads at random (the vertex dictionary, the
    // vertices, their traced-edge bits and the balls) and the room its appends fill, ahead of the
    // commits; changes nothing.
    void prefetchTables(std::size_t answers) const;

    // The serial search of one edge (double, grid-pruned, with the coverage check): one pass.
    EdgeAnswer solveSerial(const EdgeTask& task) const;
    // A search as the device does it: up to kPasses passes in one wave (a wider radius, then every
    // ball); what is left is a retry for the next wave.
    EdgeAnswer solve(const EdgeTask& task) const;
    // How many balls the task's candidate box holds (the grid cells its search visits).
    std::size_t candidateCount(const EdgeTask& task) const;

    // The frame of a triple and the start (t, s) of a task.
    geom::vor_frame frameOf(const int tri[3]) const;
    void startOf(const EdgeTask& task, const geom::vor_frame& f, double* t0, double* s0) const;
    // The first search radius around the start vertex's centre: its sphere, the largest ball and a
    // margin for the way along the edge (a search that did not cover its arc is redone wider).
    double initialRadius(double tStart) const { return std::max(tStart, 0.0) + rmax_ + 3.0; }

    // The completeness pass (docs/voronoi.md, "Completeness pass"), run when the edge stack is empty
    // and no start is left: the faces to test (those of the traced edges added since the last pass,
    // and the faces of balls in no vertex that no pass has tested), the filter of one face (serial;
    // the device's voronoi_faces is its twin), and the exact host step on the flagged faces: every
    // vertex of an untraced triple's valid arcs that is not known is a new start (pushes its edges),
    // and an arc with no end at all is an edge with no vertex. Returns whether it added a start.
    FacePass faceTasks(HostPool* pool = nullptr);
    FaceScan scanFace(const FaceTask& task, const int* known) const;
    bool completePass(const FacePass& pass, const std::vector<FaceScan>& scans);

    // The diagram (moved out: call once, last); components counted as connected pieces of the
    // vertex-edge graph (an edge with no vertex is a piece of its own).
    Diagram finish();

    static constexpr int kPasses = 3;  // VOR_PASSES of cl/voronoi.cl
    // Grid blocks of about this many Å on a side get a start vertex each (the first seeding): one
    // grid cell for proteins (cells of 3.4 to 4.5 Å), so the fronts meet after a few waves.
    static constexpr double kSeedBlock = 4.0;

private:

    // Recomputes a vertex's sphere from its sorted quadruple (balls q0, q1, q2 and q3), so that its
    // coordinates do not depend on the edge it was reached by.
    void canonicalSphere(Vertex* v) const;
    bool isEmptySphere(const double p[3], double t, const int q[4]) const;
    bool findStartVertex(int seed, Vertex* out) const;
    // The first starts' balls: one per block of the grid (kSeedBlock), in block order.
    std::vector<int> blockSeeds() const;
    // Vertex id of (q, sphere) if known, else -1.
    int findVertex(const Vertex& v) const;
    // Vertex id of (q, sphere), adding it when new; *isNew tells which. `slot`: the dictionary's slot
    // of v's quadruple when known (VertexDictionary::slotOf).
    int vertexOf(const Vertex& v, bool* isNew, std::size_t slot = VertexDictionary::kNoSlot);
    void pushEdges(int vertex, int arrivedExcluding);
    int slotOf(int vertex, int ball) const;
    void addEdge(const Edge& e, double maxRadius, const double top[3]);

    // The completeness pass's candidates of a face: the third balls k that may share an empty
    // tangent sphere with b and c within the window and are not among the face's traced edges.
    template <typename F>
    void forFaceTriples(const FaceTask& task, const int* known, F&& f) const;
    // The valid arcs of triple tri's conic (tri ascending, frame f) within the window tau: the known
    // balls first (they end the face's traced loops), then every ball that may touch a sphere of the
    // window. Returns the count, or -1 beyond cap arcs.
    int validArcs(const int tri[3], const geom::vor_frame& f, double tau, const int* known, int knownCount,
                  geom::vor_arc* arcs, geom::vor_arc* tmp, int cap) const;
    // Whether a vertex with v's sphere (any quadruple: degenerate vertices) is known (sphereIndex_).
    bool knownSphere(const Vertex& v) const;
    void indexSphere(int id);
    // The meridian search of a bounded traced face (docs/voronoi.md): the first ball that intersects
    // the sphere beyond the face's traced top, and where (*tEnd); -1 when none does, or one does at
    // once (the traced loop is the outer one there). maxPasses: radius passes before *unresolved.
    int meridianEnd(const FaceTask& task, const int* known, int maxPasses, double* tEnd, bool* unresolved) const;
    // The exact host step for one flagged face, and for one triple (its whole conic's valid arcs:
    // unknown vertices at their ends become starts, an arc with no end an edge with no vertex);
    // return whether they added a start.
    bool completeFace(const FaceTask& task, const int* known);
    bool completeTriple(const int tri[3], const int* known, int knownCount);

    std::vector<io::Ball> balls_;
    std::vector<char> active_;
    std::vector<char> covered_;   // ball appears in some vertex
    std::size_t nextSeed_ = 0;
    bool seeded_ = false;     // the first starts (one per block) were made
    double rmax_ = 0;
    double rmin_ = 0;
    double farRadius_ = 0;  // vertices beyond this radius (1e6 x the balls' extent) count as at infinity
    BallGrid grid_;
    Diagram d_;
    std::vector<std::uint8_t> done_;  // per vertex: bit i = edge excluding q[i] traced
    VertexDictionary dictionary_;  // the ids of d_.vertices by quadruple
    std::vector<EdgeTask> pending_;
    std::vector<double> edgeMax_;      // per edge: its largest tangent-sphere radius (finite part)
    std::vector<std::array<double, 3>> edgeTop_;  // per edge: where that sphere's centre is
    std::size_t passEdgeMark_ = 0;     // edges before this one were in the faces of an earlier pass
    std::vector<char> passBallDone_;   // balls in no vertex whose faces an earlier pass tested
    std::vector<std::array<int, 3>> vertexless_;  // triples of the edges with no vertex (sorted)
    // Vertex ids by their sphere's centre on a fine grid (built by the first exact step that needs it).
    std::unordered_multimap<std::uint64_t, int> sphereIndex_;
    bool sphereIndexed_ = false;
};

// A NaN bound (a degenerate search) widens to the whole axis: no cast of a non-number to int.
inline void BallGrid::cellRange(const double p[3], double R, int a[3], int b[3]) const {
    for (int i = 0; i < 3; ++i) {
        const double lo_i = (p[i] - R - lo[i]) / h, hi_i = (p[i] + R - lo[i]) / h;
        a[i] = !(lo_i >= 0) ? 0 : (lo_i >= dims[i] ? dims[i] : static_cast<int>(lo_i));
        b[i] = !(hi_i < dims[i] - 1) ? dims[i] - 1 : (hi_i < 0 ? -1 : static_cast<int>(hi_i));
    }
}

template <typename F>
void BallGrid::forNear(const double p[3], double R, F&& f) const {
    int a[3], b[3];
    cellRange(p, R, a, b);
    forCells(a, b, f);
}

template <typename F>
void BallGrid::forCells(const int a[3], const int b[3], F&& f) const {
    for (int z = a[2]; z <= b[2]; ++z)
        for (int y = a[1]; y <= b[1]; ++y)
            for (int x = a[0]; x <= b[0]; ++x) {
                const int c = (z * dims[1] + y) * dims[0] + x;
                for (int i = cellStart[c]; i < cellStart[c + 1]; ++i) f(cellBalls[i]);
            }
}

}  // namespace portacl::voronoi
