// The completeness pass on the device (docs/voronoi.md, "Completeness pass"): the faces of every
// frame not done yet packed into one buffer, one launch of voronoi_faces, one read, then each frame's
// exact host step (Tracer::completePass) on the host threads.
#include <algorithm>
#include <functional>
#include <type_traits>

#include "voronoi/device_state.hpp"

namespace portacl::voronoi::device {

template <typename R4, typename R>
bool completenessPass(Context& ctx, DeviceState& ds, const FrameData<R4, R>& data, const std::string& options,
                      std::vector<std::unique_ptr<Tracer>>& tracers, std::vector<char>& done, HostPool& pool, HostPhases& times,
                      PhaseTick& tick, const std::function<void()>& beforeChanges) {
    const Precision p = std::is_same<R, double>::value ? Precision::Double : Precision::Float;
    cl::Kernel& kernel = ctx.kernel("voronoi.cl", "voronoi_faces", p, options);
    std::vector<int> frames;
    for (std::size_t f = 0; f < tracers.size(); ++f)
        if (!done[f]) frames.push_back(static_cast<int>(f));
    std::vector<FacePass> passes(frames.size());
    if (frames.size() == 1) {
        passes[0] = tracers[frames[0]]->faceTasks(&pool);  // one frame: its faces on every host thread
    } else {
        pool.forRange(frames.size(), 1, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) passes[i] = tracers[frames[i]]->faceTasks();
        });
    }
    std::size_t n = 0, nk = 0;
    for (const auto& fp : passes) n += fp.tasks.size(), nk += fp.known.size();
    // One buffer: tasks (int4: b, c, known offset, known count), kinds (frame << 2 | bounded << 1 | holes),
    // windows, tops (x, y, z, t), the known balls, each frame's smallest radius, the answers.
    std::size_t bytes = 0;
    const auto part = [&](std::size_t size) {
        const std::size_t at = bytes;
        bytes += (size + 127) / 128 * 128;
        return at;
    };
    const std::size_t atTasks = part(n * sizeof(cl_int4)), atInfo = part(n * sizeof(cl_int)), atTau = part(n * sizeof(R)),
                      atTop = part(n * sizeof(R4)), atKnown = part(nk * sizeof(cl_int)), atRmin = part(tracers.size() * sizeof(R)),
                      atOut = part(n * sizeof(cl_int));
    ds.passInput.resize(atOut / sizeof(cl_double4) + 1);
    unsigned char* const in = reinterpret_cast<unsigned char*>(ds.passInput.data());
    for (std::size_t f = 0; f < tracers.size(); ++f) reinterpret_cast<R*>(in + atRmin)[f] = static_cast<R>(tracers[f]->minRadius());
    // Packed on the host threads: each frame's tasks and known balls at its offsets.
    std::vector<std::size_t> taskAt(frames.size() + 1, 0), knownAt(frames.size() + 1, 0);
    for (std::size_t i = 0; i < frames.size(); ++i)
        taskAt[i + 1] = taskAt[i] + passes[i].tasks.size(), knownAt[i + 1] = knownAt[i] + passes[i].known.size();
    pool.forRange(n, 4096, [&](std::size_t b, std::size_t e) {
        std::size_t i = std::upper_bound(taskAt.begin(), taskAt.end(), b) - taskAt.begin() - 1;
        for (std::size_t t = b; t < e; ++t) {
            while (t >= taskAt[i + 1]) ++i;
            const FaceTask& task = passes[i].tasks[t - taskAt[i]];
            const std::size_t k = knownAt[i];
            reinterpret_cast<cl_int4*>(in + atTasks)[t] = cl_int4{{task.b, task.c, static_cast<cl_int>(k + task.known0), task.knownCount}};
            reinterpret_cast<cl_int*>(in + atInfo)[t] = frames[i] << 2 | task.bounded << 1 | task.holes;
            reinterpret_cast<R*>(in + atTau)[t] = static_cast<R>(task.tau);
            reinterpret_cast<R4*>(in + atTop)[t] = R4{{static_cast<R>(task.top[0]), static_cast<R>(task.top[1]), static_cast<R>(task.top[2]),
                                                        static_cast<R>(task.top[3])}};
            const int* known = passes[i].known.data() + task.known0;
            std::copy(known, known + task.knownCount, reinterpret_cast<cl_int*>(in + atKnown) + k + task.known0);
        }
    });
    ds.passAnswers.assign(n, 0);
    if (n > 0) {
        ds.passBuf.reserve(ctx, bytes, "voronoi completeness pass");
        ctx.writeAsync(ds.passBuf.buffer(), in, atOut, "upload voronoi faces", ctx.stateHandle<DeviceState>());
        times.passTasks += lap(tick);
        const cl_uint8 at{{static_cast<cl_uint>(atTasks), static_cast<cl_uint>(atInfo), static_cast<cl_uint>(atTau),
                           static_cast<cl_uint>(atTop), static_cast<cl_uint>(atKnown), static_cast<cl_uint>(atOut),
                           static_cast<cl_uint>(atRmin), 0}};
        setArg(kernel, 0, static_cast<cl_uint>(n)), setArg(kernel, 1, ds.passBuf.buffer()), setArg(kernel, 2, at);
        setArg(kernel, 3, data.balls.buffer()), setArg(kernel, 4, ds.cellStartBuf.buffer()), setArg(kernel, 5, data.cellBalls.buffer());
        setArg(kernel, 6, ds.cellIndexBuf.buffer()), setArg(kernel, 7, data.grid.buffer()), setArg(kernel, 8, ds.dimsBuf.buffer());
        setArg(kernel, 9, ds.offsetsBuf.buffer()), setArg(kernel, 10, data.rmax.buffer());
        const std::size_t group = std::min<std::size_t>(
            64, workGroupLimit(kernel, ctx.device().device));
        ctx.launch(kernel, cl::NDRange((n + group - 1) / group * group), cl::NDRange(group));
        ctx.read(ds.passBuf.buffer(), ds.passAnswers.data(), n * sizeof(cl_int), "download voronoi faces", atOut);
        times.passDevice += lap(tick, true);
    } else {
        times.passTasks += lap(tick);
    }
    std::vector<std::size_t> first(frames.size() + 1, 0);
    for (std::size_t i = 0; i < frames.size(); ++i) first[i + 1] = first[i] + passes[i].tasks.size();
    std::vector<char> seeded(frames.size(), 0);
    beforeChanges();
    pool.forRange(frames.size(), 1, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
            std::vector<FaceScan> scans(passes[i].tasks.size());
            for (std::size_t j = 0; j < scans.size(); ++j) {
                const cl_int a = ds.passAnswers[first[i] + j];
                scans[j].flagged = a < 0;
                scans[j].triples = a & 0x7fffffff;
            }
            seeded[i] = tracers[frames[i]]->completePass(passes[i], scans);
        }
    });
    bool any = false;
    for (std::size_t i = 0; i < frames.size(); ++i) {
        if (seeded[i]) any = true;
        else done[frames[i]] = 1;
        times.passFaces += passes[i].tasks.size();
    }
    for (cl_int a : ds.passAnswers) times.passTriples += a & 0x7fffffff, times.passFlagged += a < 0;
    ++times.passRounds;
    times.passHost += lap(tick);
    return any;
}

template bool completenessPass(Context&, DeviceState&, const FrameData<cl_float4, float>&, const std::string&,
                               std::vector<std::unique_ptr<Tracer>>&, std::vector<char>&, HostPool&, HostPhases&,
                               PhaseTick&, const std::function<void()>&);
template bool completenessPass(Context&, DeviceState&, const FrameData<cl_double4, double>&, const std::string&,
                               std::vector<std::unique_ptr<Tracer>>&, std::vector<char>&, HostPool&, HostPhases&,
                               PhaseTick&, const std::function<void()>&);

}  // namespace portacl::voronoi::device
