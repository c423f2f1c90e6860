// The clFFT backend (clFFT 2.12).
//
// clFFT's library state is global: clfftSetup once per process, clfftTeardown at exit. Plan
// creation and baking touch that state and are not thread-safe, so they run under one process-wide
// mutex. clFFT's dimension 0 is the fastest one (the reverse of our C-order shape);
// its strides and distances are in elements of each side's layout (reals for a real side, complex
// numbers for a complex one), set explicitly here for every layout.
#include <clFFT.h>

#include <cstdlib>
#include <mutex>

#include "fft/fft_internal.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::fft::detail {

namespace {

const char* clfftStatusName(clfftStatus s) {
    switch (s) {
        case CLFFT_BUGCHECK: return "CLFFT_BUGCHECK";
        case CLFFT_NOTIMPLEMENTED: return "CLFFT_NOTIMPLEMENTED";
        case CLFFT_TRANSPOSED_NOTIMPLEMENTED: return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
        case CLFFT_FILE_NOT_FOUND: return "CLFFT_FILE_NOT_FOUND";
        case CLFFT_FILE_CREATE_FAILURE: return "CLFFT_FILE_CREATE_FAILURE";
        case CLFFT_VERSION_MISMATCH: return "CLFFT_VERSION_MISMATCH";
        case CLFFT_INVALID_PLAN: return "CLFFT_INVALID_PLAN";
        case CLFFT_DEVICE_NO_DOUBLE: return "CLFFT_DEVICE_NO_DOUBLE";
        case CLFFT_DEVICE_MISMATCH: return "CLFFT_DEVICE_MISMATCH";
        default: return nullptr;  // the OpenCL status codes, named by clStatusName
    }
}

std::string statusText(clfftStatus s) {
    const char* name = clfftStatusName(s);
    return (name ? std::string(name) : clStatusName(static_cast<int>(s))) + " (" + std::to_string(static_cast<int>(s)) + ")";
}

// clFFT's library state: clfftSetup once per process, on the first plan; clfftTeardown at exit,
// through an atexit handler registered right after clfftSetup, so that it runs before clFFT's own
// static objects are destroyed (clFFT warns "resources not freed" otherwise). Plans released after
// the tear-down (a Context destroyed during static destruction) were freed by it already.
std::mutex& clfftMutex() {
    static std::mutex* m = new std::mutex;  // never destroyed: plans may be released during static destruction
    return *m;
}
bool clfftReady = false;     // guarded by clfftMutex()
bool clfftTornDown = false;  // guarded by clfftMutex()

void tearDownClfft() {
    std::lock_guard<std::mutex> lock(clfftMutex());
    clfftTeardown();
    clfftTornDown = true;
}

void setUpClfft() {  // call with clfftMutex() held
    if (clfftReady) return;
    clfftSetupData setup;
    clfftStatus s = clfftInitSetupData(&setup);
    if (s == CLFFT_SUCCESS) s = clfftSetup(&setup);
    if (s != CLFFT_SUCCESS) throw Error("clFFT could not be initialized: clfftSetup returned " + statusText(s));
    std::atexit(tearDownClfft);
    clfftReady = true;
}

class ClfftPlan final : public Plan {
public:
    ClfftPlan(Context& ctx, const PlanDesc& d) : ctx_(ctx) {
        desc_ = d;
        backend_ = Backend::ClFFT;
        if (d.skipFastestAxis) throw Error("the clFFT backend cannot run the " + describe(d) + "; use the VkFFT backend");
        for (std::size_t n : d.shape)
            if (!clfftSupportsLength(n))
                throw Error("clFFT cannot transform length " + std::to_string(n) + " (its radices are 2, 3, 5, 7, 11 and 13) in the " +
                            describe(d) + "; use the VkFFT backend (or auto), which handles any size");

        std::lock_guard<std::mutex> lock(clfftMutex());
        setUpClfft();
        try {
            build(ctx);
        } catch (...) {
            if (created_) clfftDestroyPlan(&handle_);
            throw;
        }
    }

    ~ClfftPlan() override {
        std::lock_guard<std::mutex> lock(clfftMutex());
        if (created_ && !clfftTornDown) clfftDestroyPlan(&handle_);
    }

    ClfftPlan(const ClfftPlan&) = delete;
    ClfftPlan& operator=(const ClfftPlan&) = delete;

