// Geometry of one edge of the additively weighted Voronoi diagram of balls, shared word for word by
// the OpenCL kernel (cl/voronoi.cl, REAL = float or double) and the host (host/voronoi/, double), so
// that the device and the serial reference take the same decisions.
//
// An edge is the locus of centres of spheres tangent (from outside) to three balls g1, g2, g3. With
// c1 the centre of g1 as origin and t the radius of the tangent sphere, the centre is
//     p = A + B t + s n        (n: unit normal of the plane of the three centres)
// where s and t satisfy the conic  s^2 = q(t) = Q2 t^2 + Q1 t + Q0.  Q2 < 0: an ellipse (a closed edge);
// otherwise the branch of larger t of a hyperbola or parabola (an open edge, unbounded both ways).
// A fourth ball k is tangent where the line  a t + b s = c  meets the conic, and g_k = a t + b s - c is
// positive exactly where k intersects the tangent sphere. Positions along the edge: the angle phi of
// the ellipse, or s on an open edge.
#ifndef PORTACL_VORONOI_GEOMETRY_H
#define PORTACL_VORONOI_GEOMETRY_H

// The host (host/voronoi/, tests/) compiles the same code as C++ in double, inside
// portacl::voronoi::geom; OpenCL C (no __cplusplus) takes `real` from common/real.h.
#if defined(__cplusplus) && !defined(__OPENCL_VERSION__)
#define PORTACL_VORONOI_GEOMETRY_HOST 1
#include <cmath>
namespace portacl::voronoi::geom {
using std::acos;
using std::atan2;
using std::ceil;
using std::cos;
using std::fabs;
using std::fmax;
using std::fmin;
using std::fmod;
using std::round;
using std::sin;
using std::sqrt;
typedef double real;
#endif

#define VOR_FN static inline
// Relative rounding below which a discriminant counts as zero.
#define VOR_ROOT_TOL ((real)(sizeof(real) == 8 ? 1e-12 : 1e-5))
// The precision's machine epsilon.
#define VOR_EPS ((real)(sizeof(real) == 8 ? 2.220446049250313e-16 : 1.1920929e-7))
#define VOR_TWO_PI ((real)6.283185307179586476925286766559)

typedef struct {
    real Ax, Ay, Az, Bx, By, Bz, nx, ny, nz;  // relative to c1
    real r1, rmax3;                           // radius of g1, largest radius of the three
    real Q2, Q1, Q0;
    real tc, at, as;                          // ellipse: centre in t, semi-axes in t and s
    real gram;                                // sin^2 of the angle between c2-c1 and c3-c1 (conditioning)
    int kind;                                 // 0: no edge, 1: ellipse, 2: open
} vor_frame;

// (x, y, z, r) of a ball relative to c1.
VOR_FN vor_frame vor_make_frame(real r1, real d2x, real d2y, real d2z, real r2, real d3x, real d3y, real d3z, real r3) {
    vor_frame f;
    f.kind = 0;
    f.r1 = r1;
    f.rmax3 = fmax(r1, fmax(r2, r3));
    const real g22 = d2x * d2x + d2y * d2y + d2z * d2z;
    const real g33 = d3x * d3x + d3y * d3y + d3z * d3z;
    const real g23 = d2x * d3x + d2y * d3y + d2z * d3z;
    const real det = g22 * g33 - g23 * g23;
    f.gram = (g22 > 0 && g33 > 0) ? det / (g22 * g33) : (real)0;
    f.Ax = f.Ay = f.Az = f.Bx = f.By = f.Bz = f.nx = f.ny = f.nz = 0;
    f.Q2 = f.Q1 = f.Q0 = f.tc = f.at = f.as = 0;
    if (!(f.gram > (real)1e-12)) return f;  // collinear centres: no conic
    const real e2 = (g22 - r2 * r2 + r1 * r1) * (real)0.5, e3 = (g33 - r3 * r3 + r1 * r1) * (real)0.5;
    const real f2 = r1 - r2, f3 = r1 - r3;
    const real aA = (e2 * g33 - e3 * g23) / det, bA = (e3 * g22 - e2 * g23) / det;
    const real aB = (f2 * g33 - f3 * g23) / det, bB = (f3 * g22 - f2 * g23) / det;
    f.Ax = aA * d2x + bA * d3x; f.Ay = aA * d2y + bA * d3y; f.Az = aA * d2z + bA * d3z;
    f.Bx = aB * d2x + bB * d3x; f.By = aB * d2y + bB * d3y; f.Bz = aB * d2z + bB * d3z;
    real nx = d2y * d3z - d2z * d3y, ny = d2z * d3x - d2x * d3z, nz = d2x * d3y - d2y * d3x;
    const real nl = sqrt(nx * nx + ny * ny + nz * nz);
    f.nx = nx / nl; f.ny = ny / nl; f.nz = nz / nl;
    const real AB = f.Ax * f.Bx + f.Ay * f.By + f.Az * f.Bz;
    const real AA = f.Ax * f.Ax + f.Ay * f.Ay + f.Az * f.Az;
    const real BB = f.Bx * f.Bx + f.By * f.By + f.Bz * f.Bz;
    f.Q2 = 1 - BB;
    f.Q1 = 2 * (r1 - AB);
    f.Q0 = r1 * r1 - AA;
    if (f.Q2 < 0) {
        const real K = f.Q0 - f.Q1 * f.Q1 / (4 * f.Q2);
        if (!(K > 0)) return f;
        f.tc = -f.Q1 / (2 * f.Q2);
        f.at = sqrt(K / -f.Q2);
        f.as = sqrt(K);
        f.kind = 1;
    } else {
        // Hyperbola opening along s (min q > 0) or a parabola opening to smaller t: only spheres
        // tangent from inside, no edge.
        if (f.Q2 > 0 && f.Q0 - f.Q1 * f.Q1 / (4 * f.Q2) > 0) return f;
        if (f.Q2 == 0 && !(f.Q1 > 0)) return f;
        f.kind = 2;
    }
    return f;
}

// Position along the edge of a conic point.
VOR_FN real vor_param(const vor_frame* f, real t, real s) {
    return f->kind == 1 ? atan2(s / f->as, (t - f->tc) / f->at) : s;
}

// Tangent of the conic at (t, s) towards increasing position.
VOR_FN void vor_tangent(const vor_frame* f, real t, real s, real* dt, real* ds) {
    if (f->kind == 1) {
        *dt = -f->at * s / f->as;
        *ds = f->as * (t - f->tc) / f->at;
    } else {
        *dt = 2 * s;
        *ds = 2 * f->Q2 * t + f->Q1;
    }
}

// The line a t + b s = c of a fourth ball (relative centre d, radius rk), in any real type: real, or
// a vector of several balls (vor_hull_gap).
#define VOR_BALL_LINE(f, dx, dy, dz, rk, a, b, c)                                                        \
    ((a) = (f)->Bx * (dx) + (f)->By * (dy) + (f)->Bz * (dz) - ((f)->r1 - (rk)),                           \
     (b) = (f)->nx * (dx) + (f)->ny * (dy) + (f)->nz * (dz),                                              \
     (c) = ((dx) * (dx) + (dy) * (dy) + (dz) * (dz) - (rk) * (rk) + (f)->r1 * (f)->r1) * (real)0.5 -        \
           ((f)->Ax * (dx) + (f)->Ay * (dy) + (f)->Az * (dz)))
VOR_FN void vor_ball_line(const vor_frame* f, real dx, real dy, real dz, real rk, real* a, real* b, real* c) {
    VOR_BALL_LINE(f, dx, dy, dz, rk, *a, *b, *c);
}

// The (up to two) valid points where the ball's line meets the edge's conic. Returns how many;
// *cond gets |discriminant| relative to its terms (small: nearly a double root, ill-conditioned).
VOR_FN int vor_roots(const vor_frame* f, real a, real b, real c, real* t, real* s, real* cond) {
    *cond = 0;
    const real L2 = a * a + b * b;
    // A line further than 1e12 Å from the frame's origin is rounding, not a ball (four equal balls with
    // coplanar centres have a line a = 0, b ~ 1e-16): its roots would be spheres of radius 1e13 or more,
    // far beyond any vertex the tracer keeps (1e6 times the balls' extent).
    if (!(L2 > 0) || c * c > (real)1e24 * L2) return 0;
    const real L = sqrt(L2);
    const real t0 = a * c / L2, s0 = b * c / L2;
    const real dt = -b / L, ds = a / L;
    const real qa = ds * ds - f->Q2 * dt * dt;
    const real qb = 2 * (s0 * ds - f->Q2 * t0 * dt) - f->Q1 * dt;
    const real qc = s0 * s0 - f->Q2 * t0 * t0 - f->Q1 * t0 - f->Q0;
    real lam[2];
    int n = 0;
    const real scale = fabs(qb * qb) + fabs(4 * qa * qc);
    // A negligible qa leaves one root. In double, negligible means within qa's own rounding: measured
    // against qb and qc instead, a large qc (a far root, e.g. a hull vertex of radius 1e6 on a nearly
    // flat face) made qa look negligible and the vertex was lost. Float cannot place such a far root:
    // *cond = -1 says one may exist (the search is then flagged for double).
    const int isDouble = sizeof(real) == 8;
    // qa's rounding: its terms', and Q2's, whose B carries rounding growing as 1/gram.
    const real qaErr = 16 * VOR_EPS * (ds * ds + fabs(f->Q2) * dt * dt + 2 * (1 - f->Q2) * dt * dt * (1 + 1 / fmax(f->gram, VOR_EPS)));
    if (isDouble ? fabs(qa) <= qaErr
                 : fabs(qa) <= (real)1e-12 * (fabs(qb) + fabs(qc))) {
        if (qb == 0) return 0;
        lam[n++] = -qc / qb;
        *cond = !isDouble && qa != 0 ? -1 : 1;
    } else {
        const real disc = qb * qb - 4 * qa * qc;
        // The size of the terms behind qb and qc: a discriminant below rounding of these is a double
        // root (a ball touching the edge where it is tangent to it), not a miss.
        const real bs = 2 * (fabs(s0 * ds) + fabs(f->Q2 * t0 * dt)) + fabs(f->Q1 * dt);
        const real cs = s0 * s0 + fabs(f->Q2) * t0 * t0 + fabs(f->Q1 * t0) + fabs(f->Q0);
        const real tol = VOR_ROOT_TOL * (bs * bs + 4 * fabs(qa) * cs);
        if (disc < -tol) {
            *cond = scale > 0 ? -disc / scale : 0;
            return 0;
        }
        if (disc <= tol) {
            lam[n++] = -qb / (2 * qa);
        } else {
            *cond = scale > 0 ? disc / scale : 0;
            const real sq = sqrt(disc);
            const real q = -(real)0.5 * (qb + (qb >= 0 ? sq : -sq));  // no cancellation
            lam[n++] = q / qa;
            if (q != 0) lam[n++] = qc / q;
        }
    }
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const real tt = t0 + lam[i] * dt, ss = s0 + lam[i] * ds;
        if (!(tt + f->rmax3 > 0)) continue;                             // tangent from inside
        if (f->kind == 2 && f->Q2 > 0 && tt < -f->Q1 / (2 * f->Q2)) continue;  // the other branch
        t[m] = tt;
        s[m] = ss;
        ++m;
    }
    return m;
}

