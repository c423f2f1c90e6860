// Plan descriptions: names, cache keys, buffer sizes and the checks both backends share.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "fft/fft_internal.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::fft {

namespace {

const char* kindName(Kind k) {
    switch (k) {
        case Kind::C2C: return "c2c";
        case Kind::R2C: return "r2c";
        case Kind::C2R: return "c2r";
    }
    return "?";
}

std::string shapeText(const std::vector<std::size_t>& shape) {
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
    return s;
}

}  // namespace

Backend parseBackend(const std::string& name) {
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (n == "auto") return Backend::Auto;
    if (n == "vkfft") return Backend::VkFFT;
    if (n == "clfft") return Backend::ClFFT;
    if (n == "fftw") return Backend::FFTW;
    throw Error("unknown FFT backend '" + name + "'; use auto, vkfft, clfft or fftw");
}

const char* backendName(Backend b) {
    switch (b) {
        case Backend::Auto: return "auto";
        case Backend::VkFFT: return "vkfft";
        case Backend::ClFFT: return "clfft";
        case Backend::FFTW: return "fftw";
    }
    return "?";
}

std::string PlanDesc::key() const {
    std::ostringstream k;
    k << "backend=" << backendName(backend) << " kind=" << kindName(kind) << " precision=" << precisionName(precision)
      << " shape=" << shapeText(shape) << " batch=" << batch << " placement=" << (inPlace ? "in-place" : "out-of-place")
      << (skipFastestAxis ? " skip-fastest-axis" : "") << (scaleInverse ? "" : " unscaled-inverse");
    return k.str();
}

std::size_t inputElements(const PlanDesc& d, Direction dir) {
    detail::checkDirection(d, dir);
    const std::size_t half = 2 * detail::hermitianPoints(d);  // the half-spectrum in reals
    switch (d.kind) {
        case Kind::C2C: return 2 * detail::totalPoints(d);
        case Kind::R2C: return d.inPlace ? half : detail::totalPoints(d);
        case Kind::C2R: return half;
    }
    return 0;
}

std::size_t outputElements(const PlanDesc& d, Direction dir) {
    detail::checkDirection(d, dir);
    const std::size_t half = 2 * detail::hermitianPoints(d);
    switch (d.kind) {
        case Kind::C2C: return 2 * detail::totalPoints(d);
        case Kind::R2C: return half;
        case Kind::C2R: return d.inPlace ? half : detail::totalPoints(d);
    }
    return 0;
}

std::size_t inputBytes(const PlanDesc& d, Direction dir) {
    return d.batch * inputElements(d, dir) * detail::elementBytes(d);
}

std::size_t outputBytes(const PlanDesc& d, Direction dir) {
    return d.batch * outputElements(d, dir) * detail::elementBytes(d);
}

namespace detail {

std::string describe(const PlanDesc& d) {
    std::string kind = kindName(d.kind);
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return std::to_string(d.shape.size()) + "-D " + kind + " " + precisionName(d.precision) + " transform of " +
           shapeText(d.shape) + " (batch " + std::to_string(d.batch) + ", " + (d.inPlace ? "in place" : "out of place") +
           (d.skipFastestAxis ? ", fastest axis untransformed" : "") + ")";
}

void validate(const PlanDesc& d) {
    if (d.shape.empty() || d.shape.size() > 3)
        throw Error("an FFT needs 1 to 3 dimensions, but the shape has " + std::to_string(d.shape.size()));
    for (std::size_t n : d.shape)
        if (n == 0) throw Error("an FFT length cannot be 0 (shape " + shapeText(d.shape) + ")");
    if (d.batch == 0) throw Error("an FFT batch cannot be 0");
    if (d.precision != Precision::Float && d.precision != Precision::Double)
        throw Error(std::string("an FFT runs in float or double, not ") + precisionName(d.precision));
}

void checkDirection(const PlanDesc& d, Direction dir) {
    if (d.kind == Kind::R2C && dir != Direction::Forward)
        throw Error("an R2C plan transforms forward only; use a C2R plan for the inverse");
    if (d.kind == Kind::C2R && dir != Direction::Inverse)
        throw Error("a C2R plan transforms inverse only; use an R2C plan for the forward transform");
}

void checkBuffers(const PlanDesc& d, Direction dir, const cl::Buffer& in, const cl::Buffer& out) {
    const bool same = in() == out();
    if (d.inPlace && !same)
        throw Error("the in-place " + describe(d) + " was given two different buffers; pass the same buffer twice");
    if (!d.inPlace && same)
        throw Error("the out-of-place " + describe(d) + " was given one buffer as input and output; use an in-place plan");
    const auto sizeOf = [](const cl::Buffer& b) { return clCall("clGetMemObjectInfo", [&] { return b.getInfo<CL_MEM_SIZE>(); }); };
    const std::size_t needIn = inputBytes(d, dir), needOut = outputBytes(d, dir);
    if (sizeOf(in) < needIn)
        throw Error("the input buffer of the " + describe(d) + " holds " + std::to_string(sizeOf(in)) + " bytes, but it needs " +
                    std::to_string(needIn));
    if (sizeOf(out) < needOut)
        throw Error("the output buffer of the " + describe(d) + " holds " + std::to_string(sizeOf(out)) +
                    " bytes, but it needs " + std::to_string(needOut));
}

std::size_t elementBytes(const PlanDesc& d) { return d.precision == Precision::Double ? sizeof(double) : sizeof(float); }

std::size_t totalPoints(const PlanDesc& d) {
    std::size_t n = 1;
    for (std::size_t s : d.shape) n *= s;
    return n;
}

std::size_t hermitianPoints(const PlanDesc& d) {
    const std::size_t last = d.shape.back();
    return totalPoints(d) / last * (last / 2 + 1);
}

std::string eventName(const PlanDesc& d, Backend b, Direction dir) {
    return std::string(backendName(b)) + " " + kindName(d.kind) + (dir == Direction::Forward ? " forward" : " inverse");
}

bool clfftSupportsLength(std::size_t n) {
    for (std::size_t p : {2, 3, 5, 7, 11, 13})
        while (n % p == 0) n /= p;
    return n == 1;
}

}  // namespace detail
}  // namespace portacl::fft
