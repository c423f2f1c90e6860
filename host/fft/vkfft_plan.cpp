// The VkFFT backend (VkFFT 1.2.26, OpenCL backend: VKFFT_BACKEND=3, set for the library target).
//
// VkFFT generates and compiles its kernels when a plan is made. Its layout is the reverse of ours:
// its size[0] is the fastest dimension, so size[i] = shape[dims-1-i]. Strides are in elements of the
// buffer's type (complex for `buffer`, real for a real `inputBuffer`).
//
// Buffers: VkFFT keeps pointers to cl_mem handles, not the handles, and reads them each time it
// dispatches. The plan therefore owns two slots (bufferSlot_, inputSlot_) whose addresses it gives
// VkFFT once; execute() writes the caller's buffers into them before each launch.
//   C2C out of place:  inputBuffer (in) -> buffer (out), both directions.
//   R2C out of place:  inputBuffer (real in) -> buffer (complex out).
//   C2R out of place:  buffer (complex in) -> inputBuffer (real out), through inverseReturnToInputBuffer.
//   In place:          buffer only; for R2C/C2R its rows are n/2+1 complex = 2*(n/2+1) reals.
#include <cstdint>
#include <vector>

#include "fft/fft_internal.hpp"
#include "portacl/runtime/error.hpp"

// VkFFT enqueues its kernels without asking for events. Its launches are routed through this
// function, which keeps each kernel's event while execute() collects them (for --profile and for
// benchmark timing); outside execute() (VkFFT's own set-up work on its private queue) it passes through.
namespace {
thread_local std::vector<cl_event>* capturedEvents = nullptr;

cl_int enqueueKeepingEvent(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
                           const size_t* global, const size_t* local, cl_uint waitCount, const cl_event* waitList,
                           cl_event* event) {
    if (!capturedEvents || event)
        return ::clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, waitCount, waitList, event);
    cl_event e = nullptr;
    const cl_int status = ::clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, waitCount, waitList, &e);
    if (status == CL_SUCCESS) capturedEvents->push_back(e);
    return status;
}
}  // namespace

#define clEnqueueNDRangeKernel enqueueKeepingEvent
#include <vkFFT.h>
#undef clEnqueueNDRangeKernel

#include "fft/vkfft_result.hpp"

namespace portacl::fft::detail {

namespace {

// VkFFT's own performance knobs from the vendor profile's [fft] section; a key that is absent (or 0)
// leaves VkFFT's default, which it derives from the device's vendor.
void applyProfile(const TuningProfile& profile, VkFFTConfiguration& cfg) {
    const auto set = [&](const char* key, std::uint64_t& field) {
        const long v = profile.getInt("fft", key, 0);
        if (v < 0) throw Error("tuning profile " + profile.path + ": [fft] " + key + " must not be negative");
        if (v > 0) field = static_cast<std::uint64_t>(v);
    };
    set("vkfft_coalesced_memory", cfg.coalescedMemory);  // bytes per coalesced access
    set("vkfft_aim_threads", cfg.aimThreads);            // threads per work-group aimed at
    set("vkfft_register_boost", cfg.registerBoost);      // registers used as extra shared memory
    set("vkfft_bandwidth_boost", cfg.performBandwidthBoost);
    set("vkfft_use_lut", cfg.useLUT);                    // twiddles from tables, not sincos
}

class VkfftPlan final : public Plan {
public:
    VkfftPlan(Context& ctx, const PlanDesc& d) : ctx_(ctx) {
        desc_ = d;
        backend_ = Backend::VkFFT;
        device_ = ctx.device().device();
        context_ = ctx.clContext()();
        queue_ = ctx.queue()();

        const bool real = d.kind != Kind::C2C;
        // VkFFT refuses axes of length 1 (VKFFT_ERROR_UNSUPPORTED_RADIX). Along such an axis the
        // transform is the identity and the memory layout does not depend on it, so it is dropped;
        // a real transform keeps its last axis, which sets the half-spectrum's row length.
        if (real && d.shape.back() == 1)
            throw Error("VkFFT cannot run the " + describe(d) +
                        ": a real transform's last dimension must be longer than 1 (use C2C, or the clFFT backend)");
        std::vector<std::size_t> shape;
        for (std::size_t n : d.shape)
            if (n > 1) shape.push_back(n);
        if (shape.empty()) {  // a C2C of one point: the identity (1/N = 1), done as a copy
            identity_ = true;
            return;
        }

        const std::size_t dims = shape.size();
        const std::size_t n0 = shape.back();  // fastest dimension
        std::uint64_t size[3] = {1, 1, 1};
        for (std::size_t i = 0; i < dims; ++i) size[i] = shape[dims - 1 - i];

        VkFFTConfiguration cfg = {};
        cfg.FFTdim = dims;
        for (int i = 0; i < 3; ++i) cfg.size[i] = size[i];
        cfg.device = &device_;
        cfg.context = &context_;
        cfg.commandQueue = &queue_;
        cfg.doublePrecision = d.precision == Precision::Double ? 1 : 0;
        cfg.numberBatches = d.batch;
        cfg.normalize = d.scaleInverse ? 1 : 0;  // inverse scaled by 1/N
        if (d.skipFastestAxis) {
            if (real || dims < 2) throw Error("VkFFT cannot run the " + describe(d) + ": only C2C transforms of 2 or 3 axes can leave the fastest untransformed");
            cfg.omitDimension[0] = 1;
        }
        applyProfile(ctx.tuning(), cfg);

        // Strides of the complex buffer (and of the real input buffer out of place), with the
        // unused dimensions of size 1, so that stride[2] is the batch stride in every case.
        const std::uint64_t row = real ? n0 / 2 + 1 : n0;
        cfg.bufferStride[0] = row;
        cfg.bufferStride[1] = row * size[1];
        cfg.bufferStride[2] = row * size[1] * size[2];
        bufferBytes_ = cfg.bufferStride[2] * d.batch * 2 * elementBytes(d);
        cfg.bufferSize = &bufferBytes_;
        cfg.buffer = &bufferSlot_;

        if (real) {
            cfg.performR2C = 1;
            if (d.kind == Kind::R2C) cfg.makeForwardPlanOnly = 1;
            else cfg.makeInversePlanOnly = 1;
        }
        if (!d.inPlace) {
            cfg.isInputFormatted = 1;
            // n0 elements a row: real rows are not padded out of place; complex rows are as in `buffer`.
            cfg.inputBufferStride[0] = n0;
            cfg.inputBufferStride[1] = n0 * size[1];
            cfg.inputBufferStride[2] = n0 * size[1] * size[2];
            inputBytes_ = cfg.inputBufferStride[2] * d.batch * (real ? 1 : 2) * elementBytes(d);
            cfg.inputBufferSize = &inputBytes_;
            cfg.inputBuffer = &inputSlot_;
            if (d.kind == Kind::C2R) cfg.inverseReturnToInputBuffer = 1;
        }

        const VkFFTResult r = initializeVkFFT(&app_, cfg);
        if (r != VKFFT_SUCCESS)  // initializeVkFFT releases what it made on failure
            throw Error("VkFFT could not plan the " + describe(d) + ": " + vkfftResultName(r) + " (" +
                        std::to_string(static_cast<int>(r)) + ")");
        initialized_ = true;
    }