// Travel distance from position x0 to x in direction dir (+1 or -1); on an ellipse in [0, 2 pi).
VOR_FN real vor_travel(const vor_frame* f, real x0, real x, int dir) {
    real d = dir > 0 ? x - x0 : x0 - x;
    if (f->kind == 1) {
        d = fmod(d, VOR_TWO_PI);
        if (d < 0) d += VOR_TWO_PI;
    }
    return d;
}

// Radius of the tangent sphere at position x of an open edge (the branch of larger t).
VOR_FN real vor_open_t(const vor_frame* f, real s) {
    const real C = f->Q0 - s * s;
    if (f->Q2 == 0) return -C / f->Q1;
    const real disc = fmax(f->Q1 * f->Q1 - 4 * f->Q2 * C, (real)0);
    const real sq = sqrt(disc);
    return f->Q1 > 0 ? -2 * C / (f->Q1 + sq) : (-f->Q1 + sq) / (2 * f->Q2);
}

// Largest and smallest tangent-sphere radius on the arc from (t0, x0) travelling dir to (t1, x1).
VOR_FN void vor_arc_extremes(const vor_frame* f, real t0, real x0, real t1, real x1, int dir, real* tmin, real* tmax) {
    *tmin = fmin(t0, t1);
    *tmax = fmax(t0, t1);
    if (f->kind == 1) {
        // t = tc + at cos(phi): largest at phi = 0, smallest at phi = pi.
        const real len = vor_travel(f, x0, x1, dir);
        if (vor_travel(f, x0, (real)0, dir) <= len) *tmax = f->tc + f->at;
        if (vor_travel(f, x0, VOR_TWO_PI * (real)0.5, dir) <= len) *tmin = f->tc - f->at;
    } else if ((x0 <= 0 && x1 >= 0) || (x0 >= 0 && x1 <= 0)) {
        *tmin = vor_open_t(f, 0);
    }
}

