// The FFTW backend (FFTW 3.3, threaded), for CPU devices: their buffers are the host's memory, so
// FFTW's transform runs on the host's threads on the same memory the OpenCL kernels before and after
// it use, without copies.
//
// Three ways into the memory. Buffers shared with the host in place (Context::sharedBuffer, what
// fft::buffer gives FFTW) have host addresses: by default the calling thread waits for the queue up
// to that point (one marker) and transforms there (--profile shows its host time). Other buffers are
// mapped (zero-copy on a CPU device, through the context's named transfers, which wait for the
// queue), transformed on the calling thread and unmapped before the next command; the profile's
// [fft] fftw_map_shared = 1 maps shared ones too (two maps and two unmaps a transform where the wait
// is one command: each command wakes the device's threads). With [fft] fftw_host_tasks = 1 the
// transform of shared buffers goes into the queue as a host task (clEnqueueNativeKernel): it runs on
// one of the device's threads when the commands before it are done, so the host never waits for the
// queue. (On PoCL 3.1 with 2 threads that made the 128^3 k-Wave step slower, not faster:
// docs/engineering/measurements.md; it is there to be measured on more cores.)
//
// Layout: the guru64 interface describes our C-order shape, batch and (for skipFastestAxis) the
// untransformed fastest axis directly, in elements of each side (reals for a real side, complex
// numbers for a complex one). FFTW's inverse is unscaled; the 1/N of our convention is applied to
// the output after the transform, on the same threads.
//
// Batches: FFTW's own plan of a batch loops over its items inside every pass (x of every item, then
// y of every item, ...), so each pass streams the whole batch through the caches. With the profile's
// [fft] fftw_batch_loop = 1 the plan of a batch of large items (fftw_batch_loop_points and up, a 64^3
// field unless the profile says otherwise: k-Wave's fields) is one item's, run on each item in turn,
// as k-Wave's OMP code runs its transforms: an item's passes then stay in the cache a batch's
// overflow (docs/engineering/measurements.md, "FFTW's batches"). A batch of small items (the
// distributed solver's thousands of lines) keeps FFTW's batch plan: run item by item it would pay
// the threads' hand-over once a line.
//
// Plans: made with the profile's [fft] fftw_planner (measure unless it says estimate or patient) on
// scratch arrays of FFTW's own alignment, executed on the buffers' memory through FFTW's new-array
// functions; memory of another alignment gets a plan of its own made with FFTW_UNALIGNED. Threads:
// the device's compute units, FFTW's parallel loops run on loop_pool.hpp's workers. Measured plans are kept as FFTW wisdom in the program cache's folder
// (fftw-wisdom-float.txt, fftw-wisdom-double.txt; written atomically) unless the disk cache is off.
// FFTW's planner and wisdom are process-global and not thread-safe: they run under one mutex.
#include <fftw3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "fft/fft_internal.hpp"
#include "fft/fftw_api.hpp"
#include "fft/loop_pool.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/program_cache.hpp"

