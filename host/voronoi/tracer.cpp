// Edge-tracing bookkeeping: grid, hidden balls, start vertices, edge stack (the vertex dictionary:
// vertex_dictionary.cpp).
#include "voronoi/tracer.hpp"

#include <algorithm>
#include <cmath>

#include "portacl/runtime/error.hpp"
#include "voronoi/prefetch.hpp"
#include "portacl/runtime/host_pool.hpp"

namespace portacl::voronoi {

using namespace geom;

namespace {

// Moves the k smallest of a[0, n) by less (no two equal) into a[0, k), in no particular order: what
// std::nth_element(a, a + k, a + n) leaves there, by a quickselect whose partition has no branch on
// the comparison (the start search's candidates compare at random, which the branches mispredict).
template <typename T, typename Less>
void selectSmallest(T* a, std::size_t n, std::size_t k, Less less) {
    if (k >= n) return;
    std::size_t lo = 0, hi = n;
    while (hi - lo > 16) {
        // The median of the first, middle and last as the pivot, moved to the end.
        const std::size_t mid = lo + (hi - lo) / 2;
        if (less(a[mid], a[lo])) std::swap(a[mid], a[lo]);
        if (less(a[hi - 1], a[mid])) std::swap(a[hi - 1], a[mid]);
        if (less(a[mid], a[lo])) std::swap(a[mid], a[lo]);
        std::swap(a[mid], a[hi - 1]);
        const T pivot = a[hi - 1];
        std::size_t store = lo;
        for (std::size_t i = lo; i + 1 < hi; ++i) {
            const bool below = less(a[i], pivot);
            std::swap(a[i], a[store]);  // [lo, store) below the pivot, [store, i] not
            store += below;
        }
        std::swap(a[store], a[hi - 1]);
        if (store == k || store + 1 == k) return;
        if (store > k) hi = store;
        else lo = store + 1;
    }
    std::sort(a + lo, a + hi, less);
}

}  // namespace

void BallGrid::build(const std::vector<io::Ball>& balls, const std::vector<char>& use, double cellSize) {
    double hi[3] = {-1e300, -1e300, -1e300};
    for (int i = 0; i < 3; ++i) lo[i] = 1e300;
    std::size_t n = 0;
    for (std::size_t b = 0; b < balls.size(); ++b) {
        if (!use[b]) continue;
        const double p[3] = {balls[b].x, balls[b].y, balls[b].z};
        for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], p[i]), hi[i] = std::max(hi[i], p[i]);
        ++n;
    }
    h = cellSize;
    std::size_t cells = 1;
    for (int i = 0; i < 3; ++i) {
        // Cap the grid at about 8 cells per ball.
        const double extent = hi[i] - lo[i];
        dims[i] = std::max(1, static_cast<int>(std::min(extent / h + 1, 2.0 * std::cbrt(8.0 * n) + 1)));
        cells *= dims[i];
    }
    for (int i = 0; i < 3; ++i) h = std::max(h, (hi[i] - lo[i]) / dims[i] * (1 + 1e-9) + 1e-9);
    std::vector<int> cellOf(balls.size(), -1);
    cellStart.assign(cells + 1, 0);
    for (std::size_t b = 0; b < balls.size(); ++b) {
        if (!use[b]) continue;
        const double p[3] = {balls[b].x, balls[b].y, balls[b].z};
        int c[3];
        for (int i = 0; i < 3; ++i) c[i] = std::min(dims[i] - 1, static_cast<int>((p[i] - lo[i]) / h));
        cellOf[b] = (c[2] * dims[1] + c[1]) * dims[0] + c[0];
        ++cellStart[cellOf[b] + 1];
    }
    for (std::size_t c = 0; c < cells; ++c) cellStart[c + 1] += cellStart[c];
    cellBalls.assign(n, 0);
    std::vector<int> fillPos(cellStart.begin(), cellStart.end() - 1);
    for (std::size_t b = 0; b < balls.size(); ++b)
        if (cellOf[b] >= 0) cellBalls[fillPos[cellOf[b]]++] = static_cast<int>(b);
}

