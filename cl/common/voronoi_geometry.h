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

// The line a t + b s = c of a fourth ball (relative centre d, radius rk).
VOR_FN void vor_ball_line(const vor_frame* f, real dx, real dy, real dz, real rk, real* a, real* b, real* c) {
    const real e = (dx * dx + dy * dy + dz * dz - rk * rk + f->r1 * f->r1) * (real)0.5;
    *a = f->Bx * dx + f->By * dy + f->Bz * dz - (f->r1 - rk);
    *b = f->nx * dx + f->ny * dy + f->nz * dz;
    *c = e - (f->Ax * dx + f->Ay * dy + f->Az * dz);
}

// The (up to two) valid points where the ball's line meets the edge's conic. Returns how many;
// *cond gets |discriminant| relative to its terms (small: nearly a double root, ill-conditioned).
VOR_FN int vor_roots(const vor_frame* f, real a, real b, real c, real* t, real* s, real* cond) {
    *cond = 0;
    const real L2 = a * a + b * b;
    if (!(L2 > 0)) return 0;
    const real L = sqrt(L2);
    const real t0 = a * c / L2, s0 = b * c / L2;
    const real dt = -b / L, ds = a / L;
    const real qa = ds * ds - f->Q2 * dt * dt;
    const real qb = 2 * (s0 * ds - f->Q2 * t0 * dt) - f->Q1 * dt;
    const real qc = s0 * s0 - f->Q2 * t0 * t0 - f->Q1 * t0 - f->Q0;
    real lam[2];
    int n = 0;
    const real scale = fabs(qb * qb) + fabs(4 * qa * qc);
    if (fabs(qa) <= (real)1e-12 * (fabs(qb) + fabs(qc))) {
        if (qb == 0) return 0;
        lam[n++] = -qc / qb;
        *cond = 1;
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

#endif