// How far from the start vertex's centre a ball touching some sphere of the arc from (t0, s0, x0) to
// (t1, s1, x1) can lie, less that ball's radius: every centre p(x) is within |B| |t - t0| + |s - s0|
// of the start centre and every radius is at most the arc's largest.
VOR_FN real vor_arc_reach(const vor_frame* f, real t0, real s0, real x0, real t1, real s1, real x1, int dir) {
    real tmin, tmax;
    vor_arc_extremes(f, t0, x0, t1, x1, dir, &tmin, &tmax);
    real smin = fmin(s0, s1), smax = fmax(s0, s1);
    if (f->kind == 1) {
        // s = as sin(phi): largest at phi = pi/2, smallest at -pi/2.
        const real len = vor_travel(f, x0, x1, dir);
        if (vor_travel(f, x0, VOR_TWO_PI * (real)0.25, dir) <= len) smax = f->as;
        if (vor_travel(f, x0, -VOR_TWO_PI * (real)0.25, dir) <= len) smin = -f->as;
    }
    const real b = sqrt(fmax(1 - f->Q2, (real)0));
    return b * (tmax - tmin) + fmax(smax - s0, s0 - smin) + tmax;
}

// The radius to search again with when the arc needs `need`: rounded up to 1/16 Å (with at least
// 1/32 Å to spare), so that float and double ask for the same radius and trace in the same waves.
VOR_FN real vor_retry_radius(real need) { return ceil(need * 16 + (real)0.5) / 16; }
// Whether need is so close to a rounding step of vor_retry_radius that float may round it otherwise.
VOR_FN int vor_retry_ambiguous(real need, real tol) {
    const real x = need * 16 + (real)0.5;
    return fabs(x - round(x)) < tol * (1 + x);
}

// The search for an edge's end: the first ball that starts to intersect the tangent sphere as it moves
// along the edge from the start vertex (the least travel among "entering" roots).
typedef struct {
    real x0;          // start position
    int dir;          // travel direction (+1: increasing position)
    real tieEps;      // travel below this counts as 0 (a ball tangent to the start sphere: degenerate vertex)
    real grazeTol;    // |dg/dx| below this (relative) is a grazing root: decided by a probe step
    int grazed;       // a root was within grazeTol of a decision (grazing, near-miss, near the start):
                      // float cannot be trusted with this search
    real best, second;
    real bestT, bestS, bestCond;
    int bestK;
    int startBall;    // the start vertex's fourth ball: its root at the start is not an end
    real uLow;        // the least travel a root placed worse than grazeTol may have (vor_search_consider)
} vor_search;

VOR_FN void vor_search_init(vor_search* q, real x0, int dir, real tieEps, real grazeTol, int startBall) {
    q->startBall = startBall;
    q->x0 = x0;
    q->dir = dir;
    q->tieEps = tieEps;
    q->grazeTol = grazeTol;
    q->grazed = 0;
    q->best = q->second = (real)1e30;
    q->bestT = q->bestS = 0;
    q->bestCond = 1;
    q->bestK = -1;
    q->uLow = (real)1e30;
}