Tracer::Tracer(const std::vector<io::Ball>& balls) : balls_(balls) {
    if (balls_.empty()) throw Error("the Voronoi diagram needs at least one ball");
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (const auto& b : balls_) {
        if (!std::isfinite(b.x) || !std::isfinite(b.y) || !std::isfinite(b.z) || !std::isfinite(b.r))
            throw Error("a ball has a non-finite coordinate or radius");
        if (b.r < 0) throw Error("a ball has a negative radius");
        // Squared distances of far tangent spheres (up to 1e6 times the extent) must stay finite and
        // exact enough in double, and the device's first phase squares coordinates in float.
        if (std::fabs(b.x) > kMaxCoordinate || std::fabs(b.y) > kMaxCoordinate || std::fabs(b.z) > kMaxCoordinate || b.r > kMaxRadius)
            throw Error("a ball at (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " + std::to_string(b.z) + ") of radius " +
                        std::to_string(b.r) + " is out of range: coordinates must lie within +-1e6 and radii within [0, 1e4]");
        rmax_ = std::max(rmax_, b.r);
        const double p[3] = {b.x, b.y, b.z};
        for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], p[i]), hi[i] = std::max(hi[i], p[i]);
    }
    farRadius_ = 1e6 * (std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2])) + 1);
    double volume = 1;
    for (int i = 0; i < 3; ++i) volume *= std::max(hi[i] - lo[i], 1e-3);
    const double cell = std::max({2 * rmax_, std::cbrt(volume / balls_.size()), 1e-6});

    // Hidden balls: inside another ball (of two equal balls the later one is hidden).
    active_.assign(balls_.size(), 1);
    covered_.assign(balls_.size(), 0);
    BallGrid all;
    all.build(balls_, active_, cell);
    for (std::size_t i = 0; i < balls_.size(); ++i) {
        const io::Ball& a = balls_[i];
        const double p[3] = {a.x, a.y, a.z};
        all.forNear(p, 2 * rmax_, [&](int j) {
            if (j == static_cast<int>(i) || !active_[i]) return;
            const io::Ball& b = balls_[j];
            const double d = std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
            if (d + a.r < b.r || (d + a.r == b.r && (a.r < b.r || j < static_cast<int>(i)))) active_[i] = 0;
        });
        if (!active_[i]) ++d_.hiddenBalls;
    }
    // With no ball hidden the grid of the active balls is the grid of all of them, made above.
    if (d_.hiddenBalls == 0) grid_ = std::move(all);
    else grid_.build(balls_, active_, cell);
    rmin_ = rmax_;
    for (std::size_t i = 0; i < balls_.size(); ++i)
        if (active_[i]) rmin_ = std::min(rmin_, balls_[i].r);
    // A protein's diagram has about 6 vertices and 12 edges a ball (2JUY: 5.9 and 11.9): room for
    // them at once, not a dozen copies as they grow (a batch makes a tracer per frame).
    const std::size_t n = balls_.size() - static_cast<std::size_t>(d_.hiddenBalls);
    d_.vertices.reserve(6 * n + 16), done_.reserve(6 * n + 16), dictionary_.reserve(6 * n + 16, d_.vertices);
    d_.edges.reserve(12 * n + 32), edgeMax_.reserve(12 * n + 32), edgeTop_.reserve(12 * n + 32);
}

geom::vor_frame Tracer::frameOf(const int tri[3]) const {
    const io::Ball &a = balls_[tri[0]], &b = balls_[tri[1]], &c = balls_[tri[2]];
    return vor_make_frame(a.r, b.x - a.x, b.y - a.y, b.z - a.z, b.r, c.x - a.x, c.y - a.y, c.z - a.z, c.r);
}

void Tracer::startOf(const EdgeTask& task, const vor_frame& f, double* t0, double* s0) const {
    const Vertex& v = d_.vertices[task.from];
    const io::Ball& a = balls_[task.tri[0]];
    *t0 = v.r;
    *s0 = (v.x - a.x) * f.nx + (v.y - a.y) * f.ny + (v.z - a.z) * f.nz;
}

bool Tracer::isEmptySphere(const double p[3], double t, const int q[4]) const {
    const double eps = 1e-9 * (1 + std::fabs(t));
    bool empty = true;
    grid_.forNear(p, t + rmax_, [&](int m) {
        if (!empty || m == q[0] || m == q[1] || m == q[2] || m == q[3]) return;
        const io::Ball& b = balls_[m];
        const double d = std::sqrt((p[0] - b.x) * (p[0] - b.x) + (p[1] - b.y) * (p[1] - b.y) + (p[2] - b.z) * (p[2] - b.z));
        if (d < t + b.r - eps) empty = false;
    });
    return empty;
}