namespace portacl::fft::detail {

namespace {

std::mutex& plannerMutex() {
    static std::mutex* m = new std::mutex;  // never destroyed: plans may be released during static destruction
    return *m;
}

// The planner rigour of the device profile's [fft] fftw_planner.
unsigned plannerFlags(const TuningProfile& profile) {
    const std::string v = profile.get("fft", "fftw_planner", "measure");
    if (v == "estimate") return FFTW_ESTIMATE;
    if (v == "measure") return FFTW_MEASURE;
    if (v == "patient") return FFTW_PATIENT;
    throw Error("tuning profile " + profile.path + ": [fft] fftw_planner must be estimate, measure or patient, not '" + v + "'");
}

// Wisdom file of one precision; loaded once per process (call with plannerMutex() held).
template <typename Real>
std::string wisdomPath() {
    return ProgramCache::directory() + "/fftw-wisdom-" + Fftw<Real>::name + ".txt";
}

template <typename Real>
void setUp(bool useWisdom) {  // call with plannerMutex() held
    static bool threadsReady = false, wisdomLoaded = false;
    if (!threadsReady) {
        Fftw<Real>::initThreads();
        threadsReady = true;
    }
    if (useWisdom && !wisdomLoaded) {
        const std::string path = wisdomPath<Real>();
        if (std::filesystem::exists(path)) Fftw<Real>::importWisdom(path.c_str());  // a bad file only costs measuring again
        wisdomLoaded = true;
    }
}

template <typename Real>
void saveWisdom() {  // call with plannerMutex() held; failures are ignored (the wisdom is an optimisation)
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string path = wisdomPath<Real>();
    fs::create_directories(fs::path(path).parent_path(), ec);
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());  // the planner's mutex orders this process's writers
    if (Fftw<Real>::exportWisdom(tmp.c_str())) fs::rename(tmp, path, ec);
    if (ec || fs::exists(tmp)) fs::remove(tmp, ec);
}

// Multiplies `count` reals by `factor` on up to `threads` threads (the inverse's 1/N).
template <typename Real>
void scale(Real* data, std::size_t count, Real factor, int threads) {
    const auto part = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) data[i] *= factor;
    };
    const std::size_t minPerThread = std::size_t(1) << 16;
    const std::size_t n = std::max<std::size_t>(1, std::min<std::size_t>(threads, count / minPerThread));
    if (n == 1) return part(0, count);
    std::vector<std::thread> workers;
    const std::size_t step = (count + n - 1) / n;
    std::size_t t = 1;
    try {
        for (; t < n; ++t) workers.emplace_back(part, std::min(count, t * step), std::min(count, (t + 1) * step));
    } catch (const std::system_error&) {  // no thread to be had: this one does the rest
        part(std::min(count, t * step), count);
    }
    part(0, std::min(count, step));
    for (auto& w : workers) w.join();
}

// The smallest item a batch is run item by item for ([fft] fftw_batch_loop), unless the profile's
// fftw_batch_loop_points says otherwise: a 64^3 field (the loop gained at 128^3, nothing at
// 32^3-64^3). The distributed k-Wave solver's batches of lines and planes took 123-135 ms a step item
// by item at 128^3 over two ranks of 16 cores, 51 ms as FFTW's batches (docs/engineering/kwave.md).
constexpr long kItemLoopPoints = 1L << 18;

template <typename Real>
class FftwPlan final : public Plan {
    using F = Fftw<Real>;

public:
    FftwPlan(Context& ctx, const PlanDesc& d) : ctx_(ctx) {
        desc_ = d;
        backend_ = Backend::FFTW;
        if (!ctx.device().isCpu)
            throw Error("the FFTW backend transforms on the host, so it runs on CPU devices only; " + ctx.device().label() +
                        " is not one (use vkfft or clfft)");
        threads_ = static_cast<int>(std::max(1u, ctx.device().computeUnits));
        reserveLoopWorkers(threads_ - 1);
        flags_ = plannerFlags(ctx.tuning());
        hostTasks_ = ctx.tuning().get("fft", "fftw_host_tasks", "0") == "1" && ctx.runsHostTasks();
        const long loopPoints = ctx.tuning().getInt("fft", "fftw_batch_loop_points", kItemLoopPoints, 1, 1L << 40);
        itemLoop_ = d.batch > 1 && static_cast<long>(totalPoints(d)) >= loopPoints && ctx.tuning().get("fft", "fftw_batch_loop", "0") == "1";
        mapShared_ = ctx.tuning().get("fft", "fftw_map_shared", "0") == "1";
        useWisdom_ = ctx.options().useDiskCache && flags_ != FFTW_ESTIMATE;
        describeLayout();
        std::lock_guard<std::mutex> lock(plannerMutex());
        setUp<Real>(useWisdom_);
        makePlans(0);
    }

    ~FftwPlan() override {
        std::lock_guard<std::mutex> lock(plannerMutex());  // destroying a plan touches the planner's state
        for (auto& set : plans_)
            for (auto p : set)
                if (p) F::destroy(p);
    }