// Offers ball k (centre relative to c1, radius rk).
VOR_FN void vor_search_consider(const vor_frame* f, vor_search* q, int k, real dx, real dy, real dz, real rk) {
    real a, b, c, t[2], s[2], cond;
    vor_ball_line(f, dx, dy, dz, rk, &a, &b, &c);
    // Rounding bounds of the ball's line: of c, a and b (their terms; the frame's A and B carry
    // rounding growing as 1/gram, its n as 1/sqrt(gram)). g = a t + b s - c at a root (t, s) is off by up to
    // ec + ea |t| + eb |s|, which moves the root by that over |dg/dx|. A ball that stays nearly tangent
    // along the whole edge (equal balls of an aromatic ring, all on one circle) has a line of tiny a
    // and b whose roots float cannot place (2JUY model 18: a ring atom's root 6e-4 after the end
    // ball's in double, put 3e-3 before it in float): such a root that may come first flags the search
    // (vor_search.uLow). 16 epsilon: twice the largest error seen (2JUY, float against double).
    const real ig = 1 / fmax(f->gram, VOR_EPS), u = 16 * VOR_EPS;
    const real ec = u * ((dx * dx + dy * dy + dz * dz + rk * rk + f->r1 * f->r1) * (real)0.5 +
                         (1 + ig) * (fabs(f->Ax * dx) + fabs(f->Ay * dy) + fabs(f->Az * dz)));
    const real ea = u * ((1 + ig) * (fabs(f->Bx * dx) + fabs(f->By * dy) + fabs(f->Bz * dz)) + fabs(f->r1) + fabs(rk));
    const real eb = u * (1 + sqrt(ig)) * (fabs(f->nx * dx) + fabs(f->ny * dy) + fabs(f->nz * dz));
    const int m = vor_roots(f, a, b, c, t, s, &cond);
    if (m == 0 && cond < q->grazeTol) q->grazed = 1;  // nearly touches the edge
    if (cond < 0) q->grazed = 1;                      // a far root float cannot place
    for (int i = 0; i < m; ++i) {
        real dt, ds;
        vor_tangent(f, t[i], s[i], &dt, &ds);
        const real g = (real)q->dir * (a * dt + b * ds);
        const real gn = sqrt((a * a + b * b) * (dt * dt + ds * ds));
        // The root's position error (angle on an ellipse, s on an open edge) and g's slope's.
        const real shift = ec + ea * fabs(t[i]) + eb * fabs(s[i]);
        const real err = fabs(g) > 0 ? shift * (f->kind == 1 ? 1 : fabs(ds)) / fabs(g) : (real)1e30;
        if (!(g > q->grazeTol * gn)) {
            if (!(g >= -q->grazeTol * gn)) {  // leaving: not an end
                if (ea * fabs(dt) + eb * fabs(ds) > -g) q->grazed = 1;  // unless float has the slope's sign wrong
                continue;
            }
            // Grazing (a double root, e.g. a fifth ball on the sphere where the edge is narrowest):
            // the ball ends the edge if it intersects the sphere a small step further on.
            q->grazed = 1;
            const real h = (real)1e-4 * (1 + fabs(vor_param(f, t[i], s[i])));
            real tp, sp;
            if (f->kind == 1) {
                const real phi = vor_param(f, t[i], s[i]) + (real)q->dir * h;
                tp = f->tc + f->at * cos(phi);
                sp = f->as * sin(phi);
            } else {
                sp = s[i] + (real)q->dir * h;
                tp = vor_open_t(f, sp);
            }
            if (!(a * tp + b * sp - c > 0)) continue;
        }
        real d = vor_travel(f, q->x0, vor_param(f, t[i], s[i]), q->dir);
        if (f->kind == 1 && d > VOR_TWO_PI - q->grazeTol) q->grazed = 1;
        if (f->kind == 1 && d > VOR_TWO_PI - q->tieEps) d -= VOR_TWO_PI;
        if (err > (real)0.5 * q->grazeTol * (f->kind == 2 ? 1 + fabs(s[i]) : 1) && d + err >= -q->tieEps) {
            // Placed worse than the tolerance, and maybe ahead of the start: it may come first.
            const real lo = (f->kind == 1 && d + err > VOR_TWO_PI) ? d - VOR_TWO_PI - err : d - err;
            q->uLow = fmin(q->uLow, lo);
        }
        if (d < -q->tieEps) {
            // Just behind the start (relative to the position on an open edge: far out on a hull
            // edge, float's positions carry an error in proportion).
            if (d > -q->grazeTol * (f->kind == 2 ? 1 + fabs(q->x0) : 1)) q->grazed = 1;
            continue;
        }
        if (d < q->tieEps) {
            if (k == q->startBall) continue;  // the start vertex itself
            d = 0;
        }
        if (d < q->best || (d == q->best && k < q->bestK)) {
            q->second = q->best;
            q->best = d;
            q->bestK = k;
            q->bestT = t[i];
            q->bestS = s[i];
            q->bestCond = cond;
        } else if (d < q->second) {
            q->second = d;
        }
    }
}

// Merges search b (the same edge, other balls) into a: the result is what one search offered the
// balls of both would hold, in any order (least travel, ties to the lower ball index; second = the
// second least travel of all), so a search can be split over several work-items.
VOR_FN void vor_search_merge(vor_search* a, const vor_search* b) {
    if (b->best < a->best || (b->best == a->best && b->bestK < a->bestK)) {
        a->second = fmin(a->best, b->second);
        a->best = b->best;
        a->bestK = b->bestK;
        a->bestT = b->bestT;
        a->bestS = b->bestS;
        a->bestCond = b->bestCond;
    } else {
        a->second = fmin(a->second, b->best);
    }
    a->grazed |= b->grazed;
    a->uLow = fmin(a->uLow, b->uLow);
}

// Pruning by the best found so far. In the (t, s) plane of the frame a ball's roots are where its
// line g = a t + b s - c = 0 meets the conic; the arc from the start P0 = (t0, s0) to the best P1
// (travel `best`) is convex and, while it turns by less than half a turn, lies in the triangle of P0,
// P1 and the meeting point T of its tangents there. A line with g below -margin at the three corners
// misses the triangle, so the ball has no root on the arc: it can neither come before the best nor
// tie with it. The margin (relative to g's terms) covers the rounding of the line (growing as 1/gram
// with the frame's A and B), of roots near a tangency (the square root of the line's error), and of
// P0 and P1 themselves. Only the best is kept exact: the flags' bookkeeping (second, uLow, grazed)
// sees fewer balls, so only searches without flags (double) may prune.
typedef struct {
    real t[3], s[3];  // P0, T, P1
    real tm, sm;      // the largest |t| and |s| of the corners
    int usable;       // a best exists and its arc turns by less than half a turn
} vor_hull;