bool Tracer::findStartVertex(int seed, Vertex* out) const {
    const io::Ball& s = balls_[seed];
    const double p[3] = {s.x, s.y, s.z};
    // Kept by each thread for its next call (the starts of a frame run on the pool's threads).
    thread_local std::vector<std::pair<double, int>> near;
    thread_local std::vector<vor_frame> frames;
    thread_local std::vector<char> frameKnown;
    double R = 4 * rmax_ + grid_.h;
    const double span = grid_.h * (grid_.dims[0] + grid_.dims[1] + grid_.dims[2]) + 4 * rmax_;
    for (const int K : {16, 40}) {
        while (true) {
            near.clear();
            grid_.forNear(p, R, [&](int m) {
                if (m == seed) return;
                const io::Ball& b = balls_[m];
                const double d = std::sqrt((s.x - b.x) * (s.x - b.x) + (s.y - b.y) * (s.y - b.y) + (s.z - b.z) * (s.z - b.z));
                near.push_back({d - b.r - s.r, m});
            });
            if (static_cast<int>(near.size()) >= K || R > span) break;
            R *= 2;
        }
        // Only the nearest K are used in order (the candidates), the nearest 64 as a set (the quick
        // emptiness test below).
        const std::size_t used = std::min<std::size_t>(64, near.size());
        // (gap, ball) as std::pair orders them, without branches.
        const auto nearer = [](const std::pair<double, int>& x, const std::pair<double, int>& y) {
            return (x.first < y.first) | ((x.first == y.first) & (x.second < y.second));
        };
        selectSmallest(near.data(), near.size(), used, nearer);
        const int n = std::min<int>(K, static_cast<int>(near.size()));
        // The nearest n in order (a selection and a sort of n: what partial_sort gives, in less time).
        std::nth_element(near.begin(), near.begin() + n, near.begin() + used, nearer);
        std::sort(near.begin(), near.begin() + n, nearer);
        // The frame of the seed with candidates j < k, worked out once (the loops below come back to
        // it for every later fourth ball l).
        frames.resize(static_cast<std::size_t>(n) * (n - 1) / 2);
        frameKnown.assign(frames.size(), 0);
        const auto pairFrame = [&](int j, int k) -> const vor_frame& {
            const std::size_t at = static_cast<std::size_t>(k) * (k - 1) / 2 + j;
            if (!frameKnown[at]) {
                const int tri[3] = {seed, near[j].second, near[k].second};
                frames[at] = frameOf(tri);
                frameKnown[at] = 1;
            }
            return frames[at];
        };
        for (int l = 2; l < n; ++l)
            for (int k = 1; k < l; ++k)
                for (int j = 0; j < k; ++j) {
                    int tri[3] = {seed, near[j].second, near[k].second};
                    const int other = near[l].second;
                    const vor_frame& f = pairFrame(j, k);
                    if (f.kind == 0) continue;
                    const io::Ball& o = balls_[other];
                    double a, b, c, t[2], sv[2], cond;
                    vor_ball_line(&f, o.x - s.x, o.y - s.y, o.z - s.z, o.r, &a, &b, &c);
                    const int m = vor_roots(&f, a, b, c, t, sv, &cond);
                    for (int i = 0; i < m; ++i) {
                        if (t[i] > farRadius_) continue;  // at infinity, as everywhere else
                        Vertex v;
                        v.x = s.x + f.Ax + f.Bx * t[i] + f.nx * sv[i];
                        v.y = s.y + f.Ay + f.By * t[i] + f.ny * sv[i];
                        v.z = s.z + f.Az + f.Bz * t[i] + f.nz * sv[i];
                        v.r = t[i];
                        v.q[0] = seed, v.q[1] = tri[1], v.q[2] = tri[2], v.q[3] = other;
                        const double c3[3] = {v.x, v.y, v.z};
                        // The nearest balls first (they are what usually intersects), then every ball.
                        bool hit = false;
                        const double eps = 1e-9 * (1 + std::fabs(v.r));
                        for (std::size_t m = 0; m < near.size() && m < 64 && !hit; ++m) {
                            const int o2 = near[m].second;
                            if (o2 == tri[1] || o2 == tri[2] || o2 == other) continue;
                            const io::Ball& b = balls_[o2];
                            const double d = std::sqrt((v.x - b.x) * (v.x - b.x) + (v.y - b.y) * (v.y - b.y) + (v.z - b.z) * (v.z - b.z));
                            hit = d < v.r + b.r - eps;
                        }
                        if (hit || !isEmptySphere(c3, v.r, v.q)) continue;
                        std::sort(v.q, v.q + 4);
                        canonicalSphere(&v);
                        *out = v;
                        return true;
                    }
                }
        if (n < K) break;  // every ball was tried already
    }
    return false;
}