    FftwPlan(const FftwPlan&) = delete;
    FftwPlan& operator=(const FftwPlan&) = delete;

    void execute(const cl::Buffer& in, const cl::Buffer& out, Direction dir) override {
        checkDirection(desc_, dir);
        checkBuffers(desc_, dir, in, out);
        rethrowTaskFailure();
        const std::string name = eventName(desc_, backend_, dir);
        if (hostTasks_ || !mapShared_) {  // shared buffers: no map
            void* src = ctx_.hostAddress(in);
            void* dst = desc_.inPlace ? src : ctx_.hostAddress(out);
            if (src && dst) return hostTasks_ ? enqueue(src, dst, dir, name) : waitAndRun(src, dst, dir, name);
        }
        const std::size_t inBytes = inputBytes(desc_, dir), outBytes = outputBytes(desc_, dir);
        // FFTW keeps the input of an out-of-place R2C and C2C; an out-of-place C2R overwrites it.
        const cl_map_flags inFlags = desc_.inPlace || desc_.kind == Kind::C2R ? CL_MAP_READ | CL_MAP_WRITE : CL_MAP_READ;
        void* src = ctx_.map(in, inFlags, desc_.inPlace ? std::max(inBytes, outBytes) : inBytes, name + " (map)");
        void* dst = src;
        try {
            if (!desc_.inPlace) dst = ctx_.map(out, CL_MAP_WRITE, outBytes, name + " (map output)");
            const auto started = std::chrono::steady_clock::now();
            run(src, dst, dir, planSet(src, dst));
            ctx_.profiler().recordHost(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        } catch (...) {
            if (dst != src) ctx_.unmap(out, dst, name + " (unmap output)");
            ctx_.unmap(in, src, name + " (unmap)");
            throw;
        }
        if (dst != src) ctx_.unmap(out, dst, name + " (unmap output)");
        ctx_.unmap(in, src, name + " (unmap)");
    }

private:
    // The transform's axes (dims_) and the loops around it (how_): the batch, and the fastest axis
    // where it is left untransformed. Strides in elements of each side.
    void describeLayout() {
        const PlanDesc& d = desc_;
        const bool real = d.kind != Kind::C2C;
        const std::size_t last = d.shape.back(), half = last / 2 + 1;
        const std::ptrdiff_t realRow = static_cast<std::ptrdiff_t>(d.inPlace ? 2 * half : last);
        const std::ptrdiff_t complexRow = static_cast<std::ptrdiff_t>(real ? half : last);
        // Row lengths of the input and output sides.
        const std::ptrdiff_t inRow = d.kind == Kind::R2C ? realRow : complexRow;
        const std::ptrdiff_t outRow = d.kind == Kind::C2R ? realRow : complexRow;
        std::vector<fftw_iodim64> axes(d.shape.size());
        std::ptrdiff_t is = 1, os = 1;
        for (std::size_t k = d.shape.size(); k-- > 0;) {
            axes[k] = {static_cast<std::ptrdiff_t>(d.shape[k]), is, os};
            is *= k + 1 == d.shape.size() ? inRow : static_cast<std::ptrdiff_t>(d.shape[k]);
            os *= k + 1 == d.shape.size() ? outRow : static_cast<std::ptrdiff_t>(d.shape[k]);
        }
        // The batch: a loop of FFTW's (how_), or of ours around one item's plan (item strides in bytes).
        const std::size_t inElement = d.kind == Kind::R2C ? sizeof(Real) : 2 * sizeof(Real);
        const std::size_t outElement = d.kind == Kind::C2R ? sizeof(Real) : 2 * sizeof(Real);
        itemInBytes_ = static_cast<std::size_t>(is) * inElement;
        itemOutBytes_ = static_cast<std::size_t>(os) * outElement;
        if (!itemLoop_) how_.push_back({static_cast<std::ptrdiff_t>(d.batch), is, os});
        if (d.skipFastestAxis) {
            if (real || d.shape.size() < 2)
                throw Error("FFTW cannot run the " + describe(d) + ": only C2C transforms of 2 or 3 axes can leave the fastest untransformed");
            how_.push_back(axes.back());
            axes.pop_back();
        }
        dims_ = axes;
        // 1/N of the inverse: N is the product of the transformed lengths.
        std::size_t n = 1;
        for (const auto& a : dims_) n *= static_cast<std::size_t>(a.n);
        inverseScale_ = static_cast<Real>(1.0 / static_cast<double>(n));
    }

    // Plans for memory of FFTW's alignment (set 0) or of any alignment (set 1, FFTW_UNALIGNED).
    void makePlans(int set) {  // call with plannerMutex() held
        const PlanDesc& d = desc_;
        const std::size_t items = itemLoop_ ? 1 : d.batch;  // what one plan transforms
        const std::size_t inBytes = items * inputElements(d, d.kind == Kind::C2R ? Direction::Inverse : Direction::Forward) * elementBytes(d);
        const std::size_t outBytes = items * outputElements(d, d.kind == Kind::C2R ? Direction::Inverse : Direction::Forward) * elementBytes(d);
        // Scratch arrays for the planner to measure on (it overwrites them). An unaligned plan is
        // made on memory one element off FFTW's alignment so that the planner cannot assume it.
        const std::size_t offset = set ? sizeof(Real) : 0;
        void* in = F::malloc(std::max(inBytes, outBytes * d.inPlace) + offset);
        void* out = d.inPlace ? in : F::malloc(outBytes + offset);
        if (!in || !out) {
            if (in) F::free(in);
            if (out && out != in) F::free(out);
            throw Error("FFTW could not allocate the scratch arrays to plan the " + describe(d));
        }
        void* a = static_cast<char*>(in) + offset;
        void* b = static_cast<char*>(out) + offset;
        const unsigned flags = flags_ | (set ? FFTW_UNALIGNED : 0u);
        const int rank = static_cast<int>(dims_.size()), howRank = static_cast<int>(how_.size());
        F::threads(threads_);
        const auto started = std::chrono::steady_clock::now();
        auto& p = plans_[set];
        if (d.kind == Kind::C2C) {
            p[0] = F::c2c(rank, dims_.data(), howRank, how_.data(), a, b, FFTW_FORWARD, flags);
            p[1] = F::c2c(rank, dims_.data(), howRank, how_.data(), a, b, FFTW_BACKWARD, flags);
        } else if (d.kind == Kind::R2C) {
            p[0] = F::r2c(rank, dims_.data(), howRank, how_.data(), a, b, flags);
        } else {
            p[1] = F::c2r(rank, dims_.data(), howRank, how_.data(), a, b, flags);
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        F::free(in);
        if (out != in) F::free(out);
        if ((d.kind != Kind::C2R && !p[0]) || (d.kind != Kind::R2C && !p[1]))
            throw Error("FFTW could not plan the " + describe(d) + " (" + F::name + ")");
        if (useWisdom_ && seconds > 0.05) saveWisdom<Real>();  // it measured something new
    }

    // The plans for this memory's alignment (0: FFTW's, 1: any), made here if they are missing.
    // With the item loop every item's memory must have FFTW's alignment for set 0.
    int planSet(void* src, void* dst) {
        int set = 0;
        for (std::size_t k = 0; k < (itemLoop_ ? desc_.batch : 1); ++k)
            if (F::alignmentOf(item(src, itemInBytes_, k)) != 0 || F::alignmentOf(item(dst, itemOutBytes_, k)) != 0) set = 1;
        if (set == 1) {
            std::lock_guard<std::mutex> lock(plannerMutex());
            if (!plans_[1][0] && !plans_[1][1]) makePlans(1);
        }
        return set;
    }

    static void* item(void* base, std::size_t bytes, std::size_t k) { return static_cast<char*>(base) + k * bytes; }

    void run(void* src, void* dst, Direction dir, int set) {
        const auto plan = plans_[set][dir == Direction::Forward ? 0 : 1];
        for (std::size_t k = 0; k < (itemLoop_ ? desc_.batch : 1); ++k) {
            void* a = item(src, itemInBytes_, k);
            void* b = item(dst, itemOutBytes_, k);
            switch (desc_.kind) {
                case Kind::C2C: F::runC2C(plan, a, b); break;
                case Kind::R2C: F::runR2C(plan, a, b); break;
                case Kind::C2R: F::runC2R(plan, a, b); break;
            }
        }
        parkLoopWorkers();  // the OpenCL kernel that follows needs the cores
        if (dir == Direction::Inverse && desc_.scaleInverse)
            scale(static_cast<Real*>(dst), desc_.batch * outputElements(desc_, dir), inverseScale_, threads_);
    }

    // Shared memory: wait for the queue, then transform on the host addresses; nothing to unmap.
    // The wait is a marker recorded as a timed event, so that a timing window that starts before
    // the transform includes it, as the map's event did.
    void waitAndRun(void* src, void* dst, Direction dir, const std::string& name) {
        const int set = planSet(src, dst);
        cl::Event ready;
        clCall("clEnqueueMarkerWithWaitList", [&] { return ctx_.queue().enqueueMarkerWithWaitList(nullptr, &ready); });
        ctx_.recordEvent(name + " (wait)", EventKind::Transfer, ready);
        ctx_.wait(ready, name);
        const auto started = std::chrono::steady_clock::now();
        run(src, dst, dir, set);
        ctx_.profiler().recordHost(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }

    // The transform as a host task in the queue (the file comment). The plan outlives its tasks: the
    // plan cache is destroyed with the context, after its queue has finished.
    struct Task {
        FftwPlan* plan;
        void* src;
        void* dst;
        Direction dir;
        int set;
    };
    static void CL_CALLBACK runTask(void* data) {
        const Task& t = *static_cast<const Task*>(data);
        try {
            t.plan->run(t.src, t.dst, t.dir, t.set);
        } catch (...) {  // nothing may leave the device's thread: the next execute() throws it
            std::lock_guard<std::mutex> lock(t.plan->taskMutex_);
            if (!t.plan->taskFailure_) t.plan->taskFailure_ = std::current_exception();
        }
    }
    void enqueue(void* src, void* dst, Direction dir, const std::string& name) {
        const Task task{this, src, dst, dir, planSet(src, dst)};
        ctx_.hostTask(&FftwPlan::runTask, &task, sizeof task, name);
    }
    void rethrowTaskFailure() {
        std::exception_ptr failure;
        {
            std::lock_guard<std::mutex> lock(taskMutex_);
            std::swap(failure, taskFailure_);
        }
        if (failure) std::rethrow_exception(failure);
    }

    Context& ctx_;
    int threads_ = 1;
    unsigned flags_ = FFTW_MEASURE;
    bool useWisdom_ = false;
    bool hostTasks_ = false;  // [fft] fftw_host_tasks = 1: shared buffers transformed by host tasks
    bool itemLoop_ = false;   // [fft] fftw_batch_loop = 1: one item's plan run on each item of a batch
    bool mapShared_ = false;  // [fft] fftw_map_shared = 1: shared buffers mapped too (the hand-over of before)
    std::size_t itemInBytes_ = 0, itemOutBytes_ = 0;  // from one batch item to the next
    std::vector<fftw_iodim64> dims_, how_;
    Real inverseScale_ = 1;
    typename F::Plan plans_[2][2] = {};  // [aligned, unaligned][forward, inverse]
    std::mutex taskMutex_;
    std::exception_ptr taskFailure_;  // of a host task, for the next execute()
};

}  // namespace

std::unique_ptr<Plan> makeFftwPlan(Context& ctx, const PlanDesc& d) {
    if (d.precision == Precision::Double) return std::make_unique<FftwPlan<double>>(ctx, d);
    return std::make_unique<FftwPlan<float>>(ctx, d);
}

}  // namespace portacl::fft::detail
