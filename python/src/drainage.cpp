// Drainage on DEM arrays: a 2-D array of heights with GDAL's geotransform (cell sizes) and an
// optional NoData value in; flow directions, filled heights, accumulation and watersheds out.
// Directions are the library's codes (0..7 = E, NE, N, NW, W, SW, S, SE; 8 no flow; 255 NoData) or,
// with `encoding`, those of ESRI, TauDEM, RichDEM or Whitebox.
#include "common.hpp"

#include <cmath>
#include <limits>

#include "portacl/drainage.hpp"

namespace portacl::python {

namespace {

io::RasterFrame frameOf(int rows, int cols, const py::object& geotransform) {
    io::RasterFrame f;
    f.rows = rows;
    f.cols = cols;
    if (!geotransform.is_none()) {
        auto gt = geotransform.cast<std::vector<double>>();
        if (gt.size() != 6) throw py::value_error("geotransform must hold GDAL's 6 numbers, not " + std::to_string(gt.size()));
        for (double g : gt)
            if (!std::isfinite(g)) throw py::value_error("geotransform holds a value that is not finite");
        std::copy(gt.begin(), gt.end(), f.geoTransform.begin());
        f.hasGeoTransform = true;
        if (f.cellWidth() == 0 || f.cellHeight() == 0) throw py::value_error("geotransform gives cells of zero width or height");
    }
    return f;
}

io::Raster demOf(const py::object& dem, const py::object& geotransform, const py::object& nodata) {
    auto a = numericArray(dem, "dem");
    if (a.ndim() != 2) throw py::value_error("dem must be a 2-D array of heights, not " + std::to_string(a.ndim()) + "-D");
    const auto shape = shapeOf(a, "dem");
    io::Raster r;
    r.frame = frameOf(shape[0], shape[1], geotransform);
    r.values.assign(a.data(), a.data() + a.size());
    if (!nodata.is_none()) {
        r.hasNoData = true;
        r.noData = nodata.cast<double>();
    }
    checkArgument([&] { drainage::validateDem(r); });
    return r;
}

// Directions in: the library's codes (uint8) or an encoding's (any integer dtype).
drainage::DirectionGrid directionsOf(const py::object& directions, const py::object& encoding, const py::object& geotransform) {
    auto a = numericArray(directions, "directions");
    if (a.ndim() != 2) throw py::value_error("directions must be a 2-D array, not " + std::to_string(a.ndim()) + "-D");
    const auto shape = shapeOf(a, "directions");
    if (!encoding.is_none()) {
        io::Raster r;
        r.frame = frameOf(shape[0], shape[1], geotransform);
        r.values.assign(a.data(), a.data() + a.size());
        const auto e = checkArgument([&] { return drainage::parseEncoding(encoding.cast<std::string>()); });
        // The peers' NoData codes (TauDEM -32768, the others 255) read as NoData.
        r.hasNoData = true;
        r.noData = e == drainage::Encoding::TauDem ? -32768 : 255;
        return checkArgument([&] { return drainage::decodeDirections(r, e); });
    }
    drainage::DirectionGrid g;
    g.frame = frameOf(shape[0], shape[1], geotransform);
    g.dir.resize(a.size());
    const double* d = a.data();
    for (std::size_t i = 0; i < g.dir.size(); ++i) {
        const double v = d[i];
        if (!(v >= 0 && v <= drainage::kNoFlow && v == std::floor(v)) && v != drainage::kNoData)
            throw py::value_error("directions holds " + std::to_string(v) + " at row " + std::to_string(i / shape[1]) + ", column " +
                                  std::to_string(i % shape[1]) + "; the library's codes are 0..7, 8 (no flow) and 255 (NoData)");
        g.dir[i] = static_cast<std::uint8_t>(v);
    }
    return g;
}

py::array directionsOut(drainage::DirectionGrid&& g, const py::object& encoding) {
    const std::vector<py::ssize_t> shape{g.frame.rows, g.frame.cols};
    if (encoding.is_none()) return toArray(std::move(g.dir), shape);
    const auto e = checkArgument([&] { return drainage::parseEncoding(encoding.cast<std::string>()); });
    drainage::EncodedDirections enc = drainage::encodeDirections(g, e);
    if (e == drainage::Encoding::TauDem) {
        std::vector<std::int16_t> v(enc.codes.begin(), enc.codes.end());
        return toArray(std::move(v), shape);
    }
    std::vector<std::uint8_t> v(enc.codes.begin(), enc.codes.end());
    return toArray(std::move(v), shape);
}

// Heights and weighted sums: double unless told, by the call or its context (mixed, with no
// two-phase mode here, is double). The references take the call's alone.
Precision precisionOf(const py::object& precision, const py::object& ctx, bool reference) {
    Precision p = reference ? (precision.is_none() ? Precision::Double
                                                   : checkArgument([&] { return parsePrecision(precision.cast<std::string>()); }))
                            : precisionArg(precision, contextArg(ctx), Precision::Double);
    return p == Precision::Mixed ? Precision::Double : p;
}

// tile=: None (one piece, or tiles when the grid does not fit the device), N, (rows, cols) or "RxC";
// the serial reference runs in one piece.
drainage::Tiling tilingOf(const py::object& tile, bool reference) {
    if (tile.is_none()) return {};
    if (reference) throw py::value_error("tile is for the device; the serial reference runs in one piece");
    std::string text;
    if (py::isinstance<py::str>(tile)) text = tile.cast<std::string>();
    else if (py::isinstance<py::tuple>(tile) && py::len(tile) == 2)
        text = std::to_string(tile.cast<py::tuple>()[0].cast<long>()) + "x" + std::to_string(tile.cast<py::tuple>()[1].cast<long>());
    else text = std::to_string(tile.cast<long>());
    return checkArgument([&] { return drainage::parseTiling(text); });
}

}  // namespace

void bindDrainage(py::module_& m, py::module_& ref) {
    py::module_ d = m.def_submodule("drainage", "D8 flow directions and accumulation on DEM arrays.");
    py::module_ rd = ref.def_submodule("drainage", "The serial C++ references of portacl.drainage.");
    for (bool reference : {false, true}) {
        py::module_& target = reference ? rd : d;
        target.def("d8", [reference](const py::object& dem, const py::object& gt, const py::object& nodata, const py::object& precision,
                                     const py::object& encoding, bool resolveFlats, const py::object& tile, const py::object& ctx) {
                io::Raster r = demOf(dem, gt, nodata);
                const drainage::Tiling tiling = tilingOf(tile, reference);
                const Precision p = precisionOf(precision, ctx, reference);
                if (!encoding.is_none()) checkArgument([&] { drainage::parseEncoding(encoding.cast<std::string>()); });
                drainage::DirectionGrid g = reference
                    ? withoutGil([&] {
                          auto x = drainage::d8DirectionsReference(r, p);
                          return resolveFlats ? drainage::resolveFlatsReference(r, x, p) : x;
                      })
                    : onDevice(contextArg(ctx), [&](Context& c) {
                          auto x = drainage::d8Directions(c, r, p, tiling);
                          return resolveFlats ? drainage::resolveFlats(c, r, x, p, tiling) : x;
                      });
                return directionsOut(std::move(g), encoding);
            },
            py::arg("dem"), py::kw_only(), py::arg("geotransform") = py::none(), py::arg("nodata") = py::none(),
            py::arg("precision") = py::none(), py::arg("encoding") = py::none(), py::arg("resolve_flats") = false,
            py::arg("tile") = py::none(), py::arg("ctx") = py::none(),
            "D8 flow directions of a DEM: each cell drains to the neighbour of steepest descent (distances from\n"
            "the geotransform's cell width and height; ties to the first of E, NE, N, NW, W, SW, S, SE).\n"
            "geotransform: GDAL's 6 numbers (default square cells of side 1); nodata: the NoData height\n"
            "(NaN allowed); precision: 'float' or 'double' (default) heights; resolve_flats: drain flats\n"
            "towards lower terrain (Barnes et al. 2014). Returns uint8 codes 0..7 = E, NE, N, NW, W, SW, S, SE,\n"
            "8 no flow, 255 NoData; with encoding='esri', 'taudem', 'richdem' or 'whitebox' that peer's codes.\n"
            "tile: N, (rows, cols) or 'RxC' runs the grid in tiles of that size, one at a time on the device, with\n"
            "the same result (default: one piece, or tiles when the grid does not fit the device).");
        target.def("fill_depressions", [reference](const py::object& dem, const py::object& gt, const py::object& nodata,
                                                   const py::object& precision, const py::object& tile, const py::object& ctx) {
                io::Raster r = demOf(dem, gt, nodata);
                const Precision p = precisionOf(precision, ctx, reference);
                const drainage::Tiling tiling = tilingOf(tile, reference);
                io::Raster f = reference ? withoutGil([&] { return drainage::fillDepressionsReference(r, p); })
                                         : onDevice(contextArg(ctx), [&](Context& c) { return drainage::fillDepressions(c, r, p, tiling); });
                return toArray(std::move(f.values), {f.rows(), f.cols()});
            },
            py::arg("dem"), py::kw_only(), py::arg("geotransform") = py::none(), py::arg("nodata") = py::none(),
            py::arg("precision") = py::none(), py::arg("tile") = py::none(), py::arg("ctx") = py::none(),
            "The DEM with every depression filled to its spill height (as TauDEM's PitRemove and RichDEM's\n"
            "FillDepressions): float64, NoData cells keep the NoData value. tile: as d8's.");
        target.def("accumulate", [reference](const py::object& directions, const py::object& weights, bool includeSelf,
                                             bool edgeContamination, const py::object& encoding, const py::object& precision,
                                             const py::object& tile, const py::object& ctx) {
                drainage::DirectionGrid g = directionsOf(directions, encoding, py::none());
                std::vector<double> w;
                drainage::AccumulationOptions o;
                o.includeSelf = includeSelf;
                o.edgeContamination = edgeContamination;
                o.precision = precisionOf(precision, ctx, reference);
                o.tiling = tilingOf(tile, reference);
                if (!weights.is_none()) {
                    auto a = numericArray(weights, "weights");
                    if (a.ndim() != 2 || a.shape(0) != g.frame.rows || a.shape(1) != g.frame.cols)
                        throw py::value_error("weights must have the shape of directions");
                    w.assign(a.data(), a.data() + a.size());
                    o.weights = &w;
                }
                // A cycle in the directions is found during the work: a ValueError naming a cell of it.
                drainage::Accumulation acc = checkArgument([&] {
                    return reference ? withoutGil([&] { return drainage::accumulateReference(g, o); })
                                     : onDevice(contextArg(ctx), [&](Context& c) { return drainage::accumulate(c, g, o); });
                });
                std::vector<double> out(acc.valid.size());
                for (std::size_t i = 0; i < out.size(); ++i)
                    out[i] = acc.valid[i] ? acc.value(i) : std::numeric_limits<double>::quiet_NaN();
                return toArray(std::move(out), {g.frame.rows, g.frame.cols});
            },
            py::arg("directions"), py::kw_only(), py::arg("weights") = py::none(), py::arg("include_self") = true,
            py::arg("edge_contamination") = false, py::arg("encoding") = py::none(), py::arg("precision") = py::none(),
            py::arg("tile") = py::none(), py::arg("ctx") = py::none(),
            "Flow accumulation of a direction grid (d8's codes, or a peer's with encoding=): each cell's own\n"
            "weight (1: cell counts) plus what drains into it; include_self=False leaves the cell's own out.\n"
            "weights: one per cell. edge_contamination: TauDEM's rule (no value where the contributing area\n"
            "touches the grid's edge or NoData). Returns float64 (counts are exact below 2^53), NaN where a\n"
            "cell has no value. A cycle in the directions raises ValueError naming a cell of it. tile: as d8's.");
        target.def("watersheds", [reference](const py::object& directions, const py::object& outlets, const py::object& encoding,
                                             const py::object& tile, const py::object& ctx) {
                drainage::DirectionGrid g = directionsOf(directions, encoding, py::none());
                const drainage::Tiling tiling = tilingOf(tile, reference);
                std::vector<std::size_t> o;
                if (!outlets.is_none())
                    for (const auto& rc : outlets.cast<std::vector<std::pair<long, long>>>()) {
                        if (rc.first < 0 || rc.second < 0 || rc.first >= g.frame.rows || rc.second >= g.frame.cols)
                            throw py::value_error("outlet (" + std::to_string(rc.first) + ", " + std::to_string(rc.second) + ") lies outside the grid");
                        o.push_back(std::size_t(rc.first) * g.frame.cols + std::size_t(rc.second));
                    }
                std::vector<std::int32_t> w = checkArgument([&] {
                    return reference ? withoutGil([&] { return drainage::watershedsReference(g, o); })
                                     : onDevice(contextArg(ctx), [&](Context& c) { return drainage::watersheds(c, g, o, tiling); });
                });
                return toArray(std::move(w), {g.frame.rows, g.frame.cols});
            },
            py::arg("directions"), py::kw_only(), py::arg("outlets") = py::none(), py::arg("encoding") = py::none(),
            py::arg("tile") = py::none(), py::arg("ctx") = py::none(),
            "Watershed labels: with outlets [(row, col), ...] the cells draining through outlet j get j + 1 and\n"
            "the others 0; without, every basin numbered 1, 2, ... by its outlet in row-major order. NoData -1.\n"
            "tile: as d8's.");
    }
}

}  // namespace portacl::python
