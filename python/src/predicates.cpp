// The orient3d and insphere predicates on batches: float32 points (N, 3) and queries of point indices
// (Q, 4) or (Q, 5) in; one sign per query out (int8: -1, 0, +1), Shewchuk's conventions.
#include "common.hpp"

#include <cmath>

#include "portacl/predicates.hpp"

namespace portacl::python {

namespace {

py::object evaluateOf(predicates::Predicate p, const py::object& points, const py::object& queries, const py::object& precision,
                      bool report, const py::object& ctx, bool reference) {
    auto P = requireArray<float>(points, "points", "float32 (the predicates decide exactly on float coordinates)");
    if (P.ndim() != 2 || P.shape(1) != 3) throw py::value_error("points must be an (N, 3) array, not shape " + std::string(py::str(points.attr("shape"))));
    const std::size_t k = predicates::arity(p);
    auto Q = numericArray(queries, "queries");
    if (Q.ndim() != 2 || std::size_t(Q.shape(1)) != k)
        throw py::value_error(std::string("queries of ") + predicates::predicateName(p) + " must be a (Q, " + std::to_string(k) +
                              ") array of point indices, not shape " + std::string(py::str(queries.attr("shape"))));
    std::vector<float> pts(P.data(), P.data() + P.size());
    for (std::size_t i = 0; i < pts.size(); ++i)
        if (!std::isfinite(pts[i])) throw py::value_error("point " + std::to_string(i / 3) + " has a coordinate that is not finite");
    std::vector<std::uint32_t> q(Q.size());
    const double* qd = Q.data();
    const double n = double(P.shape(0));
    for (std::size_t i = 0; i < q.size(); ++i) {
        if (!(qd[i] >= 0 && qd[i] < n && qd[i] == std::floor(qd[i])))
            throw py::value_error("query " + std::to_string(i / k) + " names point " + std::to_string(qd[i]) + "; the points are 0.." +
                                  std::to_string(P.shape(0) - 1));
        q[i] = static_cast<std::uint32_t>(qd[i]);
    }
    const py::ssize_t count = Q.shape(0);
    if (reference) return toArray(withoutGil([&] { return predicates::evaluateReference(p, pts, q); }), {count});
    PyContext& pc = contextArg(ctx);
    const Precision mode = precisionArg(precision, pc, Precision::Mixed);
    predicates::Result r = onDevice(pc, [&](Context& c) { return predicates::evaluate(c, p, pts, q, mode); });
    py::array signs = toArray(std::move(r.signs), {count});
    if (!report) return signs;
    py::dict d;
    d["mode"] = precisionName(r.report.mode);
    d["items"] = r.report.items;
    d["undecided"] = r.report.undecided;
    d["phase2_items"] = r.report.phase2Items;
    d["phase2"] = phase2ArithmeticName(r.report.phase2);
    d["host_items"] = r.report.hostItems;
    d["device_seconds"] = r.report.totalSeconds();
    return py::make_tuple(signs, d);
}

}  // namespace

void bindPredicates(py::module_& m, py::module_& ref) {
    for (auto p : {predicates::Predicate::Orient3d, predicates::Predicate::Insphere}) {
        const std::string name = predicates::predicateName(p);
        const std::string doc =
            name == "orient3d"
                ? "orient3d(a, b, c, d) for each query (a row of 4 point indices): +1 when d lies below the plane\n"
                  "through a, b, c (counterclockwise seen from above), -1 above, 0 coplanar (Shewchuk's sign)."
                : "insphere(a, b, c, d, e) for each query (a row of 5 point indices): +1 when e lies inside the\n"
                  "sphere through a, b, c, d (with orient3d(a, b, c, d) > 0), -1 outside, 0 cospherical.";
        m.def(name.c_str(), [p](const py::object& points, const py::object& queries, const py::object& precision, bool report,
                                const py::object& ctx) { return evaluateOf(p, points, queries, precision, report, ctx, false); },
              py::arg("points"), py::arg("queries"), py::kw_only(), py::arg("precision") = py::none(), py::arg("report") = false,
              py::arg("ctx") = py::none(),
              (doc + "\n\npoints: (N, 3) float32; queries: (Q, k) integer indices. precision 'mixed' (the default: float with\n"
                     "an error bound, exact evaluation of the queries float cannot decide), 'double' (exact) or 'float'\n"
                     "(float's sign, possibly wrong where flagged). Returns int8 signs (Q,); with report=True also the\n"
                     "two-phase report {'undecided', 'phase2_items', 'phase2', ...}.").c_str());
        ref.def(name.c_str(), [p](const py::object& points, const py::object& queries) {
                    return evaluateOf(p, points, queries, py::none(), false, py::none(), true);
                },
                py::arg("points"), py::arg("queries"), ("The exact serial reference of " + name + " (big-integer arithmetic).").c_str());
    }
}

}  // namespace portacl::python
