// k-Wave output files (as kspaceFirstOrder-OMP/-CUDA write them) and checkpoint files.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <thread>

#include "portacl/io/hdf5_file.hpp"
#include "portacl/kwave.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/runtime/host_cores.hpp"
#include "kwave_datasets.hpp"
#include "sensor_recorder.hpp"
#include "streamed_grid_fields.hpp"

namespace portacl::kwave {
namespace {

using io::Dims;
using io::Hdf5File;

std::string kwaveDate() {
    char buf[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%d/%m/%y, %H:%M:%S", std::localtime(&now));
    return buf;
}

std::string seconds(double s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%8.2fs", s);
    return buf;
}

// Writes one HDF5 file into out's temporary (the caller commits, alone or with a group).
template <typename Fn>
void writeHdf5(const AtomicOutput& out, Fn&& fn) {
    Hdf5File f = Hdf5File::create(out.writePath(), out.path());
    fn(f);
    f.close();
}

void writeHeaderScalars(Hdf5File& f, const Simulation& s, const OutputSelection& out, std::size_t timeIndex) {
    const Grid& g = s.grid;
    putU64(f, "Nx", g.nx);
    putU64(f, "Ny", g.ny);
    putU64(f, "Nz", g.nz);
    putU64(f, "axisymmetric_flag", s.axisymmetric);
    putU64(f, "Nt", s.nt);
    putU64(f, "t_index", timeIndex);
    putFloat(f, "dt", s.dt);
    putFloat(f, "dx", g.dx);
    putFloat(f, "dy", g.dy);
    if (g.is3D()) putFloat(f, "dz", g.dz);
    putFloat(f, "c_ref", s.cRef);
    const char* axes[3] = {"x", "y", "z"};
    for (int a = 0; a < g.dimensions(); ++a) putU64(f, std::string("pml_") + axes[a] + "_size", s.pml.size[a]);
    for (int a = 0; a < g.dimensions(); ++a) putFloat(f, std::string("pml_") + axes[a] + "_alpha", s.pml.alpha[a]);
    putU64(f, "p_source_flag", s.p.length);
    putU64(f, "p0_source_flag", s.p0.empty() ? 0 : 1);
    putU64(f, "transducer_source_flag", s.transducer.length);
    putU64(f, "ux_source_flag", s.u.length[0]);
    putU64(f, "uy_source_flag", s.u.length[1]);
    if (g.is3D()) putU64(f, "uz_source_flag", s.u.length[2]);
    putU64(f, "nonuniform_grid_flag", s.nonuniformGrid);
    putU64(f, "absorbing_flag", static_cast<std::uint64_t>(s.medium.absorption));
    putU64(f, "nonlinear_flag", s.medium.nonlinear ? 1 : 0);
    if (s.u.length[0] || s.u.length[1] || s.u.length[2]) {
        putU64(f, "u_source_many", s.u.many ? 1 : 0);
        putU64(f, "u_source_mode", static_cast<std::uint64_t>(s.u.mode));
    }
    if (s.p.length) {
        putU64(f, "p_source_many", s.p.many ? 1 : 0);
        putU64(f, "p_source_mode", static_cast<std::uint64_t>(s.p.mode));
    }
    if (out.copySensorMask) putU64(f, "sensor_mask_type", static_cast<std::uint64_t>(s.sensor.type));
}

// One sensor quantity: a dataset for index masks, a group of per-cuboid datasets for corners.
void writeSensorQuantity(Hdf5File& f, const Simulation& s, const std::string& name, const std::vector<double>& v,
                         std::size_t samples, bool raw, int compression) {
    const std::size_t ns = s.sensor.points(s.grid).size();
    if (s.sensor.type == SensorMask::Type::Index) {
        putFloats(f, name, raw ? Dims{1, samples, ns} : Dims{1, 1, ns}, v, compression);
        return;
    }
    f.createGroup(name);
    std::size_t offset = 0;  // of this cuboid's first point within one sample
    for (std::size_t c = 0; c < s.sensor.cuboids.size(); ++c) {
        const auto e = s.sensor.cuboids[c].extent();
        const std::size_t cn = e[0] * e[1] * e[2];
        std::vector<double> part;
        part.reserve(cn * (raw ? samples : 1));
        for (std::size_t t = 0; t < (raw ? samples : 1); ++t)
            part.insert(part.end(), v.begin() + t * ns + offset, v.begin() + t * ns + offset + cn);
        const Dims dims = raw ? Dims{samples, e[2], e[1], e[0]} : Dims{e[2], e[1], e[0]};
        putFloats(f, name + "/" + std::to_string(c + 1), dims, part, compression);
        offset += cn;
    }
}

std::uint64_t fingerprint(const Simulation& s) {
    requireWholeGrid(s, "a checkpoint (its input's fingerprint)");
    // FNV-1a over what makes one input differ from another of the same grid.
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* data, std::size_t bytes) {
        const auto* b = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 1099511628211ull;
    };
    auto vec = [&](const std::vector<float>& v) { mix(v.data(), v.size() * sizeof(float)); };
    vec(s.medium.c0.values);
    vec(s.medium.rho0.values);
    vec(s.medium.bOnA.values);
    vec(s.medium.alphaCoeff.values);
    vec(s.p0);
    vec(s.p.signal);
    for (const auto& sig : s.u.signal) vec(sig);
    mix(&s.dt, sizeof s.dt);
    mix(&s.nt, sizeof s.nt);
    return h;
}

void writeOutputContents(const AtomicOutput& file, const Simulation& s, const OutputSelection& out,
                         const Recording& recIn, const RunInfo& info, int compression, const StreamedGridFields* grids = nullptr) {
    Recording rec = recIn;
    rec.finalize();
    writeHdf5(file, [&](Hdf5File& f) {
        writeHeaderScalars(f, s, out, info.timeIndex);
        const Grid& g = s.grid;
        for (const auto& q : quantities(g)) {
            const auto o = outputsOf(q, out);
            auto get = [&](const std::string& name) -> const std::vector<double>* {
                auto it = rec.data.find(name);
                return it == rec.data.end() ? nullptr : &it->second;
            };
            if (o.raw && get(q)) writeSensorQuantity(f, s, q, *get(q), rec.samples, true, compression);
            for (const char* agg : {"_rms", "_max", "_min"})
                if (auto v = get(q + agg)) writeSensorQuantity(f, s, q + agg, *v, 1, false, compression);
            for (const char* all : {"_max_all", "_min_all", "_final"})
                if (auto v = get(q + all)) putFloats(f, q + all, {g.nz, g.ny, g.nx}, *v, compression);
        }
        if (grids)
            for (const std::string& name : grids->names) {
                createFloats(f, name, {g.nz, g.ny, g.nx}, compression);
                grids->write(name, [&](std::size_t first, std::size_t count, const float* values) {
                    f.writeFloatRange(name, first, count, values);
                });
            }
        if (out.copySensorMask) {
            if (s.sensor.type == SensorMask::Type::Index) {
                putIndices(f, "sensor_mask_index", {1, 1, s.sensor.index.size()}, s.sensor.index);
            } else {
                std::vector<std::uint64_t> c;
                for (const auto& cub : s.sensor.cuboids) {
                    c.insert(c.end(), cub.begin.begin(), cub.begin.end());
                    c.insert(c.end(), cub.end.begin(), cub.end.end());
                }
                putIndices(f, "sensor_mask_corners", {1, s.sensor.cuboids.size(), 6}, c);
            }
        }
        char host[256] = {0};
        gethostname(host, sizeof host - 1);
        f.writeStringAttribute("/", "file_type", "output");
        f.writeStringAttribute("/", "created_by", info.createdBy);
        f.writeStringAttribute("/", "creation_date", kwaveDate());
        f.writeStringAttribute("/", "file_description", s.header.fileDescription);
        f.writeStringAttribute("/", "major_version", "1");
        f.writeStringAttribute("/", "minor_version", "2");
        f.writeStringAttribute("/", "host_names", info.hostName.empty() ? host : info.hostName);
        f.writeStringAttribute("/", "number_of_cpu_cores", std::to_string(portacl::usableCores()));
        f.writeStringAttribute("/", "data_loading_phase_execution_time", seconds(info.loadSeconds));
        f.writeStringAttribute("/", "pre-processing_phase_execution_time", seconds(info.preprocessingSeconds));
        f.writeStringAttribute("/", "simulation_phase_execution_time", seconds(info.simulationSeconds));
        f.writeStringAttribute("/", "post-processing_phase_execution_time", seconds(info.postprocessingSeconds));
        f.writeStringAttribute("/", "total_execution_time", seconds(info.totalSeconds));
        f.writeStringAttribute("/", "total_memory_in_use", std::to_string(info.hostMemoryMB) + " MB");
        f.writeStringAttribute("/", "peak_core_memory_in_use", std::to_string(info.hostMemoryMB) + " MB");
    });
}

void writeCheckpointContents(const AtomicOutput& file, const Simulation& s, const KSpaceSolver::State& state) {
    writeHdf5(file, [&](Hdf5File& f) {
        f.writeStringAttribute("/", "file_type", "checkpoint");
        f.writeStringAttribute("/", "created_by", "kspaceFirstOrder-OpenCL (PortaCL)");
        f.writeStringAttribute("/", "creation_date", kwaveDate());
        f.writeStringAttribute("/", "file_description", s.header.fileDescription);
        f.writeStringAttribute("/", "major_version", "1");
        f.writeStringAttribute("/", "minor_version", "2");
        const Grid& g = s.grid;
        putU64(f, "Nx", g.nx);
        putU64(f, "Ny", g.ny);
        putU64(f, "Nz", g.nz);
        putU64(f, "Nt", s.nt);
        putU64(f, "t_index", state.timeIndex);
        if (!state.decomposition.empty()) f.writeStringAttribute("/", "decomposition", state.decomposition);
        const std::uint64_t fp = fingerprint(s);
        f.writeUInt64("input_fingerprint", {1, 1, 1}, &fp);
        for (const auto& [name, v] : state.fields) f.writeDouble(name, {g.nz, g.ny, g.nx}, v.data());
        f.createGroup("recording");
        const std::uint64_t samples = state.recording.samples;
        f.writeUInt64("recording/samples", {1}, &samples);
        for (const auto& [name, v] : state.recording.data) f.writeDouble("recording/" + name, {v.size()}, v.data());
    });
}

}  // namespace

void writeOutputFile(const std::string& path, const Simulation& s, const OutputSelection& out, const Recording& rec,
                     const RunInfo& info, int compression) {
    AtomicOutput file(path);
    writeOutputContents(file, s, out, rec, info, compression);
    file.commit();
}

void writeOutputFile(const std::string& path, const Simulation& s, const OutputSelection& out, const Recording& rec,
                     const RunInfo& info, int compression, const StreamedGridFields& grids) {
    AtomicOutput file(path);
    writeOutputContents(file, s, out, rec, info, compression, &grids);
    file.commit();
}

void writeCheckpointFile(const std::string& path, const Simulation& s, const KSpaceSolver::State& state) {
    AtomicOutput file(path);
    writeCheckpointContents(file, s, state);
    file.commit();
}

void writeCheckpointAndOutput(const std::string& checkpointPath, const std::string& outputPath, const Simulation& s,
                              const KSpaceSolver::State& state, const OutputSelection& out, const RunInfo& info,
                              int compression) {
    OutputGroup files;
    writeCheckpointContents(files.add(checkpointPath), s, state);
    writeOutputContents(files.add(outputPath), s, out, state.recording, info, compression);
    files.commit();
}

KSpaceSolver::State readCheckpointFile(const std::string& path, const Simulation& s) {
    const Hdf5File f = Hdf5File::open(path);
    if (!f.hasAttribute("/", "file_type") || f.readStringAttribute("/", "file_type") != "checkpoint")
        throw Error(path + " is not a k-Wave checkpoint file");
    const Grid& g = s.grid;
    if (!f.exists("input_fingerprint") || f.readScalarUInt64("Nx") != g.nx || f.readScalarUInt64("Ny") != g.ny ||
        f.readScalarUInt64("Nz") != g.nz || f.readScalarUInt64("Nt") != s.nt ||
        f.readScalarUInt64("input_fingerprint") != fingerprint(s))
        throw Error("the checkpoint " + path + " belongs to another input file");
    KSpaceSolver::State st;
    st.timeIndex = f.readScalarUInt64("t_index");
    if (f.hasAttribute("/", "decomposition")) st.decomposition = f.readStringAttribute("/", "decomposition");
    const char* fields[7] = {"p", "ux_sgx", "uy_sgy", "uz_sgz", "rhox", "rhoy", "rhoz"};
    for (const char* name : fields)
        if (f.exists(name)) st.fields[name] = f.readDouble(name, g.size());
    st.recording.samples = f.readScalarUInt64("recording/samples");
    for (const std::string& q : quantities(g))
        for (const char* suffix : {"", "_rms", "_max", "_min", "_max_all", "_min_all"}) {
            const std::string name = "recording/" + q + suffix;
            if (f.exists(name)) st.recording.data[q + suffix] = f.readDouble(name);
        }
    return st;
}

void requireDecomposition(const KSpaceSolver::State& state, const std::string& decomposition) {
    if (state.decomposition == decomposition) return;
    auto name = [](const std::string& d) { return d.empty() ? std::string("one device or the global slabs") : d; };
    throw Error("the checkpoint was written by " + name(state.decomposition) + " and this run is " + name(decomposition) +
                "; continue it " + (state.decomposition.empty() ? "without --decomposition lfb" : "with the same ranks and --overlap") +
                " (the local Fourier basis's approximation depends on them)");
}

}  // namespace portacl::kwave