void Tracer::canonicalSphere(Vertex* v) const {
    const vor_frame f = frameOf(v->q);
    if (f.kind == 0) return;
    const io::Ball& a = balls_[v->q[0]];
    const io::Ball& o = balls_[v->q[3]];
    double la, lb, lc, t[2], s[2], cond;
    vor_ball_line(&f, o.x - a.x, o.y - a.y, o.z - a.z, o.r, &la, &lb, &lc);
    const int m = vor_roots(&f, la, lb, lc, t, s, &cond);
    double best = 1e300;
    Vertex out = *v;
    for (int i = 0; i < m; ++i) {
        const double x = a.x + f.Ax + f.Bx * t[i] + f.nx * s[i];
        const double y = a.y + f.Ay + f.By * t[i] + f.ny * s[i];
        const double z = a.z + f.Az + f.Bz * t[i] + f.nz * s[i];
        const double d = (x - v->x) * (x - v->x) + (y - v->y) * (y - v->y) + (z - v->z) * (z - v->z) + (t[i] - v->r) * (t[i] - v->r);
        if (d < best) best = d, out.x = x, out.y = y, out.z = z, out.r = t[i];
    }
    // Only a nearby root is the same sphere (a far one is the quadruple's other tangent sphere).
    if (best < 1e-8 * (1 + v->r * v->r)) *v = out;
}

int Tracer::findVertex(const Vertex& v) const { return dictionary_.find(v, d_.vertices); }

int Tracer::vertexOf(const Vertex& v, bool* isNew, std::size_t slot) {
    if (slot == VertexDictionary::kNoSlot) slot = dictionary_.slotOf(v.q, d_.vertices);
    const int known = dictionary_.findAt(slot, v, d_.vertices);
    if (known >= 0) {
        *isNew = false;
        return known;
    }
    const int id = static_cast<int>(d_.vertices.size());
    d_.vertices.push_back(v);
    done_.push_back(0);
    dictionary_.insertAt(slot, id, d_.vertices);
    if (sphereIndexed_) indexSphere(id);
    for (int i = 0; i < 4; ++i) covered_[v.q[i]] = 1;
    *isNew = true;
    return id;
}

void Tracer::addEdge(const Edge& e, double maxRadius, const double top[3]) {
    d_.edges.push_back(e);
    edgeMax_.push_back(maxRadius);
    edgeTop_.push_back({top[0], top[1], top[2]});
}

int Tracer::slotOf(int vertex, int ball) const {
    const Vertex& v = d_.vertices[vertex];
    for (int i = 0; i < 4; ++i)
        if (v.q[i] == ball) return i;
    return -1;
}

void Tracer::pushEdges(int vertex, int arrivedExcluding) {
    for (int i = 0; i < 4; ++i) {
        const Vertex& v = d_.vertices[vertex];
        if (done_[vertex] & (1u << i)) continue;
        if (v.q[i] == arrivedExcluding) {
            done_[vertex] |= static_cast<std::uint8_t>(1u << i);
            continue;
        }
        EdgeTask t;
        t.from = vertex;
        int n = 0;
        for (int j = 0; j < 4; ++j)
            if (j != i) t.tri[n++] = v.q[j];
        t.bs = v.q[i];
        t.searchRadius = initialRadius(v.r);
        pending_.push_back(t);
    }
}

