// k-Wave input files (format 1.2, and 1.0/1.1): reading, writing and checking the description.
// Dataset names, types and attributes as kspaceFirstOrder-OMP/-CUDA read them (see docs/kwave.md).
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>
#include <cstdio>
#include <ctime>
#include <string>

#include "portacl/io/hdf5_file.hpp"
#include "portacl/kwave.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "kwave_datasets.hpp"

namespace portacl::kwave {
namespace {

using io::Dims;
using io::ElementType;
using io::Hdf5File;

// A dataset k-Wave loads as a matrix must carry data_type and domain_type with known values.
void checkMatrixAttributes(const Hdf5File& f, const std::string& name, const char* dataType) {
    for (const char* attr : {"data_type", "domain_type"}) {
        if (!f.hasAttribute(name, attr))
            throw Error("dataset '" + name + "' in " + f.path() + " lacks its '" + attr + "' attribute");
    }
    const std::string dt = f.readStringAttribute(name, "data_type");
    if (dt != dataType)
        throw Error("dataset '" + name + "' in " + f.path() + " has data_type '" + dt + "' where '" + dataType +
                    "' is expected");
    const std::string dom = f.readStringAttribute(name, "domain_type");
    if (dom != "real" && dom != "complex")
        throw Error("dataset '" + name + "' in " + f.path() + " has an unknown domain_type '" + dom + "'");
}

void require(const Hdf5File& f, const std::string& name, const std::string& why) {
    if (!f.exists(name)) throw Error(f.path() + " has no dataset '" + name + "' (" + why + ")");
}

void requireType(const Hdf5File& f, const std::string& name, bool integer) {
    const ElementType t = f.elementType(name);
    const bool ok = integer ? (t == ElementType::UInt64 || t == ElementType::Int64)
                            : (t == ElementType::Float32 || t == ElementType::Float64);
    if (!ok)
        throw Error("dataset '" + name + "' in " + f.path() + " should hold " +
                    (integer ? "64-bit integers (k-Wave's 'long')" : "floating-point numbers"));
}

std::uint64_t readU64Scalar(const Hdf5File& f, const std::string& name, const std::string& why) {
    require(f, name, why);
    requireType(f, name, true);
    return f.readScalarUInt64(name);
}

double readFloatScalar(const Hdf5File& f, const std::string& name, const std::string& why) {
    require(f, name, why);
    requireType(f, name, false);
    return f.readScalar(name);
}

// Points of one plane of the slowest axis, and that axis's planes.
std::size_t planePoints(const Grid& g) { return g.is3D() ? g.nx * g.ny : g.nx; }
std::size_t planeCount(const Grid& g) { return g.is3D() ? g.nz : g.ny; }

// The elements of a full-grid dataset that `planes` hold: all of them, or the slab's range.
struct HeldRange {
    std::uint64_t first = 0, count = 0;
    bool whole = true;
};
HeldRange heldRange(const Grid& g, const PlaneRange& planes) {
    if (planes.whole()) return {0, g.size(), true};
    return {planes.first * planePoints(g), planes.count * planePoints(g), false};
}

std::vector<float> readHeld(const Hdf5File& f, const std::string& name, const HeldRange& held) {
    return held.whole ? f.readFloat(name, held.count) : f.readFloatRange(name, held.first, held.count);
}

// A scalar or a full-grid float matrix (its held planes).
Field readField(const Hdf5File& f, const std::string& name, std::size_t gridSize, const HeldRange& held, const std::string& why) {
    require(f, name, why);
    requireType(f, name, false);
    const auto n = io::elementCount(f.dims(name));
    Field field;
    if (n == 1) {
        field.values = f.readFloat(name);
        return field;
    }
    checkMatrixAttributes(f, name, "float");
    if (n != gridSize)
        throw Error("dataset '" + name + "' in " + f.path() + " has " + std::to_string(n) +
                    " elements; it must be a scalar or have Nx*Ny*Nz = " + std::to_string(gridSize));
    field.values = readHeld(f, name, held);
    return field;
}

std::vector<float> readFloatMatrix(const Hdf5File& f, const std::string& name, std::uint64_t count, const std::string& why) {
    require(f, name, why);
    requireType(f, name, false);
    checkMatrixAttributes(f, name, "float");
    return f.readFloat(name, count);
}

// 1-based MATLAB indices to 0-based.
std::vector<std::uint64_t> readIndexMatrix(const Hdf5File& f, const std::string& name, const std::string& why) {
    require(f, name, why);
    requireType(f, name, true);
    checkMatrixAttributes(f, name, "long");
    auto v = f.readUInt64(name);
    for (auto& i : v) {
        if (i == 0) throw Error("dataset '" + name + "' in " + f.path() + " holds index 0; k-Wave indices start at 1");
        --i;
    }
    return v;
}

SourceMode readMode(const Hdf5File& f, const std::string& name) {
    const auto m = readU64Scalar(f, name, "a source is present");
    if (m > 2) throw Error("dataset '" + name + "' in " + f.path() + " is " + std::to_string(m) + "; it must be 0, 1 or 2");
    return static_cast<SourceMode>(m);
}

// The first element of `v` that is not ok(v), or v.size(): each block is tested without a branch per
// element (so that the loop vectorizes; a 1024^3 grid has 10^9 of them), then searched if it fails.
template <typename Ok>
std::size_t firstNotOk(const std::vector<float>& v, Ok ok) {
    constexpr std::size_t block = 4096;
    for (std::size_t b = 0; b < v.size(); b += block) {
        const std::size_t e = std::min(v.size(), b + block);
        int all = 1;
        for (std::size_t i = b; i < e; ++i) all &= static_cast<int>(ok(v[i]));
        if (!all)
            for (std::size_t i = b; i < e; ++i)
                if (!ok(v[i])) return i;
    }
    return v.size();
}

void putField(Hdf5File& f, const std::string& name, const Grid& g, const Field& field) {
    if (field.scalar()) putFloat(f, name, field.values[0]);
    else putFloats(f, name, {g.nz, g.ny, g.nx}, field.values);
}

}  // namespace

std::size_t Simulation::pointsHeld() const { return planes.whole() ? grid.size() : planes.count * planePoints(grid); }

void requireWholeGrid(const Simulation& sim, const std::string& what) {
    if (sim.planes.whole()) return;
    throw Error(what + " needs the whole grid, but this simulation holds only planes " + std::to_string(sim.planes.first) + " to " +
                std::to_string(sim.planes.first + sim.planes.count - 1) + " of its per-point arrays (one MPI rank's slab)");
}

void checkGridSize(const Grid& g, std::size_t nt, const std::string& source, const PlaneRange& planes) {
    // The kernels take each side as a 32-bit count; Nt up to 2^31 steps.
    constexpr std::uint64_t maxSide = (1ULL << 31) - 1, maxSteps = 1ULL << 31;
    for (const auto& [side, name] : {std::pair<std::uint64_t, const char*>{g.nx, "Nx"}, {g.ny, "Ny"}, {g.nz, "Nz"}})
        if (side > maxSide) throw Error(source + ": " + name + " is " + std::to_string(side) + "; it must lie in [1, " + std::to_string(maxSide) + "]");
    if (nt > maxSteps) throw Error(source + ": Nt is " + std::to_string(nt) + "; it must lie in [1, " + std::to_string(maxSteps) + "]");
    const std::string what = source + ": the grid of " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
    const std::size_t points = checkedProduct({g.nx, g.ny, g.nz}, what);
    if (!planes.whole() && (planes.first > planeCount(g) || planes.count > planeCount(g) - planes.first))
        throw Error(what + " has " + std::to_string(planeCount(g)) + " planes along " + (g.is3D() ? "z" : "y") + ", not planes " +
                    std::to_string(planes.first) + " to " + std::to_string(planes.first + planes.count - 1));
    // About a dozen full fields (of the held planes) live on the host while the input is read and prepared.
    const std::size_t held = planes.whole() ? points : planes.count * planePoints(g);
    checkHostAllocation(checkedMul(held, 12 * sizeof(float), what), what);
}

std::vector<std::uint64_t> SensorMask::points(const Grid& grid) const {
    if (type == Type::Index) return index;
    std::vector<std::uint64_t> pts;
    for (const auto& c : cuboids)
        for (auto z = c.begin[2]; z <= c.end[2]; ++z)
            for (auto y = c.begin[1]; y <= c.end[1]; ++y)
                for (auto x = c.begin[0]; x <= c.end[0]; ++x) pts.push_back(x + grid.nx * (y + grid.ny * z));
    return pts;
}

Simulation readInputFile(const std::string& path) { return readInputFile(path, {}); }

Simulation readInputFile(const std::string& path, const std::function<PlaneRange(const Grid&)>& planesOf) {
    const Hdf5File f = Hdf5File::open(path);
    Simulation s;
    if (!f.hasAttribute("/", "file_type"))
        throw Error(path + " is not a k-Wave input file (it has no file_type attribute)");
    const std::string type = f.readStringAttribute("/", "file_type");
    if (type != "input") throw Error(path + " is a k-Wave '" + type + "' file, not an input file");
    auto attr = [&](const char* name) { return f.hasAttribute("/", name) ? f.readStringAttribute("/", name) : std::string(); };
    s.header.createdBy = attr("created_by");
    s.header.creationDate = attr("creation_date");
    s.header.fileDescription = attr("file_description");
    s.header.majorVersion = attr("major_version");
    s.header.minorVersion = attr("minor_version");
    if (s.header.majorVersion.empty() || s.header.minorVersion.empty())
        throw Error(path + " has no " + (s.header.majorVersion.empty() ? "major_version" : "minor_version") +
                    " attribute, so its k-Wave file version is unknown (1.0, 1.1 and 1.2 are supported)");
    if (s.header.majorVersion != "1" || (s.header.minorVersion != "0" && s.header.minorVersion != "1" && s.header.minorVersion != "2"))
        throw Error(path + " has k-Wave file version " + s.header.majorVersion + "." + s.header.minorVersion +
                    "; versions 1.0, 1.1 and 1.2 are supported");
    const int minor = std::stoi(s.header.minorVersion);

    const std::string always = "every input file has it";
    Grid& g = s.grid;
    g.nx = readU64Scalar(f, "Nx", always);
    g.ny = readU64Scalar(f, "Ny", always);
    g.nz = readU64Scalar(f, "Nz", always);
    s.nt = readU64Scalar(f, "Nt", always);
    if (g.nx < 2 || g.ny < 2 || g.nz < 1) throw Error(path + " describes a grid of " + std::to_string(g.nx) + " x " +
                                                      std::to_string(g.ny) + " x " + std::to_string(g.nz) + "; Nx and Ny must be at least 2");
    if (planesOf) s.planes = planesOf(g);
    checkGridSize(g, s.nt, path, s.planes);
    const HeldRange held = heldRange(g, s.planes);
    const bool is3D = g.nz > 1;
    const std::string in3D = "the grid is 3-D (Nz > 1)";
    s.dt = readFloatScalar(f, "dt", always);
    g.dx = readFloatScalar(f, "dx", always);
    g.dy = readFloatScalar(f, "dy", always);
    if (is3D) g.dz = readFloatScalar(f, "dz", in3D);
    s.cRef = readFloatScalar(f, "c_ref", always);
    s.pml.size[0] = readU64Scalar(f, "pml_x_size", always);
    s.pml.size[1] = readU64Scalar(f, "pml_y_size", always);
    s.pml.alpha[0] = readFloatScalar(f, "pml_x_alpha", always);
    s.pml.alpha[1] = readFloatScalar(f, "pml_y_alpha", always);
    if (is3D) {
        s.pml.size[2] = readU64Scalar(f, "pml_z_size", in3D);
        s.pml.alpha[2] = readFloatScalar(f, "pml_z_alpha", in3D);
    }
    if (minor >= 2) s.axisymmetric = readU64Scalar(f, "axisymmetric_flag", "file version 1.2 requires it");
    if (s.axisymmetric) throw Error(path + " describes an axisymmetric simulation, which this solver does not support");
    if (f.exists("elastic_flag") && readU64Scalar(f, "elastic_flag", always) != 0)
        throw Error(path + " describes an elastic simulation (elastic_flag = 1); this solver models fluid media only, as kspaceFirstOrder-OMP and -CUDA do");
    s.nonuniformGrid = readU64Scalar(f, "nonuniform_grid_flag", always);
    if (s.nonuniformGrid) throw Error(path + " uses a non-uniform grid, which this solver does not support");

    Medium& m = s.medium;
    m.nonlinear = readU64Scalar(f, "nonlinear_flag", always) != 0;
    const auto absorbing = readU64Scalar(f, "absorbing_flag", always);
    if (absorbing > 2) throw Error(path + " has absorbing_flag " + std::to_string(absorbing) + "; it must be 0, 1 or 2");
    m.absorption = static_cast<Absorption>(absorbing);

    const std::size_t n = g.size();
    m.c0 = readField(f, "c0", n, held, always);
    m.rho0 = readField(f, "rho0", n, held, always);
    m.rho0Sgx = readField(f, "rho0_sgx", n, held, always);
    m.rho0Sgy = readField(f, "rho0_sgy", n, held, always);
    if (is3D) m.rho0Sgz = readField(f, "rho0_sgz", n, held, in3D);
    if (m.nonlinear) m.bOnA = readField(f, "BonA", n, held, "nonlinear_flag is set");
    if (m.absorption != Absorption::Lossless) {
        m.alphaCoeff = readField(f, "alpha_coeff", n, held, "absorbing_flag is set");
        m.alphaPower = readFloatScalar(f, "alpha_power", "absorbing_flag is set");
    }

    const auto p0Flag = readU64Scalar(f, "p0_source_flag", always);
    if (p0Flag == 1) {
        const std::string name = "p0_source_input", why = "p0_source_flag is set";
        require(f, name, why);
        requireType(f, name, false);
        checkMatrixAttributes(f, name, "float");
        const auto count = io::elementCount(f.dims(name));
        if (count != n)
            throw Error("dataset '" + name + "' in " + path + " has " + std::to_string(count) + " elements where " + std::to_string(n) +
                        " are expected");
        s.p0 = readHeld(f, name, held);
    }

    s.p.length = readU64Scalar(f, "p_source_flag", always);
    if (s.p.length) {
        const std::string why = "p_source_flag is set";
        s.p.mode = readMode(f, "p_source_mode");
        s.p.many = readU64Scalar(f, "p_source_many", why) != 0;
        s.p.index = readIndexMatrix(f, "p_source_index", why);
        s.p.signal = readFloatMatrix(f, "p_source_input",
                                     checkedMul(s.p.many ? s.p.index.size() : 1, s.p.length, "p_source_input in " + path), why);
    }
    const char* uNames[3] = {"ux", "uy", "uz"};
    for (int a = 0; a < (is3D ? 3 : 2); ++a)
        s.u.length[a] = readU64Scalar(f, std::string(uNames[a]) + "_source_flag", a == 2 ? in3D : always);
    s.transducer.length = readU64Scalar(f, "transducer_source_flag", always);
    const bool anyU = s.u.length[0] || s.u.length[1] || s.u.length[2];
    if (anyU || s.transducer.length) s.u.index = readIndexMatrix(f, "u_source_index", "a velocity or transducer source is present");
    if (anyU) {
        const std::string why = "a velocity source is present";
        s.u.mode = readMode(f, "u_source_mode");
        s.u.many = readU64Scalar(f, "u_source_many", why) != 0;
        for (int a = 0; a < 3; ++a)
            if (s.u.length[a])
                s.u.signal[a] = readFloatMatrix(f, std::string(uNames[a]) + "_source_input",
                                                checkedMul(s.u.many ? s.u.index.size() : 1, s.u.length[a],
                                                           std::string(uNames[a]) + "_source_input in " + path),
                                                why);
    }
    if (s.transducer.length) {
        const std::string why = "transducer_source_flag is set";
        // k-Wave MATLAB writes the signal padded for the delays: the flag is its length minus the
        // largest delay, so the dataset holds at least `flag` elements (validate() checks the reach).
        s.transducer.signal = readFloatMatrix(f, "transducer_source_input", 0, why);
        if (s.transducer.signal.size() < s.transducer.length)
            throw Error("dataset 'transducer_source_input' in " + path + " has " + std::to_string(s.transducer.signal.size()) +
                        " elements, fewer than transducer_source_flag (" + std::to_string(s.transducer.length) + ")");
        require(f, "delay_mask", why);
        requireType(f, "delay_mask", true);
        checkMatrixAttributes(f, "delay_mask", "long");
        // The delay mask holds 0-based offsets into the signal (k-Wave subtracts 1 from 1-based delays).
        s.transducer.delay = f.readUInt64("delay_mask", s.u.index.size());
        for (auto& d : s.transducer.delay) d = d ? d - 1 : 0;
    }

    const auto maskType = minor >= 1 ? readU64Scalar(f, "sensor_mask_type", "file version 1.1 and later require it") : 0;
    if (maskType > 1) throw Error(path + " has sensor_mask_type " + std::to_string(maskType) + "; it must be 0 (index) or 1 (corners)");
    s.sensor.type = static_cast<SensorMask::Type>(maskType);
    if (maskType == 0) {
        s.sensor.index = readIndexMatrix(f, "sensor_mask_index", "sensor_mask_type is 0");
    } else {
        const std::string name = "sensor_mask_corners";
        require(f, name, "sensor_mask_type is 1");
        requireType(f, name, true);
        checkMatrixAttributes(f, name, "long");
        const auto v = f.readUInt64(name);
        if (v.size() % 6) throw Error("dataset '" + name + "' in " + path + " must hold 6 numbers per cuboid");
        for (std::size_t c = 0; c < v.size() / 6; ++c) {
            Cuboid cub;
            for (int a = 0; a < 3; ++a) {
                if (v[6 * c + a] == 0 || v[6 * c + 3 + a] == 0)
                    throw Error("dataset '" + name + "' in " + path + " holds index 0; k-Wave indices start at 1");
                cub.begin[a] = v[6 * c + a] - 1;
                cub.end[a] = v[6 * c + 3 + a] - 1;
            }
            s.sensor.cuboids.push_back(cub);
        }
    }
    validate(s, path);
    return s;
}

void validate(const Simulation& s, const std::string& source) {
    const Grid& g = s.grid;
    checkGridSize(g, s.nt, source, s.planes);
    const std::size_t n = g.size();
    // The per-point arrays: the grid's points, or the held planes' (element numbers in messages are the file's).
    const std::size_t held = s.pointsHeld(), firstHeld = s.planes.whole() ? 0 : s.planes.first * planePoints(g);
    const std::string grid = s.planes.whole() ? "a full grid" : "the held planes' " + std::to_string(held) + " points";
    auto fail = [&](const std::string& what) { throw Error(source + ": " + what); };
    // Every physical quantity finite and in its range: a NaN, infinite or zero dt, spacing, sound
    // speed or density would run to the end and write non-finite outputs.
    auto quantity = [&](double v, const std::string& name, bool zeroAllowed) {
        if (zeroAllowed) checkNonNegativeFinite(v, source + ": " + name);
        else checkPositiveFinite(v, source + ": " + name);
    };
    quantity(s.dt, "dt", false);
    quantity(g.dx, "dx", false);
    quantity(g.dy, "dy", false);
    if (g.is3D()) quantity(g.dz, "dz", false);
    quantity(s.cRef, "c_ref", false);
    const char* axes = "xyz";
    for (int a = 0; a < g.dimensions(); ++a) {
        const std::size_t len = a == 0 ? g.nx : a == 1 ? g.ny : g.nz;
        if (s.pml.size[a] > len / 2) fail("the PML (" + std::to_string(s.pml.size[a]) + " points per side) is thicker than half the grid");
        quantity(s.pml.alpha[a], std::string("pml_") + axes[a] + "_alpha", true);
    }
    auto checkField = [&](const Field& f, const char* name, bool zeroAllowed = false, bool anySign = false) {
        if (f.values.size() != 1 && f.values.size() != held) fail(std::string(name) + " must be a scalar or " + grid);
        const std::size_t i = anySign ? firstNotOk(f.values, [](float v) { return (v >= -FLT_MAX) & (v <= FLT_MAX); })
                              : zeroAllowed ? firstNotOk(f.values, [](float v) { return (v >= 0.0f) & (v <= FLT_MAX); })
                                            : firstNotOk(f.values, [](float v) { return (v > 0.0f) & (v <= FLT_MAX); });
        if (i == f.values.size()) return;
        const double v = f.values[i];
        fail(std::string(name) + " holds " + std::to_string(v) + (f.values.size() > 1 ? " at element " + std::to_string(firstHeld + i + 1) : "") +
             "; it must be " + (anySign ? "finite" : zeroAllowed ? "finite and zero or more" : "finite and positive"));
    };
    auto checkSignal = [&](const std::vector<float>& v, const char* name, std::size_t firstElement = 0) {
        const std::size_t i = firstNotOk(v, [](float x) { return (x >= -FLT_MAX) & (x <= FLT_MAX); });
        if (i < v.size()) fail(std::string(name) + " holds a non-finite value at element " + std::to_string(firstElement + i + 1));
    };
    const Medium& m = s.medium;
    checkField(m.c0, "c0");
    checkField(m.rho0, "rho0");
    checkField(m.rho0Sgx, "rho0_sgx");
    checkField(m.rho0Sgy, "rho0_sgy");
    if (g.is3D()) checkField(m.rho0Sgz, "rho0_sgz");
    if (m.rho0.scalar() != m.rho0Sgx.scalar() || m.rho0.scalar() != m.rho0Sgy.scalar() ||
        (g.is3D() && m.rho0.scalar() != m.rho0Sgz.scalar()))
        fail("rho0_sgx/y/z must be scalars when rho0 is a scalar and full grids when it is not");
    if (m.nonlinear) checkField(m.bOnA, "BonA", false, true);
    if (m.absorption != Absorption::Lossless) {
        checkField(m.alphaCoeff, "alpha_coeff", true);
        if (!std::isfinite(m.alphaPower)) fail("alpha_power is not a finite number");
        if (m.alphaPower == 1.0 && m.absorption == Absorption::PowerLaw)
            fail("alpha_power is 1, for which the power-law absorption operator is undefined");
        if (m.alphaPower < 0 || m.alphaPower >= 3) fail("alpha_power must lie in [0, 3)");
    }
    if (!s.p0.empty() && s.p0.size() != held) fail("p0_source_input must have " + (s.planes.whole() ? std::string("Nx*Ny*Nz") : grid) + " elements");
    checkSignal(s.p0, "p0_source_input", firstHeld);
    checkSignal(s.p.signal, "p_source_input");
    for (int a = 0; a < 3; ++a) checkSignal(s.u.signal[a], a == 0 ? "ux_source_input" : a == 1 ? "uy_source_input" : "uz_source_input");
    checkSignal(s.transducer.signal, "transducer_source_input");
    auto checkIndex = [&](const std::vector<std::uint64_t>& idx, const char* name) {
        for (auto i : idx)
            if (i >= n) fail(std::string(name) + " holds index " + std::to_string(i + 1) + ", outside the grid of " + std::to_string(n) + " points");
    };
    if (s.p.length) {
        checkIndex(s.p.index, "p_source_index");
        if (s.p.signal.size() != checkedMul(s.p.many ? s.p.index.size() : 1, s.p.length, source + ": p_source_input"))
            fail("p_source_input has the wrong size");
    }
    checkIndex(s.u.index, "u_source_index");
    for (int a = 0; a < 3; ++a)
        if (s.u.length[a] && s.u.signal[a].size() != checkedMul(s.u.many ? s.u.index.size() : 1, s.u.length[a], source + ": u_source_input"))
            fail("a velocity source input has the wrong size");
    if (s.transducer.length) {
        if (s.transducer.delay.size() != s.u.index.size()) fail("delay_mask must have one entry per u_source_index point");
        for (auto d : s.transducer.delay)
            if (d > s.transducer.signal.size() || std::min(s.nt, s.transducer.length) > s.transducer.signal.size() - d)
                fail("delay_mask reaches past the end of transducer_source_input");
    }
    if (s.sensor.type == SensorMask::Type::Index) {
        checkIndex(s.sensor.index, "sensor_mask_index");
        if (s.sensor.index.empty()) fail("sensor_mask_index is empty");
    } else {
        if (s.sensor.cuboids.empty()) fail("sensor_mask_corners holds no cuboid");
        const std::size_t len[3] = {g.nx, g.ny, g.nz};
        for (const auto& c : s.sensor.cuboids)
            for (int a = 0; a < 3; ++a)
                if (c.begin[a] > c.end[a] || c.end[a] >= len[a]) fail("sensor_mask_corners holds a cuboid outside the grid or with its corners reversed");
    }
}

void writeInputFile(const std::string& path, const Simulation& s) {
    requireWholeGrid(s, "writing an input file");
    validate(s, path);
    AtomicOutput out(path);
    {
        Hdf5File f = Hdf5File::create(out.writePath(), out.path());
        const Grid& g = s.grid;
        const bool is3D = g.is3D();
        putU64(f, "Nx", g.nx);
        putU64(f, "Ny", g.ny);
        putU64(f, "Nz", g.nz);
        putU64(f, "Nt", s.nt);
        putFloat(f, "dt", s.dt);
        putFloat(f, "dx", g.dx);
        putFloat(f, "dy", g.dy);
        if (is3D) putFloat(f, "dz", g.dz);
        putFloat(f, "c_ref", s.cRef);
        const char* axes[3] = {"x", "y", "z"};
        for (int a = 0; a < g.dimensions(); ++a) {
            putU64(f, std::string("pml_") + axes[a] + "_size", s.pml.size[a]);
            putFloat(f, std::string("pml_") + axes[a] + "_alpha", s.pml.alpha[a]);
        }
        putU64(f, "axisymmetric_flag", 0);
        putU64(f, "nonuniform_grid_flag", 0);
        const Medium& m = s.medium;
        putU64(f, "nonlinear_flag", m.nonlinear ? 1 : 0);
        putU64(f, "absorbing_flag", static_cast<std::uint64_t>(m.absorption));
        putField(f, "c0", g, m.c0);
        putField(f, "rho0", g, m.rho0);
        putField(f, "rho0_sgx", g, m.rho0Sgx);
        putField(f, "rho0_sgy", g, m.rho0Sgy);
        if (is3D) putField(f, "rho0_sgz", g, m.rho0Sgz);
        if (m.nonlinear) putField(f, "BonA", g, m.bOnA);
        if (m.absorption != Absorption::Lossless) {
            putField(f, "alpha_coeff", g, m.alphaCoeff);
            putFloat(f, "alpha_power", m.alphaPower);
        }
        putU64(f, "p0_source_flag", s.p0.empty() ? 0 : 1);
        if (!s.p0.empty()) putFloats(f, "p0_source_input", {g.nz, g.ny, g.nx}, s.p0);
        putU64(f, "p_source_flag", s.p.length);
        if (s.p.length) {
            putU64(f, "p_source_mode", static_cast<std::uint64_t>(s.p.mode));
            putU64(f, "p_source_many", s.p.many ? 1 : 0);
            putIndices(f, "p_source_index", {1, 1, s.p.index.size()}, s.p.index);
            putFloats(f, "p_source_input", {1, s.p.length, s.p.many ? s.p.index.size() : 1}, s.p.signal);
        }
        const char* uNames[3] = {"ux", "uy", "uz"};
        for (int a = 0; a < g.dimensions(); ++a) putU64(f, std::string(uNames[a]) + "_source_flag", s.u.length[a]);
        putU64(f, "transducer_source_flag", s.transducer.length);
        const bool anyU = s.u.length[0] || s.u.length[1] || s.u.length[2];
        if (anyU || s.transducer.length) putIndices(f, "u_source_index", {1, 1, s.u.index.size()}, s.u.index);
        if (anyU) {
            putU64(f, "u_source_mode", static_cast<std::uint64_t>(s.u.mode));
            putU64(f, "u_source_many", s.u.many ? 1 : 0);
            for (int a = 0; a < 3; ++a)
                if (s.u.length[a])
                    putFloats(f, std::string(uNames[a]) + "_source_input", {1, s.u.length[a], s.u.many ? s.u.index.size() : 1}, s.u.signal[a]);
        }
        if (s.transducer.length) {
            putFloats(f, "transducer_source_input", {1, 1, s.transducer.signal.size()}, s.transducer.signal);
            putIndices(f, "delay_mask", {1, 1, s.transducer.delay.size()}, s.transducer.delay);
        }
        putU64(f, "sensor_mask_type", static_cast<std::uint64_t>(s.sensor.type));
        if (s.sensor.type == SensorMask::Type::Index) {
            putIndices(f, "sensor_mask_index", {1, 1, s.sensor.index.size()}, s.sensor.index);
        } else {
            std::vector<std::uint64_t> c;
            for (const auto& cub : s.sensor.cuboids) {
                for (int a = 0; a < 3; ++a) c.push_back(cub.begin[a]);
                for (int a = 0; a < 3; ++a) c.push_back(cub.end[a]);
            }
            putIndices(f, "sensor_mask_corners", {1, s.sensor.cuboids.size(), 6}, c);
        }
        char date[64];
        const std::time_t now = std::time(nullptr);
        std::strftime(date, sizeof date, "%d-%b-%Y %H:%M:%S", std::localtime(&now));
        f.writeStringAttribute("/", "file_type", "input");
        f.writeStringAttribute("/", "created_by", s.header.createdBy.empty() ? "PortaCL k-Wave writer" : s.header.createdBy);
        f.writeStringAttribute("/", "creation_date", s.header.creationDate.empty() ? date : s.header.creationDate);
        f.writeStringAttribute("/", "file_description", s.header.fileDescription);
        f.writeStringAttribute("/", "major_version", "1");
        f.writeStringAttribute("/", "minor_version", "2");
        f.close();
    }
    out.commit();
}

}  // namespace portacl::kwave
