// The completeness pass (docs/voronoi.md, "Completeness pass"): after tracing, the faces of the traced
// diagram (and of balls in no vertex) are searched for triples of balls that no traced edge has but
// whose conic keeps a valid point (a tangent sphere no other ball intersects). Such a triple is an
// edge tracing did not reach: its arcs' ends are vertices to start from, and an arc with no end is an
// edge with no vertex (a closed ellipse, or an open edge unbounded both ways).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "portacl/runtime/error.hpp"
#include "voronoi/prefetch.hpp"
#include "voronoi/tracer.hpp"
#include "portacl/runtime/host_pool.hpp"

namespace portacl::voronoi {

using namespace geom;

namespace {

// The balls the exact host step lets the valid arcs split into (each ball adds at most one arc).
constexpr int kHostArcs = 512;
// Radius passes of the meridian search in the filter (the device's VOR_PASSES): its radius, the
// wider one, every ball; still open after them: the exact step decides.
constexpr int kMeridianPasses = 3;

bool wholeWindow(double tau) { return tau >= VOR_WHOLE; }

// Sorts [first, last) as std::sort(first, last, less) does, where less orders by key(x) (a key below
// 2^48): through 64-bit words (the key, then the record's place) where the keys are distinct, which
// leaves one sorted order and is faster than sorting the records; records of equal keys, whose order
// std::sort leaves to its algorithm, go to std::sort itself. `words` and `sorted`: scratch.
template <typename T, typename Key, typename Less>
void sortByDistinctKeys(T* first, T* last, Key key, Less less, std::vector<std::uint64_t>& words, std::vector<T>& sorted) {
    const std::size_t n = static_cast<std::size_t>(last - first);
    constexpr std::uint64_t kPlaces = 1u << 16;
    if (n < 2) return;
    bool packed = n <= kPlaces;
    words.clear();
    for (std::size_t i = 0; i < n && packed; ++i) {
        const std::uint64_t k = key(first[i]);
        packed = k < (std::uint64_t(1) << 48);
        words.push_back(k << 16 | i);
    }
    if (packed) {
        std::sort(words.begin(), words.end());
        for (std::size_t i = 1; i < n && packed; ++i) packed = (words[i] >> 16) != (words[i - 1] >> 16);
    }
    if (!packed) return std::sort(first, last, less);
    sorted.clear();
    for (const std::uint64_t w : words) sorted.push_back(first[w & (kPlaces - 1)]);
    std::copy(sorted.begin(), sorted.end(), first);
}

}  // namespace

FacePass Tracer::faceTasks(HostPool* pool) {
    FacePass out;
    const std::size_t ne = d_.edges.size(), nb = balls_.size();
    // Every traced edge lies on three faces (pairs of its balls), each with the third ball. Entries
    // bucketed by the face's first ball, then sorted by (second, third) in each bucket.
    struct Entry {
        int c, k;
        double m;     // the edge's largest tangent-sphere radius
        int edge;     // the edge's index
        bool bounded;  // the edge has two vertices, or is closed (copied here: the edges are read in order once)
    };
    // Each face reads the top of its largest edge at random: asked for now, while the entries are
    // made (a batch's frames come back to a cache the other frames filled).
    prefetchBytes(edgeTop_.data(), edgeTop_.size() * sizeof(edgeTop_[0]));
    std::vector<int> start(nb + 1, 0);
    for (const Edge& e : d_.edges) ++start[e.g[0] + 1], ++start[e.g[0] + 1], ++start[e.g[1] + 1];
    for (std::size_t b = 0; b < nb; ++b) start[b + 1] += start[b];
    std::vector<Entry> entries(start[nb]);
    std::vector<int> fill(start.begin(), start.end() - 1);
    double tauAll = -1;  // the largest finite tangent sphere of any traced edge
    for (std::size_t i = 0; i < ne; ++i) {
        const Edge& e = d_.edges[i];
        const double m = edgeMax_[i];
        const int id = static_cast<int>(i);
        if (std::isfinite(m)) tauAll = std::max(tauAll, m);
        const bool bounded = e.v1 >= 0 || e.v0 == -2;
        entries[fill[e.g[0]]++] = {e.g[1], e.g[2], m, id, bounded};
        entries[fill[e.g[0]]++] = {e.g[2], e.g[1], m, id, bounded};
        entries[fill[e.g[1]]++] = {e.g[2], e.g[0], m, id, bounded};
    }
    // The faces of each first ball, in chunks of balls (in parallel on the pool), then joined in order.
    const std::size_t chunks = pool ? std::min<std::size_t>(nb, 4 * pool->threads()) : 1;
    std::vector<FacePass> parts(chunks);
    const auto faces = [&](std::size_t c0, std::size_t c1) {
        std::vector<std::uint64_t> words;
        std::vector<Entry> sorted;
        for (std::size_t c = c0; c < c1; ++c) {
            FacePass& part = parts[c];
            // Room for the chunk's faces at once (a protein's traced face has about five entries,
            // and a known ball for each pair of them).
            const std::size_t chunkEntries = static_cast<std::size_t>(start[nb * (c + 1) / chunks] - start[nb * c / chunks]);
            part.tasks.reserve(chunkEntries / 4 + 16), part.known.reserve(chunkEntries / 2 + 16);
            for (std::size_t b = nb * c / chunks; b < nb * (c + 1) / chunks; ++b) {
                const auto first = entries.begin() + start[b], last = entries.begin() + start[b + 1];
                sortByDistinctKeys(
                    entries.data() + start[b], entries.data() + start[b + 1],
                    [](const Entry& x) {  // (c, k) in 48 bits, or a key std::sort takes (beyond 2^24 balls)
                        constexpr std::uint64_t kBalls = 1u << 24;
                        const std::uint64_t c = static_cast<std::uint32_t>(x.c), k = static_cast<std::uint32_t>(x.k);
                        return c < kBalls && k < kBalls ? c << 24 | k : ~std::uint64_t(0);
                    },
                    [](const Entry& x, const Entry& y) { return x.c < y.c || (x.c == y.c && x.k < y.k); }, words, sorted);
                for (auto run = first; run != last;) {
                    auto end = run;
                    double tau = -1e300;
                    bool fresh = false, bounded = true;
                    int topEdge = run->edge;
                    for (; end != last && end->c == run->c; ++end) {
                        if (end->m > tau) tau = end->m, topEdge = end->edge;
                        fresh |= end->edge >= static_cast<int>(passEdgeMark_);
                        bounded &= end->bounded;
                    }
                    if (fresh) {
                        FaceTask t;
                        t.b = static_cast<int>(b), t.c = run->c;
                        t.bounded = bounded && std::isfinite(tau);
                        const auto& top = edgeTop_[topEdge];
                        t.top[0] = top[0], t.top[1] = top[1], t.top[2] = top[2], t.top[3] = tau;
                        // The window: a loop the face's traced loops enclose has no larger sphere than they have.
                        t.tau = std::isfinite(tau) ? tau + 1e-9 * (1 + std::fabs(tau)) : kWholeConic;
                        t.known0 = static_cast<int>(part.known.size());
                        for (auto it = run; it != end; ++it)
                            if (it == run || it->k != (it - 1)->k) part.known.push_back(it->k);
                        t.knownCount = static_cast<int>(part.known.size()) - t.known0;
                        t.holes = 1;
                        part.tasks.push_back(t);
                    }
                    run = end;
                }
            }
        }
    };
    if (pool) pool->forRange(chunks, 1, faces);
    else faces(0, chunks);
    if (chunks == 1) {
        out = std::move(parts[0]);  // one part (a frame of a batch): nothing to join
    } else {
        for (FacePass& part : parts) {
            const int base = static_cast<int>(out.known.size());
            for (FaceTask& t : part.tasks) t.known0 += base;
            out.tasks.insert(out.tasks.end(), part.tasks.begin(), part.tasks.end());
            out.known.insert(out.known.end(), part.known.begin(), part.known.end());
        }
    }
    passEdgeMark_ = ne;
    // Balls in no vertex: their faces with every ball whose gap to them an empty sphere as large as
    // the largest traced one could span (every ball when nothing was traced).
    if (passBallDone_.empty()) passBallDone_.assign(nb, 0);
    const double tauFree = tauAll >= 0 ? tauAll + 1e-9 * (1 + tauAll) : kWholeConic;
    for (std::size_t s = 0; s < nb; ++s) {
        if (!active_[s] || covered_[s] || passBallDone_[s]) continue;
        passBallDone_[s] = 1;
        const io::Ball& S = balls_[s];
        const double p[3] = {S.x, S.y, S.z};
        const double R = wholeWindow(tauFree) ? kUnboundedRadius : 2 * tauFree + S.r + rmax_;
        grid_.forNear(p, R, [&](int n) {
            if (n == static_cast<int>(s) || (!covered_[n] && n < static_cast<int>(s))) return;  // a pair of two such balls once
            const io::Ball& N = balls_[n];
            const double d = std::sqrt((S.x - N.x) * (S.x - N.x) + (S.y - N.y) * (S.y - N.y) + (S.z - N.z) * (S.z - N.z));
            if (!wholeWindow(tauFree) && d - S.r - N.r > 2 * tauFree) return;
            FaceTask t;
            t.b = std::min(static_cast<int>(s), n), t.c = std::max(static_cast<int>(s), n);
            t.tau = tauFree;
            t.known0 = static_cast<int>(out.known.size());
            t.knownCount = 0;
            t.holes = 0;
            t.bounded = 0;
            t.top[0] = t.top[1] = t.top[2] = t.top[3] = 0;
            out.tasks.push_back(t);
        });
    }
    return out;
}

template <typename F>
void Tracer::forFaceTriples(const FaceTask& task, const int* known, F&& f) const {
    const io::Ball &B = balls_[task.b], &C = balls_[task.c];
    const bool whole = wholeWindow(task.tau);
    // A sphere of radius t <= tau tangent to b and c and to k: k's centre within 2 t + r_b + r_k of
    // b's and within 2 t + r_c + r_k of c's.
    // The cells near both b and c (for a traced face: near the axis, vor_face_cells).
    int lo[3], hi[3];
    const double pb[3] = {B.x, B.y, B.z}, pc[3] = {C.x, C.y, C.z};
    vor_face_cells(pb, B.r, pc, C.r, task.tau, task.holes, rmin_, rmax_, grid_.lo, grid_.h, grid_.dims, lo, hi);
    const vor_axis axis = vor_make_axis(C.x - B.x, C.y - B.y, C.z - B.z, B.r, C.r);
    grid_.forCells(lo, hi, [&](int k) {
        if (k == task.b || k == task.c) return;
        const io::Ball& K = balls_[k];
        if (!whole) {
            const double lb = 2 * task.tau + B.r + K.r, lc = 2 * task.tau + C.r + K.r;
            const double db = (K.x - B.x) * (K.x - B.x) + (K.y - B.y) * (K.y - B.y) + (K.z - B.z) * (K.z - B.z);
            const double dc = (K.x - C.x) * (K.x - C.x) + (K.y - C.y) * (K.y - C.y) + (K.z - C.z) * (K.z - C.z);
            if (db > lb * lb || dc > lc * lc) return;
        }
        // A hole's ball: in the cone of vor_hole_ball, its conic an ellipse.
        if (task.holes && (!vor_hole_ball(&axis, K.x - B.x, K.y - B.y, K.z - B.z, K.r) ||
                           !vor_is_ellipse(B.r, C.x - B.x, C.y - B.y, C.z - B.z, C.r, K.x - B.x, K.y - B.y, K.z - B.z, K.r)))
            return;
        for (int i = 0; i < task.knownCount; ++i)
            if (known[i] == k) return;  // a traced edge's triple
        f(k);
    });
}

int Tracer::validArcs(const int tri[3], const vor_frame& f, double tau, const int* known, int knownCount, vor_arc* arcs,
                      vor_arc* tmp, int cap) const {
    const io::Ball &a = balls_[tri[0]], &b = balls_[tri[1]], &c = balls_[tri[2]];
    double tlo = 0, thi = 0, smax = 0;
    int n = vor_window(&f, tau, std::min({a.r, b.r, c.r}), arcs, &tlo, &thi, &smax);
    const auto cover = [&](int l) {
        if (n <= 0 || l == tri[0] || l == tri[1] || l == tri[2]) return;
        const io::Ball& L = balls_[l];
        n = vor_arcs_cover(&f, arcs, n, tmp, cap, l, L.x - a.x, L.y - a.y, L.z - a.z, L.r);
    };
    for (int i = 0; i < knownCount && n > 0; ++i) cover(known[i]);
    if (n <= 0) return n;
    if (thi >= VOR_WHOLE) {
        for (int l : grid_.cellBalls) cover(l);
        return n;
    }
    // The window's spheres: centres within rho of P (relative to a), radii at most thi.
    const double Bn = std::sqrt(f.Bx * f.Bx + f.By * f.By + f.Bz * f.Bz), tm = 0.5 * (tlo + thi);
    const double P[3] = {a.x + f.Ax + f.Bx * tm, a.y + f.Ay + f.By * tm, a.z + f.Az + f.Bz * tm};
    const double rho = Bn * 0.5 * (thi - tlo) + smax;
    grid_.forNear(P, rho + thi + rmax_, [&](int l) {
        if (n <= 0) return;
        const io::Ball& L = balls_[l];
        const double reach = rho + thi + L.r;
        if ((L.x - P[0]) * (L.x - P[0]) + (L.y - P[1]) * (L.y - P[1]) + (L.z - P[2]) * (L.z - P[2]) > reach * reach) return;
        cover(l);
    });
    return n;
}

FaceScan Tracer::scanFace(const FaceTask& task, const int* known) const {
    FaceScan out;
    vor_arc arcs[VOR_FACE_ARCS], tmp[VOR_FACE_ARCS];
    forFaceTriples(task, known, [&](int k) {
        int tri[3] = {task.b, task.c, k};
        std::sort(tri, tri + 3);
        const vor_frame f = frameOf(tri);
        if (!vor_face_triple(&f, task.tau, task.holes, std::min({balls_[tri[0]].r, balls_[tri[1]].r, balls_[tri[2]].r}))) return;
        ++out.triples;
        // More arcs than the device holds: the exact step decides.
        if (validArcs(tri, f, task.tau, known, task.knownCount, arcs, tmp, VOR_FACE_ARCS) != 0) out.flagged = true;
    });
    double tEnd;
    bool unresolved = false;
    if (meridianEnd(task, known, kMeridianPasses, &tEnd, &unresolved) >= 0 || unresolved) out.flagged = true;
    return out;
}

int Tracer::meridianEnd(const FaceTask& task, const int* known, int maxPasses, double* tEnd, bool* unresolved) const {
    *unresolved = false;
    if (!task.bounded) return -1;
    const io::Ball &B = balls_[task.b], &C = balls_[task.c];
    vor_meridian m;
    if (!vor_make_meridian(&m, B.r, C.x - B.x, C.y - B.y, C.z - B.z, C.r, task.top[0] - B.x, task.top[1] - B.y, task.top[2] - B.z))
        return -1;
    const double t0 = task.top[3], tol = 1e-6 * (1 + std::fabs(t0));
    // A ball that intersects the sphere at once beyond the top decides (nothing can come earlier);
    // the face's known balls (those at the top among them) first.
    for (int i = 0; i < task.knownCount; ++i) {
        const io::Ball& L = balls_[known[i]];
        if (vor_meridian_enter(&m, t0, L.x - B.x, L.y - B.y, L.z - B.z, L.r) <= t0 + tol) return -1;
    }
    const double span = grid_.h * (grid_.dims[0] + grid_.dims[1] + grid_.dims[2]) + rmax_;
    double R = initialRadius(t0);
    for (int pass = 0; pass < maxPasses; ++pass) {
        // The balls within R of the top, the first to intersect the sphere beyond it.
        const bool all = R >= span;
        double best = VOR_INF;
        int bestBall = -1;
        grid_.forNear(task.top, all ? kUnboundedRadius : R, [&](int l) {
            if (l == task.b || l == task.c) return;
            const io::Ball& L = balls_[l];
            const double dx = L.x - task.top[0], dy = L.y - task.top[1], dz = L.z - task.top[2];
            if (!all && dx * dx + dy * dy + dz * dz > R * R) return;
            const double e = vor_meridian_enter(&m, t0, L.x - B.x, L.y - B.y, L.z - B.z, L.r);
            if (e < best || (e == best && l < bestBall)) best = e, bestBall = l;
        });
        if (bestBall < 0) {
            if (all) return -1;  // the face runs on to infinity here
            R = 4 * R;
            continue;
        }
        if (best <= t0 + tol) return -1;  // at once: the traced loop bounds the face here
        // Every ball that may touch a sphere of the meridian up to best was offered.
        const double need = vor_meridian_span(&m, t0, best) + best + rmax_;
        if (all || need <= R) {
            *tEnd = best;
            return bestBall;
        }
        R = need;
    }
    *unresolved = true;
    return -1;
}

void Tracer::indexSphere(int id) {
    const Vertex& v = d_.vertices[id];
    const auto cell = [](double x) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(std::floor(x * 1e3)) & 0x1fffff); };
    sphereIndex_.emplace(cell(v.x) | cell(v.y) << 21 | cell(v.z) << 42, id);
}