    void execute(const cl::Buffer& in, const cl::Buffer& out, Direction dir) override;

private:
    // Creates, configures and bakes the clFFT plan; called with clfftMutex() held.
    void build(Context& ctx) {
        const PlanDesc& d = desc_;

        const std::size_t dims = d.shape.size();
        size_t lengths[3] = {1, 1, 1};
        for (std::size_t i = 0; i < dims; ++i) lengths[i] = d.shape[dims - 1 - i];
        const clfftDim dim = dims == 1 ? CLFFT_1D : dims == 2 ? CLFFT_2D : CLFFT_3D;

        check(clfftCreateDefaultPlan(&handle_, ctx.clContext()(), dim, lengths), "clfftCreateDefaultPlan");
        created_ = true;
        check(clfftSetPlanPrecision(handle_, d.precision == Precision::Double ? CLFFT_DOUBLE : CLFFT_SINGLE),
              "clfftSetPlanPrecision");
        check(clfftSetResultLocation(handle_, d.inPlace ? CLFFT_INPLACE : CLFFT_OUTOFPLACE), "clfftSetResultLocation");
        check(clfftSetPlanBatchSize(handle_, d.batch), "clfftSetPlanBatchSize");
        // clFFT takes its scale as a float: 1/N in float would cost a double transform 7 digits, so
        // double plans run unscaled and execute() applies 1/N with a kernel of its own.
        const bool scaleOnDevice = d.scaleInverse && d.precision == Precision::Double;
        const bool scaleInClfft = d.scaleInverse && !scaleOnDevice;
        check(clfftSetPlanScale(handle_, CLFFT_FORWARD, 1.0f), "clfftSetPlanScale");
        check(clfftSetPlanScale(handle_, CLFFT_BACKWARD, scaleInClfft ? 1.0f / static_cast<float>(totalPoints(d)) : 1.0f),
              "clfftSetPlanScale");
        mark_ = ctx.kernel("fft_support.cl", "fft_timing_mark", Precision::Float);
        if (scaleOnDevice && d.kind != Kind::R2C) scale_ = ctx.kernel("fft_support.cl", "fft_scale", d.precision);

        // Row lengths in each side's own elements. Real rows are padded to 2*(n/2+1) in place.
        const std::size_t n0 = lengths[0];
        const std::size_t complexRow = d.kind == Kind::C2C ? n0 : n0 / 2 + 1;
        const std::size_t realRow = d.inPlace ? 2 * (n0 / 2 + 1) : n0;
        std::size_t inRow = complexRow, outRow = complexRow;
        clfftLayout inLayout = CLFFT_COMPLEX_INTERLEAVED, outLayout = CLFFT_COMPLEX_INTERLEAVED;
        if (d.kind == Kind::R2C) {
            inLayout = CLFFT_REAL;
            outLayout = CLFFT_HERMITIAN_INTERLEAVED;
            inRow = realRow;
        } else if (d.kind == Kind::C2R) {
            inLayout = CLFFT_HERMITIAN_INTERLEAVED;
            outLayout = CLFFT_REAL;
            outRow = realRow;
        }
        check(clfftSetLayout(handle_, inLayout, outLayout), "clfftSetLayout");
        size_t inStrides[3] = {1, inRow, inRow * lengths[1]};
        size_t outStrides[3] = {1, outRow, outRow * lengths[1]};
        check(clfftSetPlanInStride(handle_, dim, inStrides), "clfftSetPlanInStride");
        check(clfftSetPlanOutStride(handle_, dim, outStrides), "clfftSetPlanOutStride");
        check(clfftSetPlanDistance(handle_, inRow * lengths[1] * lengths[2], outRow * lengths[1] * lengths[2]),
              "clfftSetPlanDistance");

        cl_command_queue queue = ctx.queue()();
        check(clfftBakePlan(handle_, 1, &queue, nullptr, nullptr), "clfftBakePlan");
    }

    void check(clfftStatus s, const char* call) const {
        if (s != CLFFT_SUCCESS)
            throw Error("clFFT could not plan the " + describe(desc_) + ": " + call + " returned " + statusText(s));
    }

    Context& ctx_;
    cl::Kernel mark_;   // fft_timing_mark: see execute()
    cl::Kernel scale_;  // double plans only: the inverse's 1/N, applied in double (see build())
    clfftPlanHandle handle_ = 0;
    bool created_ = false;
};

void ClfftPlan::execute(const cl::Buffer& in, const cl::Buffer& out, Direction dir) {
    checkDirection(desc_, dir);
    checkBuffers(desc_, dir, in, out);
    cl_command_queue queue = ctx_.queue()();
    cl_mem input = in(), output = out();
    const std::string name = eventName(desc_, backend_, dir);

    // clFFT returns the event of its last kernel only. An empty kernel enqueued first on the
    // in-order queue marks where the transform starts, so that the span from its start to the last
    // kernel's end covers the whole transform (plus the empty kernel, a few microseconds).
    ctx_.launch(mark_, cl::NDRange(1));

    cl_event last = nullptr;
    const clfftStatus s = clfftEnqueueTransform(handle_, dir == Direction::Forward ? CLFFT_FORWARD : CLFFT_BACKWARD, 1,
                                                &queue, 0, nullptr, &last, &input, desc_.inPlace ? nullptr : &output,
                                                nullptr);
    if (s != CLFFT_SUCCESS) throw Error("clFFT could not run the " + describe(desc_) + ": " + statusText(s));
    if (last) ctx_.recordEvent(name + " (last kernel)", EventKind::Kernel, cl::Event(last));  // takes ownership

    if (dir == Direction::Inverse && scale_()) {
        const cl_ulong n = desc_.batch * outputElements(desc_, dir);
        setArg(scale_, 0, out);
        setArg(scale_, 1, n);
        setArg(scale_, 2, 1.0 / static_cast<double>(totalPoints(desc_)));
        ctx_.launch(scale_, cl::NDRange(n), cl::NDRange(64));
    }
}

}  // namespace

std::unique_ptr<Plan> makeClfftPlan(Context& ctx, const PlanDesc& d) { return std::make_unique<ClfftPlan>(ctx, d); }

}  // namespace portacl::fft::detail
