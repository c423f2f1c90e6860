// The device solver's sensor (k-Wave's OutputStreamContainer): which quantities it samples, the
// sampling kernels, the raw series streamed to the host in blocks, and the aggregates kept on the
// device (p_rms, p_max, p_min, p_max_all, p_min_all and the same of u), with what a checkpoint saves
// and restores of them. The host's serial sampler of the same layout is sensor_recorder.hpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "portacl/kwave.hpp"
#include "sensor_recorder.hpp"

namespace portacl::kwave {

class SensorSampling {
public:
    // The grid field a quantity reads (fieldOf: 0 p, 1 + axis u, 4 + axis u on the regular grid), as
    // the solver provides it at the moment of sampling.
    using FieldSource = std::function<const cl::Buffer&(int field)>;

    // Plans the buffers (see plannedBytes); `kernelOptions` are the solver's build options, `local`
    // the work-group of its one-dimensional launches.
    SensorSampling(Context& ctx, const Simulation& sim, const RunOptions& options, const std::string& kernelOptions,
                   const cl::NDRange& local);
    // Unmaps the pinned blocks after any read into them has finished.
    ~SensorSampling();
    SensorSampling(const SensorSampling&) = delete;
    SensorSampling& operator=(const SensorSampling&) = delete;

    // The device bytes allocate() will take (so that the solver checks its whole working set at once).
    std::size_t plannedBytes() const { return plannedBytes_; }
    void allocate();
    std::size_t deviceBytes() const { return deviceBytes_; }
    bool sensorless() const { return points_.empty(); }

    // The sampling kernels once on `p` with nothing recorded (the solver's warm-up step).
    void warmUp(const cl::Buffer& p);
    // Samples one step of every recorded quantity.
    void sample(const FieldSource& field);
    // What was sampled so far, aggregates downloaded, plus the whole-grid ones (*_max_all, *_min_all)
    // and the *_final fields unless `withGridFields` is false; not finalized.
    Recording recording(const FieldSource& field, bool withGridFields = true);
    // Those whole-grid datasets by name, in recording()'s order, each with the device buffer (one
    // element-precision value per point) it is read from.
    std::vector<std::pair<std::string, const cl::Buffer*>> gridFields(const FieldSource& field);
    // Continues from a checkpoint's recording: the raw series so far and the aggregates.
    void restore(const Recording& saved);

private:
    // Raw samples collect on the device in blocks of `chunk` steps. A full block goes to pinned host
    // memory by a read that does not wait, and sampling goes on into the other block; the host takes
    // a block's data (into the recording) only when its slot fills again, two blocks later, so that
    // the time loop never waits for the device on account of sampling.
    struct RawBlock {
        cl::Buffer device, pinned;  // pinned: CL_MEM_ALLOC_HOST_PTR, mapped once at `host`
        void* host = nullptr;
        cl::Event read;
        std::size_t steps = 0;      // steps written into `device`
        std::size_t readSteps = 0;  // steps in flight to (or arrived at) `host`
        bool pending = false;
    };
    struct Sampler {
        std::string quantity;
        int field = 0;  // fieldOf(quantity)
        QuantityOutputs out;
        cl::Buffer sumsq, mx, mn, mxAll, mnAll;
        RawBlock block[2];
        int current = 0;
        std::size_t chunk = 0;
    };

    void blockFull(Sampler& s);
    void startRead(Sampler& s, RawBlock& b);
    void takeBlock(Sampler& s, RawBlock& b);
    void flushRaw(Sampler& s);
    std::vector<double> download(const cl::Buffer& b, std::size_t count, const std::string& what);
    void launch(cl::Kernel& k, std::size_t count);

    Context& ctx_;
    std::size_t n_;  // grid points
    Precision prec_;
    std::size_t realBytes_;
    cl::NDRange local_;
    std::vector<std::uint64_t> points_;
    cl::Buffer pointsBuf_;
    std::vector<Sampler> samplers_;
    Recording rec_;
    cl::Kernel kSample_, kSampleAll_;
    std::size_t plannedBytes_ = 0, deviceBytes_ = 0;
};

}  // namespace portacl::kwave
