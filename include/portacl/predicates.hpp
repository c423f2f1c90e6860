// Robust geometric predicates on batches of float points, through the two-phase dispatch
// (two_phase.hpp): float with a rigorous error bound on every query, exact double-based evaluation on
// the device for the queries float cannot decide. Sign conventions are Shewchuk's:
//   orient3d(a,b,c,d)   > 0 when d lies below the plane through a, b, c (a, b, c counterclockwise
//                       seen from above), < 0 above, 0 when coplanar: sign det [a-d; b-d; c-d].
//   insphere(a,b,c,d,e) > 0 when e lies inside the sphere through a, b, c, d, < 0 outside, 0 when
//                       cospherical, provided orient3d(a,b,c,d) > 0 (the sign flips otherwise).
// Layout: `points` are packed float x, y, z (point p at [3p, 3p+2]); an orient3d query is 4 point
// indices (a, b, c, d), an insphere query 5 (a, b, c, d, e), packed. Coordinates must be finite.
// Float mode returns float's sign for every query (possibly wrong where it was flagged); Double and
// Mixed return the exact sign of every query. See docs/two_phase.md.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"
#include "portacl/runtime/two_phase.hpp"

namespace portacl::predicates {

enum class Predicate { Orient3d, Insphere };

// Point indices per query: 4 (orient3d) or 5 (insphere).
PORTACL_API std::size_t arity(Predicate p);
PORTACL_API const char* predicateName(Predicate p);

struct PORTACL_API Result {
    std::vector<std::int8_t> signs;  // one per query: -1, 0, +1
    TwoPhaseReport report;           // items, flagged (undecided), phase-2 items, device times
};

// Evaluates a batch on the device. Throws portacl::Error for a malformed batch (queries not a
// multiple of the arity, an index past the last point, a non-finite coordinate) and, on a device
// without fp64, for Double. Mixed there runs phase 2 in double-float on the device; the few queries
// it cannot vouch for get their exact sign on the host (report.hostItems). With the profile's
// [two_phase] phase2 = host, every flagged query gets its exact sign on the host.
// (PORTACL_FORCE_DOUBLE_FLOAT=1 or the profile's [two_phase] phase2 = double-float does the same on a
// device with fp64.)
PORTACL_API Result evaluate(Context& ctx, Predicate p, const std::vector<float>& points,
                            const std::vector<std::uint32_t>& queries, Precision mode);

// The same on buffers already on the device (what a workload and the benchmark use): `signs` holds
// one char per query; buffers shorter than queryCount queries and signs are refused (the point
// indices are not checked). Where report.phase2 is DoubleFloat, a sign may be
// kDoubleFloatUndecided: the caller finishes those queries (evaluate does, on the host).
constexpr std::int8_t kDoubleFloatUndecided = 2;  // PRED_DF_HOST of cl/common/predicates_double_float.h

// Replaces every kDoubleFloatUndecided sign by the exact one (the big-integer reference); sets
// report.hostItems and report.hostSeconds.
PORTACL_API void finishOnHost(Predicate p, const std::vector<float>& points, const std::vector<std::uint32_t>& queries,
                              std::vector<std::int8_t>& signs, TwoPhaseReport& report);

// How a device buffer of points is laid out. Packed: x, y, z floats (12 bytes a point, the layout of
// `evaluate` and of the overload without a layout). Padded: x, y, z, w floats (16 bytes a point, w
// ignored; the buffer 16-byte aligned, as every buffer's start is): each point the kernels gather is
// one aligned 16-byte load. (The profile's [predicates] pad_points = 1 makes that copy of a packed
// cloud on the device first, docs/engineering/predicates.md.)
enum class PointLayout { Packed, Padded };

// The padded copy (PointLayout::Padded, w = 0) of the first pointCount points of a packed device
// cloud, made on the device: for a caller that evaluates many batches over one cloud. Refuses a
// buffer shorter than pointCount points in one sentence.
PORTACL_API cl::Buffer padPoints(Context& ctx, const cl::Buffer& packed, std::size_t pointCount);

// The memory floor of evaluateOnDevice's float pass (the bench's "gather floor" rows): the kernel
// that reads each of n queries' indices, gathers its points from the packed cloud `points` as the
// pass would (from the padded copy where the profile pads: made here, before the kernel's launch)
// and writes one byte to `out`, its arguments set; the caller launches it over n work-items.
PORTACL_API cl::Kernel& gatherFloorKernel(Context& ctx, Predicate p, const cl::Buffer& points, const cl::Buffer& queries,
                                          std::size_t n, const cl::Buffer& out);

// With hostItems given, phase 2 may run on the host (report.phase2 Host: the profile's [two_phase]
// phase2 = host): the flagged queries are written there in increasing order, for the caller to finish
// (their signs in `signs` are phase 1's). One pass over the queries in float, the flagged ones listed
// on the device (report.compactSeconds: the list's counter reset and count read), the exact pass on
// that list without a host round trip.
PORTACL_API TwoPhaseReport evaluateOnDevice(Context& ctx, Predicate p, const cl::Buffer& points, const cl::Buffer& queries,
                                            std::size_t queryCount, const cl::Buffer& signs, Precision mode,
                                            std::vector<std::uint32_t>* hostItems = nullptr);
PORTACL_API TwoPhaseReport evaluateOnDevice(Context& ctx, Predicate p, const cl::Buffer& points, PointLayout layout,
                                            const cl::Buffer& queries, std::size_t queryCount, const cl::Buffer& signs,
                                            Precision mode, std::vector<std::uint32_t>* hostItems = nullptr);

// A synthetic batch: n queries over `cloud` random points in [-100, 100]^3; each query is, with
// probability degenerateFraction, made of integer points on one plane (orient3d) or one sphere
// (insphere), whose exact sign is 0. For the benchmark and `portacl predicates`.
struct PORTACL_API Batch {
    std::vector<float> points;
    std::vector<std::uint32_t> queries;
};
PORTACL_API Batch syntheticBatch(Predicate p, std::size_t n, std::size_t cloud, double degenerateFraction, unsigned seed);

// The mixed algorithm as plain serial C++ (the same float filter, then the exact big-integer
// evaluation of the undecided queries): the CPU column of the benchmark. Exact signs.
PORTACL_API std::vector<std::int8_t> evaluateSerial(Predicate p, const std::vector<float>& points,
                                                    const std::vector<std::uint32_t>& queries);

// CGAL's filtered predicates (Epick), one query after another: the benchmark's CPU peer, in the
// engine's sign convention.
PORTACL_API std::vector<std::int8_t> evaluateCgal(Predicate p, const std::vector<float>& points,
                                                  const std::vector<std::uint32_t>& queries);

// Serial exact references (big-integer evaluation, independent of any floating-point reasoning).
PORTACL_API int orient3dExact(const float* a, const float* b, const float* c, const float* d);
PORTACL_API int insphereExact(const float* a, const float* b, const float* c, const float* d, const float* e);
PORTACL_API std::vector<std::int8_t> evaluateReference(Predicate p, const std::vector<float>& points,
                                                       const std::vector<std::uint32_t>& queries);

}  // namespace portacl::predicates
