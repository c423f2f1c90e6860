// The mixed algorithm in plain serial C++: the float filter of cl/predicates.cl (same bounds; see
// the derivation there), then the exact big-integer evaluation for the queries it cannot decide.
// Compiled without floating-point contraction (ISO C++17 mode), so every operation rounds once.
#include <algorithm>
#include <cmath>

#include "portacl/predicates.hpp"

namespace portacl::predicates {

namespace {

constexpr float kU = 0x1p-24f;

// The float sign when the filter decides it, else 2 (undecided).
int orient3dFiltered(const float* pa, const float* pb, const float* pc, const float* pd) {
    const float adx = pa[0] - pd[0], ady = pa[1] - pd[1], adz = pa[2] - pd[2];
    const float bdx = pb[0] - pd[0], bdy = pb[1] - pd[1], bdz = pb[2] - pd[2];
    const float cdx = pc[0] - pd[0], cdy = pc[1] - pd[1], cdz = pc[2] - pd[2];
    const float bxcy = bdx * cdy, cxby = cdx * bdy, cxay = cdx * ady, axcy = adx * cdy;
    const float axby = adx * bdy, bxay = bdx * ady;
    const float det = adz * (bxcy - cxby) + bdz * (cxay - axcy) + cdz * (axby - bxay);
    const float permanent = (std::fabs(bxcy) + std::fabs(cxby)) * std::fabs(adz) +
                            (std::fabs(cxay) + std::fabs(axcy)) * std::fabs(bdz) +
                            (std::fabs(axby) + std::fabs(bxay)) * std::fabs(cdz);
    const float m = 1.0f + std::max({std::fabs(adx), std::fabs(ady), std::fabs(adz), std::fabs(bdx), std::fabs(bdy),
                                     std::fabs(bdz), std::fabs(cdx), std::fabs(cdy), std::fabs(cdz)});
    const float bound = (8.0f * kU + 64.0f * kU * kU) * permanent + 0x1p-100f * (m * m * m);
    if (std::fabs(det) > bound) return det > 0 ? 1 : -1;
    return 2;
}

int insphereFiltered(const float* pa, const float* pb, const float* pc, const float* pd, const float* pe) {
    const float ax = pa[0] - pe[0], ay = pa[1] - pe[1], az = pa[2] - pe[2];
    const float bx = pb[0] - pe[0], by = pb[1] - pe[1], bz = pb[2] - pe[2];
    const float cx = pc[0] - pe[0], cy = pc[1] - pe[1], cz = pc[2] - pe[2];
    const float dx = pd[0] - pe[0], dy = pd[1] - pe[1], dz = pd[2] - pe[2];
    const float axby = ax * by, bxay = bx * ay, bxcy = bx * cy, cxby = cx * by;
    const float cxdy = cx * dy, dxcy = dx * cy, dxay = dx * ay, axdy = ax * dy;
    const float axcy = ax * cy, cxay = cx * ay, bxdy = bx * dy, dxby = dx * by;
    const float ab = axby - bxay, bc = bxcy - cxby, cd = cxdy - dxcy;
    const float da = dxay - axdy, ac = axcy - cxay, bd = bxdy - dxby;
    const float abc = az * bc - bz * ac + cz * ab;
    const float bcd = bz * cd - cz * bd + dz * bc;
    const float cda = cz * da + dz * ac + az * cd;
    const float dab = dz * ab + az * bd + bz * da;
    const float alift = ax * ax + ay * ay + az * az, blift = bx * bx + by * by + bz * bz;
    const float clift = cx * cx + cy * cy + cz * cz, dlift = dx * dx + dy * dy + dz * dz;
    const float det = (dlift * abc - clift * dab) + (blift * cda - alift * bcd);
    const float pab = std::fabs(axby) + std::fabs(bxay), pbc = std::fabs(bxcy) + std::fabs(cxby);
    const float pcd = std::fabs(cxdy) + std::fabs(dxcy), pda = std::fabs(dxay) + std::fabs(axdy);
    const float pac = std::fabs(axcy) + std::fabs(cxay), pbd = std::fabs(bxdy) + std::fabs(dxby);
    const float permanent = (pcd * std::fabs(bz) + pbd * std::fabs(cz) + pbc * std::fabs(dz)) * alift +
                            (pda * std::fabs(cz) + pac * std::fabs(dz) + pcd * std::fabs(az)) * blift +
                            (pab * std::fabs(dz) + pbd * std::fabs(az) + pda * std::fabs(bz)) * clift +
                            (pbc * std::fabs(az) + pac * std::fabs(bz) + pab * std::fabs(cz)) * dlift;
    const float m = 1.0f + std::max({std::fabs(ax), std::fabs(ay), std::fabs(az), std::fabs(bx), std::fabs(by),
                                     std::fabs(bz), std::fabs(cx), std::fabs(cy), std::fabs(cz), std::fabs(dx),
                                     std::fabs(dy), std::fabs(dz)});
    const float bound = (17.0f * kU + 256.0f * kU * kU) * permanent + 0x1p-100f * (m * m * m * m);
    if (std::fabs(det) > bound) return det > 0 ? 1 : -1;
    return 2;
}

}  // namespace

std::vector<std::int8_t> evaluateSerial(Predicate p, const std::vector<float>& points,
                                        const std::vector<std::uint32_t>& queries) {
    const std::size_t k = arity(p), n = queries.size() / k;
    const float* pts = points.data();
    std::vector<std::int8_t> signs(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t* q = &queries[k * i];
        int s;
        if (p == Predicate::Orient3d) {
            s = orient3dFiltered(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3]);
            if (s == 2) s = orient3dExact(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3]);
        } else {
            s = insphereFiltered(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3], pts + 3 * q[4]);
            if (s == 2)
                s = insphereExact(pts + 3 * q[0], pts + 3 * q[1], pts + 3 * q[2], pts + 3 * q[3], pts + 3 * q[4]);
        }
        signs[i] = static_cast<std::int8_t>(s);
    }
    return signs;
}

}  // namespace portacl::predicates