std::vector<int> Tracer::blockSeeds() const {
    // Blocks of B x B x B grid cells; in each, the ball nearest the mean of its balls.
    const int B = std::max(1, static_cast<int>(std::lround(kSeedBlock / grid_.h)));
    int nb[3];
    for (int i = 0; i < 3; ++i) nb[i] = (grid_.dims[i] + B - 1) / B;
    const std::size_t blocks = static_cast<std::size_t>(nb[0]) * nb[1] * nb[2];
    std::vector<double> mean(4 * blocks, 0.0);
    std::vector<std::pair<double, int>> best(blocks, {1e300, -1});
    for (int pass = 0; pass < 2; ++pass)
        for (int z = 0; z < grid_.dims[2]; ++z)
            for (int y = 0; y < grid_.dims[1]; ++y)
                for (int x = 0; x < grid_.dims[0]; ++x) {
                    const int c = (z * grid_.dims[1] + y) * grid_.dims[0] + x;
                    const std::size_t blk = (static_cast<std::size_t>(z / B) * nb[1] + y / B) * nb[0] + x / B;
                    double* m = &mean[4 * blk];
                    for (int j = grid_.cellStart[c]; j < grid_.cellStart[c + 1]; ++j) {
                        const io::Ball& ball = balls_[grid_.cellBalls[j]];
                        if (pass == 0) {
                            m[0] += ball.x, m[1] += ball.y, m[2] += ball.z, m[3] += 1;
                            continue;
                        }
                        const double dx = ball.x - m[0] / m[3], dy = ball.y - m[1] / m[3], dz = ball.z - m[2] / m[3];
                        const double d = dx * dx + dy * dy + dz * dz;
                        if (d < best[blk].first || (d == best[blk].first && grid_.cellBalls[j] < best[blk].second))
                            best[blk] = {d, grid_.cellBalls[j]};
                    }
                }
    std::vector<int> seeds;
    for (const auto& b : best)
        if (b.second >= 0) seeds.push_back(b.second);
    return seeds;
}

bool Tracer::seedNextComponent(HostPool* pool) {
    if (!seeded_) {
        // The first starts: a vertex of one ball of every block, so that the fronts meet after a
        // few waves (a front from one start needs as many waves as the diagram is edges across).
        seeded_ = true;
        const std::vector<int> seeds = blockSeeds();
        std::vector<Vertex> found(seeds.size());
        std::vector<char> ok(seeds.size(), 0);
        const auto search = [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) ok[i] = findStartVertex(seeds[i], &found[i]);
        };
        if (pool) pool->forRange(seeds.size(), 1, search);
        else search(0, seeds.size());
        bool any = false;
        for (std::size_t i = 0; i < seeds.size(); ++i) {
            if (!ok[i]) continue;
            bool isNew;
            const int id = vertexOf(found[i], &isNew);
            if (isNew) pushEdges(id, -1), any = true;
        }
        if (any) return true;
    }
    // Later starts: any ball that is in no vertex yet (another piece of the diagram, if it has one).
    for (; nextSeed_ < balls_.size(); ++nextSeed_) {
        if (!active_[nextSeed_] || covered_[nextSeed_]) continue;
        Vertex v;
        if (findStartVertex(static_cast<int>(nextSeed_), &v)) {
            bool isNew;
            const int id = vertexOf(v, &isNew);
            if (!isNew) continue;
            pushEdges(id, -1);
            return true;
        }
    }
    return false;
}

std::vector<EdgeTask> Tracer::takePending() {
    std::vector<EdgeTask> out;
    out.swap(pending_);
    return out;
}

void Tracer::movePendingTo(std::vector<EdgeTask>& out) {
    out.insert(out.end(), pending_.begin(), pending_.end());
    pending_.clear();
}