    ~VkfftPlan() override {
        if (initialized_) deleteVkFFT(&app_);
    }

    VkfftPlan(const VkfftPlan&) = delete;
    VkfftPlan& operator=(const VkfftPlan&) = delete;

    void execute(const cl::Buffer& in, const cl::Buffer& out, Direction dir) override {
        checkDirection(desc_, dir);
        checkBuffers(desc_, dir, in, out);
        if (identity_) {
            if (!desc_.inPlace) {
                ctx_.copy(in, out, outputBytes(desc_, dir), eventName(desc_, backend_, dir) + " (one point: copy)");
            }
            return;
        }
        if (desc_.inPlace) {
            bufferSlot_ = in();
        } else if (desc_.kind == Kind::C2R) {
            bufferSlot_ = in();
            inputSlot_ = out();
        } else {
            inputSlot_ = in();
            bufferSlot_ = out();
        }

        VkFFTLaunchParams launch = {};
        launch.commandQueue = &queue_;
        launch.buffer = &bufferSlot_;
        if (!desc_.inPlace) launch.inputBuffer = &inputSlot_;

        std::vector<cl_event> events;
        capturedEvents = &events;
        const VkFFTResult r = VkFFTAppend(&app_, dir == Direction::Inverse ? 1 : -1, &launch);
        capturedEvents = nullptr;
        const std::string name = eventName(desc_, backend_, dir);
        for (cl_event e : events) ctx_.recordEvent(name, EventKind::Kernel, cl::Event(e));  // takes ownership
        if (r != VKFFT_SUCCESS)
            throw Error("VkFFT could not run the " + describe(desc_) + ": " + vkfftResultName(r) + " (" +
                        std::to_string(static_cast<int>(r)) + ")");
    }

private:
    Context& ctx_;
    cl_device_id device_ = nullptr;
    cl_context context_ = nullptr;
    cl_command_queue queue_ = nullptr;
    cl_mem bufferSlot_ = nullptr;
    cl_mem inputSlot_ = nullptr;
    std::uint64_t bufferBytes_ = 0;
    std::uint64_t inputBytes_ = 0;
    VkFFTApplication app_ = {};
    bool initialized_ = false;
    bool identity_ = false;  // every length is 1: no VkFFT application
};

}  // namespace

std::unique_ptr<Plan> makeVkfftPlan(Context& ctx, const PlanDesc& d) { return std::make_unique<VkfftPlan>(ctx, d); }

}  // namespace portacl::fft::detail
