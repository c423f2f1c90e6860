#include "sensor_sampling.hpp"

#include <algorithm>

#include "portacl/runtime/error.hpp"
#include "storage_format.hpp"

namespace portacl::kwave {
namespace {

cl_uint u32(std::size_t v) { return static_cast<cl_uint>(v); }
cl_ulong u64(std::size_t v) { return static_cast<cl_ulong>(v); }

}  // namespace

SensorSampling::SensorSampling(Context& ctx, const Simulation& sim, const RunOptions& opt,
                               const std::string& kernelOptions, const cl::NDRange& local)
    : ctx_(ctx), n_(sim.grid.size()), prec_(opt.precision), realBytes_(opt.precision == Precision::Double ? 8 : 4),
      local_(local), points_(sim.sensor.points(sim.grid)) {
    kSample_ = ctx.newKernel("kwave.cl", "kwave_sample", prec_, kernelOptions);
    kSampleAll_ = ctx.newKernel("kwave.cl", "kwave_sample_all", prec_, kernelOptions);
    const auto qs = quantities(sim.grid);
    const std::size_t samplesTotal = sim.nt > opt.outputs.startIndex ? sim.nt - opt.outputs.startIndex : 0;
    plannedBytes_ = points_.size() * 8;
    for (const auto& q : qs) {
        Sampler s;
        s.quantity = q;
        s.field = fieldOf(q);
        s.out = outputsOf(q, opt.outputs);
        if (!s.out.any()) continue;
        // Raw samples: two device blocks of up to 64 steps (and at most 16 MiB each).
        const long blockSteps = std::max(1L, ctx.tuning().getInt("kwave", "sample_block_steps", 64, 1, 1L << 20));
        s.chunk = std::max<std::size_t>(
            1, std::min({std::max<std::size_t>(samplesTotal, 1), static_cast<std::size_t>(blockSteps),
                         (std::size_t(16) << 20) / std::max<std::size_t>(points_.size() * realBytes_, 1)}));
        plannedBytes_ += ((s.out.raw ? 2 * s.chunk : 0) + 3) * points_.size() * realBytes_ + 2 * n_ * realBytes_;
        samplers_.push_back(s);
    }
}

SensorSampling::~SensorSampling() {
    try {
        ctx_.finish();
        for (auto& s : samplers_)
            for (auto& b : s.block)
                if (b.host) ctx_.unmap(b.pinned, b.host, "unmap raw samples (host)");
        ctx_.finish();
    } catch (...) {
    }
}

void SensorSampling::allocate() {
    auto alloc = [&](std::size_t bytes, const std::string& what) {
        deviceBytes_ += bytes;
        cl::Buffer b = ctx_.buffer(std::max<std::size_t>(bytes, 8), what);
        ctx_.fill(b, 0, std::max<std::size_t>(bytes, 8), "zero " + what);
        return b;
    };
    if (!sensorless()) pointsBuf_ = ctx_.upload(points_, "sensor points");
    deviceBytes_ += points_.size() * 8;
    const std::size_t ns = points_.size();
    for (auto& s : samplers_) {
        for (auto& b : s.block) {
            const std::size_t bytes = (s.out.raw ? s.chunk : 1) * ns * realBytes_;
            b.device = alloc(bytes, "raw samples");
            if (!s.out.raw) continue;
            const std::size_t pinnedBytes = std::max<std::size_t>(bytes, 8);
            b.pinned = ctx_.buffer(pinnedBytes, "raw samples (host)", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
            b.host = ctx_.map(b.pinned, CL_MAP_READ | CL_MAP_WRITE, pinnedBytes, "map raw samples (host)");
        }
        s.sumsq = alloc((s.out.rms ? ns : 1) * realBytes_, "rms");
        s.mx = alloc((s.out.max ? ns : 1) * realBytes_, "max");
        s.mn = alloc((s.out.min ? ns : 1) * realBytes_, "min");
        s.mxAll = alloc((s.out.maxAll ? n_ : 1) * realBytes_, "max_all");
        s.mnAll = alloc((s.out.minAll ? n_ : 1) * realBytes_, "min_all");
    }
}

void SensorSampling::launch(cl::Kernel& k, std::size_t count) { ctx_.launch(k, cl::NDRange(count), local_); }

void SensorSampling::warmUp(const cl::Buffer& p) {
    const std::size_t ns = points_.size();
    for (auto& s : samplers_) {
        if (!s.out.sampled() || sensorless()) continue;  // flags 0: the kernels read and write nothing
        setArgs(kSample_, 0, p, pointsBuf_, u32(ns), s.block[0].device, u64(0), s.sumsq, s.mx, s.mn, 0u, 0u);
        launch(kSample_, ns);
        setArgs(kSampleAll_, 0, p, s.mxAll, s.mnAll, u64(n_), 0u, 0u);
        launch(kSampleAll_, n_);
    }
}

void SensorSampling::sample(const FieldSource& field) {
    const cl_uint first = rec_.samples == 0 ? 1 : 0;
    const std::size_t ns = points_.size();
    for (auto& s : samplers_) {
        if (!s.out.sampled()) continue;
        // Asked for even without points here: a distributed solver's field may come from a collective
        // transform that every rank joins.
        const cl::Buffer& source = field(s.field);
        const cl_uint flags = (s.out.raw ? 1u : 0u) | (s.out.rms ? 2u : 0u) | (s.out.max ? 4u : 0u) | (s.out.min ? 8u : 0u);
        if (flags && ns) {
            RawBlock& b = s.block[s.current];
            setArgs(kSample_, 0, source, pointsBuf_, u32(ns), b.device, u64(b.steps * ns), s.sumsq, s.mx, s.mn,
                    flags, first);
            launch(kSample_, ns);
        }
        const cl_uint allFlags = (s.out.maxAll ? 1u : 0u) | (s.out.minAll ? 2u : 0u);
        if (allFlags) {
            setArgs(kSampleAll_, 0, source, s.mxAll, s.mnAll, u64(n_), allFlags, first);
            launch(kSampleAll_, n_);
        }
        if (s.out.raw && ++s.block[s.current].steps == s.chunk) blockFull(s);
    }
    ++rec_.samples;
}

// The current block is full: its read to the host starts (not waited for) and sampling moves to
// the other block. This slot's previous block, read two blocks ago, is taken first.
void SensorSampling::blockFull(Sampler& s) {
    RawBlock& b = s.block[s.current];
    if (b.pending) takeBlock(s, b);
    startRead(s, b);
    s.current ^= 1;
}

void SensorSampling::startRead(Sampler& s, RawBlock& b) {
    const std::size_t bytes = b.steps * points_.size() * realBytes_;
    // A slab of a distributed run may hold no sensor point: nothing to read then.
    b.read = bytes ? ctx_.readAsync(b.device, b.host, bytes, "download " + s.quantity + " samples") : ctx_.marker("no samples");
    b.readSteps = b.steps;
    b.steps = 0;
    b.pending = true;
}

// Waits for a block's read (long complete in a running simulation) and appends its samples.
void SensorSampling::takeBlock(Sampler& s, RawBlock& b) {
    ctx_.wait(b.read, "raw samples");
    const std::size_t count = b.readSteps * points_.size();
    auto& dst = rec_.data[s.quantity];
    if (prec_ == Precision::Double) {
        const double* v = static_cast<const double*>(b.host);
        dst.insert(dst.end(), v, v + count);
    } else {
        const float* v = static_cast<const float*>(b.host);
        dst.insert(dst.end(), v, v + count);
    }
    b.pending = false;
    b.readSteps = 0;
}

// Everything sampled so far into the recording, in step order: the current slot's earlier block
// (the older one), the other slot's, then the current block's partial fill.
void SensorSampling::flushRaw(Sampler& s) {
    if (!s.out.raw) return;
    RawBlock& cur = s.block[s.current];
    RawBlock& other = s.block[s.current ^ 1];
    if (cur.pending) takeBlock(s, cur);
    if (other.pending) takeBlock(s, other);
    if (cur.steps) {
        startRead(s, cur);
        takeBlock(s, cur);
    }
}

std::vector<double> SensorSampling::download(const cl::Buffer& b, std::size_t count, const std::string& what) {
    std::vector<unsigned char> bytes(count * realBytes_);
    if (count) ctx_.read(b, bytes.data(), bytes.size(), "download " + what);
    return decode(bytes, StorageFormat::Element, prec_);
}

Recording SensorSampling::recording(const FieldSource& field, bool withGridFields) {
    for (auto& s : samplers_) flushRaw(s);
    Recording r = rec_;
    const std::size_t ns = points_.size();
    for (auto& s : samplers_) {
        if (r.samples) {
            if (s.out.rms) r.data[s.quantity + "_rms"] = download(s.sumsq, ns, "rms");
            if (s.out.max) r.data[s.quantity + "_max"] = download(s.mx, ns, "max");
            if (s.out.min) r.data[s.quantity + "_min"] = download(s.mn, ns, "min");
        }
        if (s.out.raw && !r.data.count(s.quantity)) r.data[s.quantity] = {};
    }
    if (withGridFields)
        for (const auto& [name, buffer] : gridFields(field)) r.data[name] = download(*buffer, n_, name);
    return r;
}

std::vector<std::pair<std::string, const cl::Buffer*>> SensorSampling::gridFields(const FieldSource& field) {
    std::vector<std::pair<std::string, const cl::Buffer*>> grids;
    const char* uFinal[3] = {"ux_final", "uy_final", "uz_final"};
    for (auto& s : samplers_) {
        if (rec_.samples) {
            if (s.out.maxAll) grids.emplace_back(s.quantity + "_max_all", &s.mxAll);
            if (s.out.minAll) grids.emplace_back(s.quantity + "_min_all", &s.mnAll);
        }
        if (s.out.final) grids.emplace_back(s.field == 0 ? "p_final" : uFinal[s.field - 1], &field(s.field));
    }
    return grids;
}

void SensorSampling::restore(const Recording& saved) {
    rec_ = Recording();
    rec_.samples = saved.samples;
    const std::size_t ns = points_.size();
    ctx_.finish();
    for (auto& smp : samplers_) {
        for (auto& b : smp.block) {
            b.steps = b.readSteps = 0;
            b.pending = false;
        }
        smp.current = 0;
        auto restore = [&](bool on, const std::string& name, cl::Buffer& b, std::size_t count) {
            if (!on || !rec_.samples) return;
            auto it = saved.data.find(name);
            if (it == saved.data.end() || it->second.size() != count)
                throw Error("the checkpoint lacks '" + name + "', which this run records");
            const auto bytes = encode(it->second, StorageFormat::Element, prec_);
            if (!bytes.empty()) ctx_.write(b, bytes.data(), bytes.size(), "upload " + name);
        };
        if (smp.out.raw) {
            auto it = saved.data.find(smp.quantity);
            if (rec_.samples && (it == saved.data.end() || it->second.size() != rec_.samples * ns))
                throw Error("the checkpoint lacks the raw '" + smp.quantity + "' samples this run records");
            if (it != saved.data.end()) rec_.data[smp.quantity] = it->second;
        }
        restore(smp.out.rms, smp.quantity + "_rms", smp.sumsq, ns);
        restore(smp.out.max, smp.quantity + "_max", smp.mx, ns);
        restore(smp.out.min, smp.quantity + "_min", smp.mn, ns);
        restore(smp.out.maxAll, smp.quantity + "_max_all", smp.mxAll, n_);
        restore(smp.out.minAll, smp.quantity + "_min_all", smp.mnAll, n_);
    }
}

}  // namespace portacl::kwave