EdgeAnswer Tracer::solveSerial(const EdgeTask& task) const {
    const vor_frame f = frameOf(task.tri);
    EdgeAnswer ans;
    if (f.kind == 0) return ans;
    double t0, s0, slope;
    startOf(task, f, &t0, &s0);
    const io::Ball& a = balls_[task.tri[0]];
    const io::Ball& bs = balls_[task.bs];
    const int dir = vor_start_direction(&f, t0, s0, bs.x - a.x, bs.y - a.y, bs.z - a.z, bs.r, &slope);
    vor_search q;
    vor_search_init(&q, vor_param(&f, t0, s0), dir, 1e-9, 1e-9, task.bs);
    const double R = task.searchRadius;
    const Vertex& sv = d_.vertices[task.from];
    const double p[3] = {sv.x, sv.y, sv.z};
    grid_.forNear(p, R, [&](int m) {
        if (m == task.tri[0] || m == task.tri[1] || m == task.tri[2]) return;
        const io::Ball& b = balls_[m];
        const double ex = b.x - sv.x, ey = b.y - sv.y, ez = b.z - sv.z;
        if (ex * ex + ey * ey + ez * ez > R * R) return;
        vor_search_consider(&f, &q, m, b.x - a.x, b.y - a.y, b.z - a.z, b.r);
    });
    // Beyond this radius a search takes every ball.
    const double span = grid_.h * (grid_.dims[0] + grid_.dims[1] + grid_.dims[2]) + rmax_;
    if (q.bestK >= 0) {
        const double need = vor_arc_reach(&f, t0, s0, q.x0, q.bestT, q.bestS, vor_param(&f, q.bestT, q.bestS), dir) + rmax_;
        if (need > R) {
            ans.retryRadius = need < span ? vor_retry_radius(need) : kUnboundedRadius;
            return ans;
        }
        ans.endBall = q.bestK;
    } else if (R != kUnboundedRadius) {
        // Nothing within R: a wider search, then every ball once the grid is covered.
        ans.retryRadius = 4 * R < span ? 4 * R : kUnboundedRadius;
    }
    return ans;
}

std::size_t Tracer::candidateCount(const EdgeTask& t) const {
    const BallGrid& g = grid_;
    if (t.searchRadius == kUnboundedRadius) return g.cellBalls.size();
    const Vertex& v = d_.vertices[t.from];
    const double p[3] = {v.x, v.y, v.z};
    int a[3], b[3];
    for (int i = 0; i < 3; ++i) {
        const double lo = (p[i] - t.searchRadius - g.lo[i]) / g.h, hi = (p[i] + t.searchRadius - g.lo[i]) / g.h;
        a[i] = lo < 0 ? 0 : (lo >= g.dims[i] ? g.dims[i] : static_cast<int>(lo));
        b[i] = hi < 0 ? -1 : (hi >= g.dims[i] - 1 ? g.dims[i] - 1 : static_cast<int>(hi));
    }
    if (a[0] > b[0]) return 0;
    std::size_t count = 0;
    for (int z = a[2]; z <= b[2]; ++z)
        for (int y = a[1]; y <= b[1]; ++y) {
            const int row = (z * g.dims[1] + y) * g.dims[0];
            count += g.cellStart[row + b[0] + 1] - g.cellStart[row + a[0]];
        }
    return count;
}

EdgeAnswer Tracer::solve(const EdgeTask& task) const {
    EdgeTask t = task;
    EdgeAnswer a = solveSerial(t);
    for (int pass = 1; pass < kPasses && a.retryRadius > 0; ++pass) {
        // The device hands retry radii over in float.
        t.searchRadius = a.retryRadius == kUnboundedRadius ? kUnboundedRadius : static_cast<float>(a.retryRadius);
        a = solveSerial(t);
    }
    return a;
}

void Tracer::prefetchTables(std::size_t answers) const {
    dictionary_.prefetch();
    prefetchBytes(d_.vertices.data(), d_.vertices.size() * sizeof(Vertex));
    prefetchBytes(done_.data(), done_.size());
    prefetchBytes(balls_.data(), balls_.size() * sizeof(io::Ball));
    // An answer adds at most an edge, and about half of them a vertex.
    prefetchAppends(d_.edges, answers), prefetchAppends(edgeMax_, answers), prefetchAppends(edgeTop_, answers);
    prefetchAppends(d_.vertices, answers / 2);
}

void Tracer::accept(const EdgeTask& task, const EdgeAnswer& answer) { commit(task, answer, resolve(task, answer)); }

void Tracer::resolveAndCommit(const EdgeTask& task, const EdgeAnswer& answer, std::size_t knownBelow) {
    const int slot = slotOf(task.from, task.bs);
    if (done_[task.from] & (1u << slot)) return commit(task, answer, ResolvedAnswer{});  // commit counts it, reads nothing else
    commit(task, answer, resolve(task, answer, knownBelow));
}