VOR_FN vor_hull vor_search_hull(const vor_frame* f, const vor_search* q, real t0, real s0) {
    vor_hull h;
    h.usable = 0;
    h.tm = h.sm = 0;
    h.t[0] = t0, h.s[0] = s0;
    h.t[2] = q->bestT, h.s[2] = q->bestS;
    h.t[1] = h.s[1] = 0;
    if (q->bestK < 0) return h;
    real u0t, u0s, u1t, u1s;
    vor_tangent(f, t0, s0, &u0t, &u0s);
    vor_tangent(f, q->bestT, q->bestS, &u1t, &u1s);
    u0t *= q->dir, u0s *= q->dir, u1t *= q->dir, u1s *= q->dir;  // in the travel direction
    // T = P0 + al u0 = P1 - be u1.
    const real det = u0t * u1s - u0s * u1t;
    const real pt = q->bestT - t0, ps = q->bestS - s0;
    const real al = (pt * u1s - ps * u1t) / det, be = (u0t * ps - u0s * pt) / det;
    // Both ahead (al, be >= 0): less than half a turn; parallel tangents (det 0) give no triangle.
    if (!(det != 0 && al >= 0 && be >= 0 && al < (real)1e30 && be < (real)1e30)) return h;
    h.t[1] = t0 + al * u0t, h.s[1] = s0 + al * u0s;
    for (int i = 0; i < 3; ++i) h.tm = fmax(h.tm, fabs(h.t[i])), h.sm = fmax(h.sm, fabs(h.s[i]));
    h.usable = 1;
    return h;
}

// Balls tested at once by vor_hull_gap: one on the host, four in the kernels (explicit vectors, which
// CPU compilers without a loop vectorizer still run as vector code).
#ifdef PORTACL_VORONOI_GEOMETRY_HOST
typedef real vor_lanes;
#else
typedef real4 vor_lanes;
#endif

// The largest g of the ball (centre relative to c1, radius rk) at the hull's corners plus the
// margin: below 0, the ball has no root on the arc (for a usable hull).
VOR_FN vor_lanes vor_hull_gap(const vor_frame* f, const vor_hull* h, vor_lanes dx, vor_lanes dy, vor_lanes dz, vor_lanes rk) {
    vor_lanes a, b, c;
    VOR_BALL_LINE(f, dx, dy, dz, rk, a, b, c);
    const vor_lanes margin = (real)1e-5 * (1 + 1 / fmax(f->gram, VOR_EPS)) * (1 + fabs(c) + fabs(a) * h->tm + fabs(b) * h->sm);
    const vor_lanes g0 = a * h->t[0] + b * h->s[0] - c, g1 = a * h->t[1] + b * h->s[1] - c, g2 = a * h->t[2] + b * h->s[2] - c;
    return fmax(g0, fmax(g1, g2)) + margin;
}

// The start of an edge: its position and the direction away from the start ball b_s (whose
// g decreases), from the start sphere's (t, s). *slope gets |dg/dx| relative (small: ill-conditioned).
VOR_FN int vor_start_direction(const vor_frame* f, real t0, real s0, real dx, real dy, real dz, real rs, real* slope) {
    real a, b, c, dt, ds;
    vor_ball_line(f, dx, dy, dz, rs, &a, &b, &c);
    vor_tangent(f, t0, s0, &dt, &ds);
    const real g = a * dt + b * ds;
    const real norm = sqrt((a * a + b * b) * (dt * dt + ds * ds));
    *slope = norm > 0 ? fabs(g) / norm : 0;
    return g > 0 ? -1 : 1;
}

// ---- The completeness pass (docs/voronoi.md, "Completeness pass"): the valid arcs of an edge's conic,
// the points whose tangent sphere no other ball intersects, as a list of arcs [lo, hi] of positions
// (the angle on an ellipse, s on an open edge). Each end names what ends the arc there: a ball (the
// arc ends where that ball starts to intersect the sphere: a vertex), or one of these.
#define VOR_END_NONE (-1)    // no end: the full ellipse, or an open edge running to infinity
#define VOR_END_WINDOW (-2)  // the window's cut (tangent spheres up to radius tau)
// A window radius at least this large takes the whole conic.
#define VOR_WHOLE ((real)1e29)
#define VOR_INF ((real)1e30)
// Arcs shorter than this (angle; relative on an open edge) are rounding noise at a degenerate vertex.
#define VOR_ARC_TOL ((real)(sizeof(real) == 8 ? 1e-10 : 1e-5))
// Valid arcs the device's filter holds per conic (more: the face goes to the exact host step).
#define VOR_FACE_ARCS 8

typedef struct {
    real lo, hi;  // ellipse: lo in [0, 2 pi), lo <= hi <= lo + 2 pi; open: lo <= hi, +-VOR_INF at the ends
    int loEnd, hiEnd;
} vor_arc;

// The part of the conic whose tangent spheres have radius t <= tau, as 0 or 1 arc. rmin3: the smallest
// radius of the three balls (an ellipse whose spheres would have t < -rmin3 is tangent from inside:
// no edge). *tlo and *thi: the window's range of t, *smax: of |s| (for its bounding sphere).
VOR_FN int vor_window(const vor_frame* f, real tau, real rmin3, vor_arc* w, real* tlo, real* thi, real* smax) {
    if (f->kind == 1) {
        if (!(f->tc + rmin3 > 0) || f->tc - f->at > tau) return 0;
        *tlo = f->tc - f->at;
        *smax = f->as;
        if (tau >= VOR_WHOLE || f->tc + f->at <= tau) {
            w->lo = 0, w->hi = VOR_TWO_PI, w->loEnd = w->hiEnd = VOR_END_NONE;
            *thi = f->tc + f->at;
            return 1;
        }
        // cos(phi) <= (tau - tc) / at: an arc around phi = pi, where t is smallest.
        const real p = acos((tau - f->tc) / f->at);
        w->lo = p, w->hi = VOR_TWO_PI - p, w->loEnd = w->hiEnd = VOR_END_WINDOW;
        *thi = tau;
        return 1;
    }
    if (f->kind != 2) return 0;
    const real ta = vor_open_t(f, 0);  // the bottleneck, at s = 0; t grows with |s|
    if (ta > tau) return 0;
    *tlo = ta;
    if (tau >= VOR_WHOLE) {
        w->lo = -VOR_INF, w->hi = VOR_INF, w->loEnd = w->hiEnd = VOR_END_NONE;
        *thi = *smax = VOR_INF;
        return 1;
    }
    const real sw = sqrt(fmax(f->Q2 * tau * tau + f->Q1 * tau + f->Q0, (real)0));
    w->lo = -sw, w->hi = sw, w->loEnd = w->hiEnd = VOR_END_WINDOW;
    *thi = tau;
    *smax = sw;
    return 1;
}