bool Tracer::knownSphere(const Vertex& v) const {
    // The same sphere within 1e-5 Å (relative above 1 Å), on a grid of 1e-3 Å: this cell and its neighbours.
    const double tol = 1e-5 * std::max(1.0, std::fabs(v.r));
    const std::int64_t cx = static_cast<std::int64_t>(std::floor(v.x * 1e3)), cy = static_cast<std::int64_t>(std::floor(v.y * 1e3)),
                       cz = static_cast<std::int64_t>(std::floor(v.z * 1e3));
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const std::uint64_t key = static_cast<std::uint64_t>((cx + dx) & 0x1fffff) |
                                          static_cast<std::uint64_t>((cy + dy) & 0x1fffff) << 21 |
                                          static_cast<std::uint64_t>((cz + dz) & 0x1fffff) << 42;
                const auto range = sphereIndex_.equal_range(key);
                for (auto it = range.first; it != range.second; ++it) {
                    const Vertex& w = d_.vertices[it->second];
                    if (std::fabs(w.x - v.x) < tol && std::fabs(w.y - v.y) < tol && std::fabs(w.z - v.z) < tol && std::fabs(w.r - v.r) < tol)
                        return true;
                }
            }
    return false;
}

bool Tracer::completeTriple(const int tri[3], const int* known, int knownCount) {
    const vor_frame f = frameOf(tri);
    if (f.kind == 0) return false;
    std::vector<vor_arc> arcs(kHostArcs), tmp(kHostArcs);
    const int n = validArcs(tri, f, kWholeConic, known, knownCount, arcs.data(), tmp.data(), kHostArcs);
    if (n < 0) throw Error("internal error: more than 512 valid arcs on one Voronoi edge");
    const io::Ball& a = balls_[tri[0]];
    if (n == 1 && arcs[0].loEnd == VOR_END_NONE && arcs[0].hiEnd == VOR_END_NONE) {
        // No end: an edge with no vertex, closed (an ellipse) or open both ways.
        const std::array<int, 3> key{tri[0], tri[1], tri[2]};
        if (std::find(vertexless_.begin(), vertexless_.end(), key) != vertexless_.end()) return false;
        vertexless_.push_back(key);
        Edge e;
        std::copy(tri, tri + 3, e.g);
        if (f.kind == 1) {
            e.v0 = e.v1 = -2;
            e.minRadius = f.tc - f.at;
            const double top[3] = {a.x + f.Ax + f.Bx * (f.tc + f.at), a.y + f.Ay + f.By * (f.tc + f.at), a.z + f.Az + f.Bz * (f.tc + f.at)};
            addEdge(e, f.tc + f.at, top);
            ++d_.closedEdges;
        } else {
            e.v0 = e.v1 = -1;
            e.minRadius = vor_open_t(&f, 0);
            const double top[3] = {a.x + f.Ax + f.Bx * e.minRadius, a.y + f.Ay + f.By * e.minRadius, a.z + f.Az + f.Bz * e.minRadius};
            addEdge(e, kUnboundedRadius, top);
            ++d_.freeEdges;
        }
        return false;
    }
    if (!sphereIndexed_) {
        sphereIndexed_ = true;
        for (std::size_t id = 0; id < d_.vertices.size(); ++id) indexSphere(static_cast<int>(id));
    }
    bool seeded = false;
    for (int i = 0; i < n; ++i)
        for (int side = 0; side < 2; ++side) {
            const int l = side ? arcs[i].hiEnd : arcs[i].loEnd;
            if (l < 0) continue;
            double t, s;
            vor_conic_point(&f, side ? arcs[i].hi : arcs[i].lo, &t, &s);
            Vertex v;
            v.x = a.x + f.Ax + f.Bx * t + f.nx * s;
            v.y = a.y + f.Ay + f.By * t + f.ny * s;
            v.z = a.z + f.Az + f.Bz * t + f.nz * s;
            v.r = t;
            v.q[0] = tri[0], v.q[1] = tri[1], v.q[2] = tri[2], v.q[3] = l;
            std::sort(v.q, v.q + 4);
            canonicalSphere(&v);
            if (findVertex(v) >= 0 || knownSphere(v) || v.r > farRadius_) continue;
            const double c3[3] = {v.x, v.y, v.z};
            if (!isEmptySphere(c3, v.r, v.q)) continue;
            bool isNew;
            const int id = vertexOf(v, &isNew);
            if (!isNew) continue;
            pushEdges(id, -1);
            ++d_.passSeeds;
            seeded = true;
        }
    return seeded;
}