ResolvedAnswer Tracer::resolve(const EdgeTask& task, const EdgeAnswer& answer, std::size_t knownBelow) const {
    ResolvedAnswer r;
    if (answer.retryRadius > 0) return r;
    const vor_frame f = frameOf(task.tri);
    if (f.kind == 0) {
        r.kind = ResolvedAnswer::NoEdge;
        const Vertex& sv = d_.vertices[task.from];
        r.minRadius = r.maxRadius = sv.r;
        r.top[0] = sv.x, r.top[1] = sv.y, r.top[2] = sv.z;
        return r;
    }
    double t0 = 0, s0 = 0, slope;
    startOf(task, f, &t0, &s0);
    r.t0 = t0;
    {
        const Vertex& sv = d_.vertices[task.from];
        r.top[0] = sv.x, r.top[1] = sv.y, r.top[2] = sv.z;
    }
    const io::Ball& a = balls_[task.tri[0]];
    const io::Ball& bs = balls_[task.bs];
    const int dir = vor_start_direction(&f, t0, s0, bs.x - a.x, bs.y - a.y, bs.z - a.z, bs.r, &slope);
    const double x0 = vor_param(&f, t0, s0);
    if (answer.endBall < 0) {
        // Unbounded: the radius shrinks until s = 0 if the edge heads there, then grows for ever.
        r.kind = ResolvedAnswer::Unbounded;
        r.minRadius = (f.kind == 2 && dir * (0 - s0) > 0) ? vor_open_t(&f, 0) : t0;
        r.maxRadius = t0;
        return r;
    }
    // The end vertex, in double, from the chosen ball (the device may have chosen it in float).
    vor_search q;
    vor_search_init(&q, x0, dir, 1e-9, 1e-9, task.bs);
    const io::Ball& k = balls_[answer.endBall];
    vor_search_consider(&f, &q, answer.endBall, k.x - a.x, k.y - a.y, k.z - a.z, k.r);
    if (q.bestK < 0) {
        // The chosen ball has no entering root in double (a float decision gone wrong).
        r.kind = ResolvedAnswer::Redo;
        return r;
    }
    r.kind = ResolvedAnswer::End;
    Vertex& v = r.end;
    v.x = a.x + f.Ax + f.Bx * q.bestT + f.nx * q.bestS;
    v.y = a.y + f.Ay + f.By * q.bestT + f.ny * q.bestS;
    v.z = a.z + f.Az + f.Bz * q.bestT + f.nz * q.bestS;
    v.r = q.bestT;
    v.q[0] = task.tri[0], v.q[1] = task.tri[1], v.q[2] = task.tri[2], v.q[3] = answer.endBall;
    std::sort(v.q, v.q + 4);
    vor_arc_extremes(&f, t0, x0, q.bestT, vor_param(&f, q.bestT, q.bestS), dir, &r.minRadius, &r.maxRadius);
    if (r.maxRadius > std::max(t0, q.bestT)) {
        // The ellipse's top (phi = 0, s = 0) inside the arc.
        r.top[0] = a.x + f.Ax + f.Bx * r.maxRadius, r.top[1] = a.y + f.Ay + f.By * r.maxRadius, r.top[2] = a.z + f.Az + f.Bz * r.maxRadius;
    } else if (q.bestT > t0) {
        r.top[0] = v.x, r.top[1] = v.y, r.top[2] = v.z;
    }
    // What a new vertex needs, worked out here where it runs in parallel, unless the vertex is known
    // already (the dictionary does not change while a wave's answers are resolved).
    r.knownId = findVertex(v);
    r.knownBefore = r.knownId >= 0 && static_cast<std::size_t>(r.knownId) < knownBelow;
    if (r.knownBefore) return r;
    r.canonical = v;
    canonicalSphere(&r.canonical);
    const Vertex& c = r.canonical;
    if (c.r <= farRadius_ && (c.r > 4 * grid_.h || answer.uncertain)) {
        const double c3[3] = {c.x, c.y, c.z};
        r.emptiness = isEmptySphere(c3, c.r, c.q) ? ResolvedAnswer::Empty : ResolvedAnswer::NotEmpty;
        // A float choice that is not the first ball to enter gives a sphere that ball intersects.
        if (answer.uncertain && r.emptiness == ResolvedAnswer::NotEmpty) r.kind = ResolvedAnswer::Redo;
    }
    return r;
}