// Whether the conic of three balls (relative centres d2, d3 of the second and third) is an ellipse
// (|B| > 1, Q2 < 0), without the frame: |B|^2 = (f2^2 g33 - 2 f2 f3 g23 + f3^2 g22) / det. The
// completeness pass's cheap test before it builds the frame.
VOR_FN int vor_is_ellipse(real r1, real d2x, real d2y, real d2z, real r2, real d3x, real d3y, real d3z, real r3) {
    const real g22 = d2x * d2x + d2y * d2y + d2z * d2z;
    const real g33 = d3x * d3x + d3y * d3y + d3z * d3z;
    const real g23 = d2x * d3x + d2y * d3y + d2z * d3z;
    const real f2 = r1 - r2, f3 = r1 - r3;
    return f2 * f2 * g33 - 2 * f2 * f3 * g23 + f3 * f3 * g22 > g22 * g33 - g23 * g23;
}

// A ball k can cut a hole in the face of balls b, c (its part D_k of the face's sheet, where it
// intersects the tangent spheres, is bounded) only if it loses to b far out in every direction of the
// sheet: the sheet's far points run along v = a1 u + s1 e (u: the axis b -> c, e: any unit vector
// across it, a1 = (rb - rc) / d, s1 = sqrt(1 - a1^2)), where k loses iff v . (ck - cb) < rb - rk, so
// a1 wu + s1 rho < rb - rk (wu, rho: ck - cb along and across the axis). Proteins' radii differ by
// 0.3 A at most: k's centre within a few tenths of an Angstrom of the axis.
typedef struct {
    real ux, uy, uz, a1, s1, rb;
} vor_axis;

VOR_FN vor_axis vor_make_axis(real dcx, real dcy, real dcz, real rb, real rc) {
    vor_axis x;
    const real d = sqrt(dcx * dcx + dcy * dcy + dcz * dcz);
    x.ux = dcx / d, x.uy = dcy / d, x.uz = dcz / d;
    x.a1 = (rb - rc) / d;
    x.s1 = sqrt(fmax(1 - x.a1 * x.a1, (real)0));
    x.rb = rb;
    return x;
}

// w: k's centre relative to b's.
VOR_FN int vor_hole_ball(const vor_axis* x, real wx, real wy, real wz, real rk) {
    const real wu = wx * x->ux + wy * x->uy + wz * x->uz;
    const real rho = sqrt(fmax(wx * wx + wy * wy + wz * wz - wu * wu, (real)0));
    return x->a1 * wu + x->s1 * rho < x->rb - rk + (real)1e-6 * (1 + fabs(x->rb) + fabs(rk));
}

// The grid cells [lo, hi] per axis overlapping [plo, phi] (as BallGrid::cellRange).
VOR_FN void vor_cell_span(real plo, real phi, real gl, real h, int dm, int* lo, int* hi) {
    const real l = (plo - gl) / h, u = (phi - gl) / h;
    *lo = l < 0 ? 0 : (l >= dm ? dm : (int)l);
    *hi = u < 0 ? -1 : (u >= dm - 1 ? dm - 1 : (int)u);
}

// The cells where the third ball k of a face (b at pb, c at pc) may lie: within 2 tau + r + rmax of
// both centres, and for a traced face (holes) in the cone of vor_hole_ball for radii >= rmin. all:
// every cell (a face of a ball in no vertex with no window).
VOR_FN void vor_face_cells(const real pb[3], real rb, const real pc[3], real rc, real tau, int holes, real rmin, real rmax,
                           const real gl[3], real h, const int dm[3], int lo[3], int hi[3]) {
    const int all = tau >= VOR_WHOLE;
    const real Rb = 2 * tau + rb + rmax, Rc = 2 * tau + rc + rmax;
    for (int a = 0; a < 3; ++a) {
        int l2, h2;
        if (all) {
            lo[a] = 0, hi[a] = dm[a] - 1;
            continue;
        }
        vor_cell_span(pb[a] - Rb, pb[a] + Rb, gl[a], h, dm[a], &lo[a], &hi[a]);
        vor_cell_span(pc[a] - Rc, pc[a] + Rc, gl[a], h, dm[a], &l2, &h2);
        lo[a] = lo[a] > l2 ? lo[a] : l2;
        hi[a] = hi[a] < h2 ? hi[a] : h2;
    }
    if (!holes) return;
    const vor_axis x = vor_make_axis(pc[0] - pb[0], pc[1] - pb[1], pc[2] - pb[2], rb, rc);
    const real m = rb - rmin + (real)1e-6 * (1 + fabs(rb) + fabs(rmin));
    real u0 = -Rb, u1 = Rb;
    if (x.a1 > 0) u1 = fmin(u1, m / x.a1);
    if (x.a1 < 0) u0 = fmax(u0, m / x.a1);
    if (!(m > 0) || !(u0 <= u1) || !(x.s1 > 0)) {
        lo[0] = dm[0], hi[0] = -1;  // no ball can cut a hole
        return;
    }
    const real rho = fmax(m - x.a1 * u0, m - x.a1 * u1) / x.s1;
    const real ua[3] = {x.ux, x.uy, x.uz};
    for (int a = 0; a < 3; ++a) {
        const real e0 = pb[a] + ua[a] * u0, e1 = pb[a] + ua[a] * u1;
        int l2, h2;
        vor_cell_span(fmin(e0, e1) - rho, fmax(e0, e1) + rho, gl[a], h, dm[a], &l2, &h2);
        lo[a] = lo[a] > l2 ? lo[a] : l2;
        hi[a] = hi[a] < h2 ? hi[a] : h2;
    }
}