bool Tracer::completeFace(const FaceTask& task, const int* known) {
    std::vector<vor_arc> arcs(kHostArcs), tmp(kHostArcs);
    std::vector<std::array<int, 3>> triples;
    // Holes: the triples with a valid point in the window.
    forFaceTriples(task, known, [&](int k) {
        int tri[3] = {task.b, task.c, k};
        std::sort(tri, tri + 3);
        const vor_frame f = frameOf(tri);
        if (!vor_face_triple(&f, task.tau, task.holes, std::min({balls_[tri[0]].r, balls_[tri[1]].r, balls_[tri[2]].r}))) return;
        if (validArcs(tri, f, task.tau, known, task.knownCount, arcs.data(), tmp.data(), kHostArcs) != 0) triples.push_back({tri[0], tri[1], tri[2]});
    });
    // Around: the ball the meridian meets beyond the traced top, with every pass it needs.
    double tEnd;
    bool unresolved;
    const int l = meridianEnd(task, known, 1 << 20, &tEnd, &unresolved);
    if (l >= 0) {
        int tri[3] = {task.b, task.c, l};
        std::sort(tri, tri + 3);
        triples.push_back({tri[0], tri[1], tri[2]});
    }
    bool seeded = false;
    for (const auto& tri : triples) seeded |= completeTriple(tri.data(), known, task.knownCount);
    return seeded;
}

bool Tracer::completePass(const FacePass& pass, const std::vector<FaceScan>& scans) {
    ++d_.passes;
    d_.passFaces += pass.tasks.size();
    bool seeded = false;
    for (std::size_t i = 0; i < pass.tasks.size(); ++i) {
        d_.passTriples += scans[i].triples;
        if (!scans[i].flagged) continue;
        ++d_.passFlagged;
        seeded |= completeFace(pass.tasks[i], pass.known.data() + pass.tasks[i].known0);
    }
    return seeded;
}

}  // namespace portacl::voronoi
