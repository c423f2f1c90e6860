// S2 on the device: real-to-complex FFT of the (zero-padded) indicator, |F|^2, complex-to-real
// inverse (the circular autocorrelation), then the normalized map. And its serial reference.
#include <cstdlib>

#include "portacl/fft.hpp"
#include "portacl/lineal_path/two_point.hpp"
#include "portacl/runtime/error.hpp"
#include "result_layout.hpp"

namespace portacl::lineal {
namespace {

template <typename T>
std::vector<double> run(Context& ctx, const PhaseImage& img, const Options& opt) {
    const Precision p = precisionOf<T>();
    const int mlz = img.is3d() ? opt.maxLength : 0;
    // Zero padding by ML keeps the circular correlation free of wrap-around for |d| <= ML.
    const int pad = opt.periodic ? 0 : opt.maxLength;
    const int pz = img.is3d() ? img.nz + (opt.periodic ? 0 : mlz) : 1, py = img.ny + pad, px = img.nx + pad;
    fft::PlanDesc r2c;
    r2c.kind = fft::Kind::R2C;
    r2c.shape = img.is3d() ? std::vector<std::size_t>{std::size_t(pz), std::size_t(py), std::size_t(px)}
                           : std::vector<std::size_t>{std::size_t(py), std::size_t(px)};
    r2c.precision = p;
    fft::PlanDesc c2r = r2c;
    c2r.kind = fft::Kind::C2R;
    const std::size_t nReal = std::size_t(pz) * py * px;
    const std::size_t nComplexReals = fft::outputElements(r2c, fft::Direction::Forward);
    const std::size_t mapSize = std::size_t(2 * mlz + 1) * (2 * opt.maxLength + 1) * (2 * opt.maxLength + 1);
    ctx.checkFits((nReal + nComplexReals + mapSize) * sizeof(T), "the two-point probability");

    std::vector<T> f(nReal, T(0));
    for (int z = 0; z < img.nz; ++z)
        for (int y = 0; y < img.ny; ++y)
            for (int x = 0; x < img.nx; ++x) f[(std::size_t(z) * py + y) * px + x] = img.at(z, y, x) ? T(1) : T(0);
    cl::Buffer real = ctx.upload(f, "S2 indicator");
    cl::Buffer spectrum = ctx.buffer(nComplexReals * sizeof(T), "S2 spectrum");
    fft::plan(ctx, r2c).execute(real, spectrum, fft::Direction::Forward);
    cl::Kernel power = ctx.kernel("lineal_path_s2.cl", "s2_power", p);
    setArg(power, 0, spectrum);
    setArg(power, 1, cl_ulong(nComplexReals / 2));
    ctx.launch(power, cl::NDRange(roundUp(nComplexReals / 2, 256)), cl::NDRange(256));
    fft::plan(ctx, c2r).execute(spectrum, real, fft::Direction::Inverse);
    cl::Buffer map = ctx.buffer(mapSize * sizeof(T), "S2 map");
    cl::Kernel extract = ctx.kernel("lineal_path_s2.cl", "s2_extract", p);
    const int args[] = {pz, py, px, img.nz, img.ny, img.nx, mlz, opt.maxLength, opt.periodic ? 1 : 0};
    setArg(extract, 0, real);
    for (int k = 0; k < 9; ++k) setArg(extract, 1 + k, cl_int(args[k]));
    setArg(extract, 10, map);
    ctx.launch(extract, cl::NDRange(roundUp(mapSize, 256)), cl::NDRange(256));
    const auto got = ctx.download<T>(map, mapSize, "S2 map");
    return std::vector<double>(got.begin(), got.end());
}

}  // namespace

std::vector<double> twoPointProbability(Context& ctx, const PhaseImage& img, const Options& opt, Precision precision) {
    validate(img, opt);
    if (precision == Precision::Double) {
        ctx.requirePrecision(Precision::Double);
        return run<double>(ctx, img, opt);
    }
    if (precision != Precision::Float) throw Error("the two-point probability runs in float or double, not mixed");
    return run<float>(ctx, img, opt);
}

std::vector<double> twoPointProbabilityReference(const PhaseImage& img, const Options& opt) {
    validate(img, opt);
    const Result layout = detail::emptyResult(img, opt);
    std::vector<double> out(layout.count.size(), 0.0);
    const int ml = opt.maxLength, mlz = layout.mlz();
    for (int dz = -mlz; dz <= mlz; ++dz)
        for (int dy = -ml; dy <= ml; ++dy)
            for (int dx = -ml; dx <= ml; ++dx) {
                std::uint64_t both = 0;
                for (int z = 0; z < img.nz; ++z)
                    for (int y = 0; y < img.ny; ++y)
                        for (int x = 0; x < img.nx; ++x) {
                            int z2 = z + dz, y2 = y + dy, x2 = x + dx;
                            if (opt.periodic) {
                                z2 = ((z2 % img.nz) + img.nz) % img.nz;
                                y2 = ((y2 % img.ny) + img.ny) % img.ny;
                                x2 = ((x2 % img.nx) + img.nx) % img.nx;
                            } else if (z2 < 0 || z2 >= img.nz || y2 < 0 || y2 >= img.ny || x2 < 0 || x2 >= img.nx) {
                                continue;
                            }
                            both += img.at(z, y, x) && img.at(z2, y2, x2) ? 1 : 0;
                        }
                const std::size_t i = layout.index(dz, dy, dx);
                out[i] = double(both) / double(layout.tried[i]);
            }
    return out;
}

}  // namespace portacl::lineal