// Whether the completeness pass tests a triple (frame f) of a face with window tau: in a traced face
// (holes) only an ellipse that lies in the window whole (the conic of a ball that cuts a hole in the
// face), else any conic with a point in the window.
VOR_FN int vor_face_triple(const vor_frame* f, real tau, int holes, real rmin3) {
    if (holes) return f->kind == 1 && f->tc + rmin3 > 0 && f->tc + f->at <= tau;
    if (f->kind == 1) return f->tc + rmin3 > 0 && f->tc - f->at <= tau;
    return f->kind == 2 && vor_open_t(f, 0) <= tau;
}

// Appends [lo, hi] (ellipse: lo relative to base) to out when it is longer than the tolerance; returns
// the new count, or -1 when out is full (cap).
VOR_FN int vor_arc_put(const vor_frame* f, vor_arc* out, int n, int cap, real base, real lo, real hi, int loEnd, int hiEnd) {
    if (f->kind == 1) {
        if (!(hi - lo > VOR_ARC_TOL)) return n;
        lo += base;
        hi += base;
        if (lo >= VOR_TWO_PI) lo -= VOR_TWO_PI, hi -= VOR_TWO_PI;
    } else if (!(hi - lo > VOR_ARC_TOL * (1 + fabs(lo) + fabs(hi)))) {
        return n;
    }
    if (n < 0 || n >= cap) return -1;
    out[n].lo = lo, out[n].hi = hi, out[n].loEnd = loEnd, out[n].hiEnd = hiEnd;
    return n + 1;
}

// Removes from the valid arcs (n of them) the part ball k (centre d relative to the frame's first
// ball, radius rk) intersects (g > 0): a single arc of an ellipse; on an open edge the part between
// its two roots or outside them. tmp holds cap arcs. Returns the new count, or -1 when more than cap
// arcs would be needed.
VOR_FN int vor_arcs_cover(const vor_frame* f, vor_arc* arcs, int n, vor_arc* tmp, int cap, int k, real dx, real dy, real dz,
                          real rk) {
    real a, b, c;
    vor_ball_line(f, dx, dy, dz, rk, &a, &b, &c);
    int m = 0;
    if (f->kind == 1) {
        // g(phi) = a (tc + at cos phi) + b as sin phi - c = R cos(phi - phi0) + C.
        const real A = a * f->at, B = b * f->as, C = a * f->tc - c;
        const real R = sqrt(A * A + B * B);
        if (!(R > 0)) return C > 0 ? 0 : n;
        const real w = -C / R;
        if (w >= 1) return n;  // never intersects
        if (w < -1) return 0;  // intersects every sphere of the conic
        const real alpha = acos(w), phi0 = atan2(B, A);
        // What stays: the arc [phi0 + alpha, phi0 - alpha + 2 pi].
        real klo = fmod(phi0 + alpha, VOR_TWO_PI);
        if (klo < 0) klo += VOR_TWO_PI;
        const real klen = VOR_TWO_PI - 2 * alpha;
        for (int i = 0; i < n && m >= 0; ++i) {
            const vor_arc v = arcs[i];
            if (v.loEnd == VOR_END_NONE && v.hiEnd == VOR_END_NONE) {  // the full ellipse
                m = vor_arc_put(f, tmp, m, cap, 0, klo, klo + klen, k, k);
                continue;
            }
            // In v's frame: v is [0, vlen], the kept arc [d, d + klen] and, wrapped, [d - 2 pi, d + klen - 2 pi].
            const real vlen = v.hi - v.lo;
            real d = fmod(klo - v.lo, VOR_TWO_PI);
            if (d < 0) d += VOR_TWO_PI;
            if (d < vlen) {
                const int hiK = d + klen < vlen;
                m = vor_arc_put(f, tmp, m, cap, v.lo, d, hiK ? d + klen : vlen, k, hiK ? k : v.hiEnd);
            }
            if (d + klen > VOR_TWO_PI && m >= 0) {
                const real e = d + klen - VOR_TWO_PI;
                const int hiK = e < vlen;
                m = vor_arc_put(f, tmp, m, cap, v.lo, 0, hiK ? e : vlen, v.loEnd, hiK ? k : v.hiEnd);
            }
        }
    } else {
        // The branch is cut by the ball's roots into up to three pieces; the sign of g on each comes
        // from a point inside it (a double root leaves the sign as it is).
        real t[2], s[2], cond;
        const int nr = vor_roots(f, a, b, c, t, s, &cond);
        real r[2];
        for (int i = 0; i < nr; ++i) r[i] = s[i];
        if (nr == 2 && r[1] < r[0]) {
            const real x = r[0];
            r[0] = r[1], r[1] = x;
        }
        real klo[3], khi[3];
        int kloEnd[3], khiEnd[3], nk = 0;
        for (int j = 0; j <= nr; ++j) {
            const real lo = j == 0 ? -VOR_INF : r[j - 1], hi = j == nr ? VOR_INF : r[j];
            const real x = nr == 0 ? 0 : (j == 0 ? hi - 1 - fabs(hi) : (j == nr ? lo + 1 + fabs(lo) : (real)0.5 * (lo + hi)));
            if (a * vor_open_t(f, x) + b * x - c > 0) continue;  // intersected
            const int loEnd = j == 0 ? VOR_END_NONE : k, hiEnd = j == nr ? VOR_END_NONE : k;
            if (nk > 0 && khi[nk - 1] == lo) {
                khi[nk - 1] = hi, khiEnd[nk - 1] = hiEnd;  // kept on both sides of a double root
            } else {
                klo[nk] = lo, khi[nk] = hi, kloEnd[nk] = loEnd, khiEnd[nk] = hiEnd;
                ++nk;
            }
        }
        if (nk == 0) return 0;
        if (nk == 1 && kloEnd[0] == VOR_END_NONE && khiEnd[0] == VOR_END_NONE) return n;  // never intersects
        for (int i = 0; i < n && m >= 0; ++i)
            for (int j = 0; j < nk && m >= 0; ++j) {
                const vor_arc v = arcs[i];
                const int loK = klo[j] > v.lo, hiK = khi[j] < v.hi;
                const real lo = loK ? klo[j] : v.lo, hi = hiK ? khi[j] : v.hi;
                if (hi >= lo) m = vor_arc_put(f, tmp, m, cap, 0, lo, hi, loK ? kloEnd[j] : v.loEnd, hiK ? khiEnd[j] : v.hiEnd);
            }
    }
    if (m < 0) return -1;
    for (int i = 0; i < m; ++i) arcs[i] = tmp[i];
    return m;
}