void Tracer::commit(const EdgeTask& task, const EdgeAnswer& answer, const ResolvedAnswer& r) {
    ++d_.solvedEdges;
    const int slot = slotOf(task.from, task.bs);
    if (done_[task.from] & (1u << slot)) return;  // traced from its other end in the same wave
    if (answer.retryRadius > 0) {
        EdgeTask again = task;
        again.searchRadius = answer.retryRadius;
        pending_.push_back(again);
        return;
    }
    done_[task.from] |= static_cast<std::uint8_t>(1u << slot);
    Edge e;
    e.v0 = task.from;
    e.v1 = -1;
    std::copy(task.tri, task.tri + 3, e.g);
    switch (r.kind) {
        case ResolvedAnswer::Retry:
            return;  // not reached: retries are handled above
        case ResolvedAnswer::NoEdge:
        case ResolvedAnswer::Unbounded:
            e.minRadius = r.minRadius;
            addEdge(e, r.maxRadius, r.top);
            return;
        case ResolvedAnswer::Redo: {
            // Searched again serially in double.
            done_[task.from] &= static_cast<std::uint8_t>(~(1u << slot));
            ++d_.redoneOnHost;
            EdgeTask exact = task;
            exact.searchRadius = initialRadius(r.t0);
            EdgeAnswer ans = solveSerial(exact);
            while (ans.retryRadius > 0) exact.searchRadius = ans.retryRadius, ans = solveSerial(exact);
            --d_.solvedEdges;
            accept(exact, ans);
            return;
        }
        case ResolvedAnswer::End:
            break;
    }
    const int endBall = answer.endBall;
    // A vertex found before keeps its coordinates; a new one gets them from its quadruple. One probe
    // of the dictionary serves both of a new vertex's look-ups (the end as found, then canonical).
    const std::size_t quadSlot = r.knownId >= 0 ? VertexDictionary::kNoSlot : dictionary_.slotOf(r.end.q, d_.vertices);
    const int known = r.knownId >= 0 ? r.knownId : dictionary_.findAt(quadSlot, r.end, d_.vertices);
    if (known >= 0) {
        e.v1 = known;
        e.minRadius = r.minRadius;
        addEdge(e, r.maxRadius, r.top);
        done_[known] |= static_cast<std::uint8_t>(1u << slotOf(known, endBall));
        return;
    }
    if (r.knownBefore) {
        // Known at resolve time but not now: impossible, as vertices are never removed.
        throw Error("internal error: a Voronoi vertex left the dictionary");
    }
    const Vertex& v = r.canonical;
    if (v.r > farRadius_) {
        // Tangent to (nearly) coplanar balls on the hull: at this size a sphere cannot be told from
        // a plane in double, so the edge counts as unbounded.
        ++d_.unresolvedEdges;
        e.minRadius = r.t0;
        addEdge(e, r.t0, r.top);
        return;
    }
    if (v.r > 4 * grid_.h) {
        // Large spheres (the hull) are where near-coplanar balls make the solve lose digits: a sphere
        // that is not empty in double is not accepted; the edge is recorded as unbounded.
        const double c3[3] = {v.x, v.y, v.z};
        const bool empty = r.emptiness == ResolvedAnswer::Unchecked ? isEmptySphere(c3, v.r, v.q) : r.emptiness == ResolvedAnswer::Empty;
        if (!empty) {
            ++d_.unresolvedEdges;
            e.minRadius = r.t0;
            addEdge(e, r.t0, r.top);
            return;
        }
    }
    bool isNew;
    const int id = vertexOf(v, &isNew, quadSlot);
    e.v1 = id;
    e.minRadius = r.minRadius;
    addEdge(e, r.maxRadius, r.top);
    if (isNew) {
        pushEdges(id, endBall);
    } else {
        const int s = slotOf(id, endBall);
        done_[id] |= static_cast<std::uint8_t>(1u << s);
    }
}

Diagram Tracer::finish() {
    // Connected pieces of the vertex-edge graph (union-find over the edges between vertices).
    std::vector<int> parent(d_.vertices.size());
    for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
    const auto root = [&](int v) {
        while (parent[v] != v) v = parent[v] = parent[parent[v]];
        return v;
    };
    for (const Edge& e : d_.edges)
        if (e.v0 >= 0 && e.v1 >= 0) parent[root(e.v0)] = root(e.v1);
    d_.components = static_cast<int>(vertexless_.size());  // an edge with no vertex is a piece of its own
    for (std::size_t i = 0; i < parent.size(); ++i) d_.components += root(static_cast<int>(i)) == static_cast<int>(i);
    return std::move(d_);
}

}  // namespace portacl::voronoi
