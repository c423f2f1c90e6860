// Image filtering (issue 3, thesis 003): convolution with a user mask, box / binomial / Gaussian
// smoothing, median, averaging with a threshold, the rotating mask, gradient operators (Roberts,
// Prewitt, Sobel, Scharr, 8-direction compass) and Laplace, with OpenCV's border modes, on 8-bit,
// 16-bit and float images, each channel on its own. Every operation has a serial C++ reference
// (filterReference) and an OpenCL path (Pipeline) that keeps the image on the device between
// operations. docs/filter.md defines each operation, the borders and the tolerances.
#pragma once

#include "portacl/export.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "portacl/io/image.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"

namespace portacl::filter {

// What a read outside the image returns, as OpenCV's BORDER_* (for a row "abcdefgh"):
// constant iiii|abcdefgh|iiii, replicate aaaa|abcdefgh|hhhh, reflect dcba|abcdefgh|hgfe,
// reflect101 (default) edcb|abcdefgh|gfed, wrap efgh|abcdefgh|abcd.
enum class Border { Constant, Replicate, Reflect, Reflect101, Wrap };
PORTACL_API Border parseBorder(const std::string& name);  // throws portacl::Error naming the valid modes
PORTACL_API const char* borderName(Border b);
// The index in [0, n) that position p reads, or -1 for a constant-border read outside the image.
PORTACL_API int borderIndex(int p, int n, Border b);

// How the responses of a gradient operator's masks become one value.
enum class Combine {
    Single,     // one mask (convolution, smoothing, Laplace)
    L1,         // |Gx| + |Gy| (the thesis's Sobel)
    L2,         // sqrt(Gx^2 + Gy^2), rounded
    Direction,  // atan2(Gy, Gx) in degrees [0, 360); the output is float
    X,          // Gx alone (signed: use a float image or it saturates at 0)
    Y,          // Gy alone
    Max,        // compass: the largest of the 8 rotated masks' responses
    MaxIndex,   // compass: the direction (0, 45, ..., 315 degrees) of that largest response; float
};

struct PORTACL_API Operation {
    enum class Kind { Linear, Median, ThresholdMean, RotatingMask, Grey, ToFloat };
    Kind kind = Kind::Linear;
    std::string spec;  // as written ("median:5"), for messages and listings
    // Linear: masks of width x height (odd, anchor at the centre), row-major, applied as correlation
    // (not flipped, like OpenCV's filter2D). One mask, two (Gx, Gy) or eight (compass).
    int width = 3, height = 3;
    std::vector<std::vector<double>> masks;
    double divisor = 1;  // Single: the result is the sum divided by this ("divide by the sum")
    // Single masks of rank 1 (box, binomial, Gaussian, or a user mask found to be one): the mask is
    // column (x) row, and runs as a horizontal then a vertical 1-D pass. Empty: a 2-D pass.
    std::vector<double> rowFactor, colFactor;
    // Gaussians: OpenCV's 1-D kernel. Integer images take its fixed-point rounding, as OpenCV's
    // bit-exact GaussianBlur does (8 fractional bits a pass for 8-bit images, 16 for 16-bit ones).
    std::vector<double> gaussianKernel;
    Combine combine = Combine::Single;
    double threshold = 0;  // ThresholdMean: T
    bool greyFloor = false;  // Grey: the thesis's floor instead of rounding
};

// Parses one --op (see operationList()); throws portacl::Error with one sentence for an unknown
// name, a bad parameter, an even size, or an unreadable / non-numeric mask file.
PORTACL_API Operation parseOperation(const std::string& spec);

struct PORTACL_API OperationHelp {
    std::string syntax;
    std::string description;
};
PORTACL_API std::vector<OperationHelp> operationList();

struct PORTACL_API Options {
    Border border = Border::Reflect101;
    double borderValue = 0;               // the constant border's value
    Precision precision = Precision::Float;  // arithmetic of float images (integer images are exact)
    // [filter] tuning keys ("strip", "strip_width", ...; docs/filter.md) that take precedence over
    // the device's profile: for tests and experiments, empty otherwise.
    std::map<std::string, long> tuning;
};

// Serial C++ reference: the operations in order, one channel at a time (alpha passes through).
PORTACL_API io::Image filterReference(const io::Image& in, const std::vector<Operation>& ops, const Options& options);

// The same operations on one device. An image uploaded once stays on the device through every
// operation; run() is upload + apply + download.
class PORTACL_API Pipeline {
public:
    Pipeline(Context& ctx, std::vector<Operation> ops, Options options);
    ~Pipeline();
    Pipeline(Pipeline&&) noexcept;

    io::Image run(const io::Image& in);
    // The same into `out`, whose memory is reused when it already has the result's size, channels
    // and type (a batch recycles its output images: no allocation, no zeroing).
    void run(const io::Image& in, io::Image& out);

    // For benchmarks: the image on the device, filtered in place by enqueue() (no transfers).
    void upload(const io::Image& in);
    void enqueue();
    io::Image download();
    void download(io::Image& out);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Refuses what the operations cannot take (grey conversion of a one-channel image ...) before any
// work, with one sentence. A window larger than the image is allowed, as in OpenCV.
PORTACL_API void validate(const io::Image& in, const std::vector<Operation>& ops);

}  // namespace portacl::filter