// The point of the conic at position x: its tangent-sphere radius and s.
VOR_FN void vor_conic_point(const vor_frame* f, real x, real* t, real* s) {
    if (f->kind == 1) {
        *t = f->tc + f->at * cos(x);
        *s = f->as * sin(x);
    } else {
        *s = x;
        *t = vor_open_t(f, x);
    }
}

// The meridian of a face (balls b, c): the curve of the face's sheet in the half-plane through the
// axis b -> c and a point `top`, parametrized by the tangent-sphere radius t (the distance from the
// axis grows with t). Centre p(t) = cb + alpha(t) u + beta(t) e, alpha = a0 + a1 t,
// beta^2 = P2 t^2 + P1 t + P0 (u: the axis, e: towards top).
typedef struct {
    real a0, a1, P0, P1, P2;
    real ux, uy, uz, ex, ey, ez;
    real rb;
} vor_meridian;

// From b's centre and radius, c's centre relative to b's (dc) and radius, and top relative to b's
// centre. Returns 0 when top lies on the axis (no half-plane).
VOR_FN int vor_make_meridian(vor_meridian* m, real rb, real dcx, real dcy, real dcz, real rc, real px, real py, real pz) {
    const real d = sqrt(dcx * dcx + dcy * dcy + dcz * dcz);
    if (!(d > 0)) return 0;
    m->ux = dcx / d, m->uy = dcy / d, m->uz = dcz / d;
    const real pu = px * m->ux + py * m->uy + pz * m->uz;
    real ex = px - pu * m->ux, ey = py - pu * m->uy, ez = pz - pu * m->uz;
    const real el = sqrt(ex * ex + ey * ey + ez * ez);
    if (!(el > (real)1e-9 * (d + sqrt(px * px + py * py + pz * pz)))) return 0;
    m->ex = ex / el, m->ey = ey / el, m->ez = ez / el;
    // |p - cb| = t + rb, |p - cc| = t + rc: alpha = (d^2 + (t + rb)^2 - (t + rc)^2) / (2 d).
    m->a0 = (d * d + rb * rb - rc * rc) / (2 * d);
    m->a1 = (rb - rc) / d;
    m->P2 = 1 - m->a1 * m->a1;
    m->P1 = 2 * (rb - m->a0 * m->a1);
    m->P0 = rb * rb - m->a0 * m->a0;
    m->rb = rb;
    return 1;
}

VOR_FN real vor_meridian_beta(const vor_meridian* m, real t) { return sqrt(fmax((m->P2 * t + m->P1) * t + m->P0, (real)0)); }

// Where ball l (centre w relative to b's, radius rl) first intersects the sphere of the meridian
// beyond radius t0: the start of the first part of (t0, inf) where g > 0 (VOR_INF: never).
// g(t) = (t + rl)^2 - |p(t) - cl|^2 = L0 + L1 t + 2 we beta(t).
VOR_FN real vor_meridian_enter(const vor_meridian* m, real t0, real wx, real wy, real wz, real rl) {
    const real wu = wx * m->ux + wy * m->uy + wz * m->uz, we = wx * m->ex + wy * m->ey + wz * m->ez;
    const real W = wx * wx + wy * wy + wz * wz, rb = m->rb;
    // (t + rl)^2 - (t + rb)^2 - W + 2 wu alpha(t)
    const real L1 = 2 * (rl - rb) + 2 * wu * m->a1, L0 = rl * rl - rb * rb - W + 2 * wu * m->a0;
    // Roots: L = -2 we beta, squared: (L1^2 - 4 we^2 P2) t^2 + (2 L0 L1 - 4 we^2 P1) t + L0^2 - 4 we^2 P0 = 0.
    const real w2 = 4 * we * we;
    const real qa = L1 * L1 - w2 * m->P2, qb = 2 * L0 * L1 - w2 * m->P1, qc = L0 * L0 - w2 * m->P0;
    real r[2];
    int n = 0;
    if (fabs(qa) <= (real)1e-12 * (fabs(qb) + fabs(qc))) {
        if (qb != 0) r[n++] = -qc / qb;
    } else {
        const real disc = qb * qb - 4 * qa * qc;
        if (disc >= 0) {
            const real sq = sqrt(disc);
            const real q = -(real)0.5 * (qb + (qb >= 0 ? sq : -sq));
            r[n++] = q / qa;
            if (q != 0) r[n++] = qc / q;
        }
    }
    if (n == 2 && r[1] < r[0]) {
        const real x = r[0];
        r[0] = r[1], r[1] = x;
    }
    // The pieces of (t0, inf) between the roots beyond t0; the first where g > 0 starts the cover.
    real lo = t0;
    for (int j = 0; j <= n; ++j) {
        if (j < n && !(r[j] > lo)) continue;
        const real hi = j < n ? r[j] : VOR_INF;
        const real x = j < n ? (real)0.5 * (lo + hi) : lo + 1 + fabs(lo);
        if (L0 + L1 * x + 2 * we * vor_meridian_beta(m, x) > 0) return lo;
        if (j < n) lo = hi;
    }
    return VOR_INF;
}

// How far the meridian's centre at radius t is from its centre at radius t0 (at most).
VOR_FN real vor_meridian_span(const vor_meridian* m, real t0, real t) {
    return fabs(m->a1 * (t - t0)) + fabs(vor_meridian_beta(m, t) - vor_meridian_beta(m, t0));
}

#if PORTACL_VORONOI_GEOMETRY_HOST
}  // namespace portacl::voronoi::geom
#endif

#endif
