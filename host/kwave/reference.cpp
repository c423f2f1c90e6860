// The serial reference of k-Wave's time step (kspaceFirstOrder-OMP's computeMainLoop), in double
// precision on the full complex spectrum with its own DFT. Written for clarity, not speed: it is the
// yardstick of the device solver on small grids.
#include <cmath>

#include "k_space_operators.hpp"
#include "portacl/runtime/error.hpp"
#include "reference_fft.hpp"
#include "sensor_recorder.hpp"

namespace portacl::kwave {
namespace {

using reference::Spectrum;

class ReferenceSolver {
public:
    ReferenceSolver(const Simulation& sim, const OutputSelection& out)
        : sim_(sim), out_(out), g_(sim.grid), ops_(sim, false), pml_(sim), med_(sim),
          shape_{g_.nx, g_.ny, g_.nz}, n_(g_.size()), dims_(g_.dimensions()), points_(sim.sensor.points(sim.grid)) {
        p_.assign(n_, 0.0);
        for (int a = 0; a < dims_; ++a) {
            u_[a].assign(n_, 0.0);
            rho_[a].assign(n_, 0.0);
            du_[a].assign(n_, 0.0);
        }
    }

    void step(std::size_t t) {
        computeVelocity();
        addVelocitySources(t);
        if (sim_.transducer.length > t)
            for (std::size_t i = 0; i < sim_.u.index.size(); ++i)
                u_[0][sim_.u.index[i]] += sim_.transducer.signal[sim_.transducer.delay[i] + t];
        computeVelocityGradient();
        computeDensity();
        addPressureSource(t);
        computePressure();
        if (t == 0 && !sim_.p0.empty()) addInitialPressure();
        if (t >= out_.startIndex) sample();
    }

    Recording finish() {
        if (out_.pFinal) rec_.data["p_final"] = p_;
        if (out_.uFinal) {
            const char* names[3] = {"ux_final", "uy_final", "uz_final"};
            for (int a = 0; a < dims_; ++a) rec_.data[names[a]] = u_[a];
        }
        return rec_;
    }

private:
    static double at(const std::vector<double>& v, std::size_t i) { return v.size() == 1 ? v[0] : v[i]; }
    std::size_t coord(std::size_t i, int axis) const {
        if (axis == 0) return i % g_.nx;
        if (axis == 1) return (i / g_.nx) % g_.ny;
        return i / (g_.nx * g_.ny);
    }

    Spectrum forward(const std::vector<double>& f) const {
        Spectrum s(f.begin(), f.end());
        reference::transform(s, shape_, false);
        return s;
    }
    std::vector<double> inverseReal(Spectrum s) const {
        reference::transform(s, shape_, true);
        std::vector<double> r(n_);
        for (std::size_t i = 0; i < n_; ++i) r[i] = s[i].real();
        return r;
    }
    // Re(IFFT(FFT(f) * kappa * dd_axis)) for each axis.
    std::vector<double> derivative(const Spectrum& F, int axis, bool positive) const {
        Spectrum s(F);
        const auto& dd = positive ? ops_.ddPos[axis] : ops_.ddNeg[axis];
        for (std::size_t i = 0; i < n_; ++i) s[i] *= ops_.kappa[i] * dd[coord(i, axis)];
        return inverseReal(std::move(s));
    }
    std::vector<double> filtered(const std::vector<double>& f, const std::vector<double>& op) const {
        Spectrum s = forward(f);
        for (std::size_t i = 0; i < n_; ++i) s[i] *= op[i];
        return inverseReal(std::move(s));
    }

    void computeVelocity() {
        const Spectrum P = forward(p_);
        for (int a = 0; a < dims_; ++a) {
            const auto grad = derivative(P, a, true);
            const auto& pml = pml_.staggered[a];
            for (std::size_t i = 0; i < n_; ++i) {
                const double e = pml[coord(i, a)];
                u_[a][i] = e * (e * u_[a][i] - at(med_.dtRho0Sg[a], i) * grad[i]);
            }
        }
    }

    void addVelocitySources(std::size_t t) {
        for (int a = 0; a < dims_; ++a) {
            if (sim_.u.length[a] <= t) continue;
            const auto& sig = sim_.u.signal[a];
            const auto& idx = sim_.u.index;
            auto value = [&](std::size_t i) { return sim_.u.many ? sig[t * idx.size() + i] : sig[t]; };
            if (sim_.u.mode == SourceMode::Additive) {
                std::vector<double> s(n_, 0.0);
                for (std::size_t i = 0; i < idx.size(); ++i) s[idx[i]] = value(i);
                const auto f = filtered(s, ops_.sourceKappa);
                for (std::size_t i = 0; i < n_; ++i) u_[a][i] += f[i];
            } else {
                for (std::size_t i = 0; i < idx.size(); ++i) {
                    if (sim_.u.mode == SourceMode::Dirichlet) u_[a][idx[i]] = value(i);
                    else u_[a][idx[i]] += value(i);
                }
            }
        }
    }

    void computeVelocityGradient() {
        for (int a = 0; a < dims_; ++a) du_[a] = derivative(forward(u_[a]), a, false);
    }

    void computeDensity() {
        const double dt = sim_.dt;
        for (std::size_t i = 0; i < n_; ++i) {
            double rhoSum = 0.0;
            for (int a = 0; a < dims_; ++a) rhoSum += rho_[a][i];
            const double rho0 = at(med_.rho0, i);
            const double factor = sim_.medium.nonlinear ? (2.0 * rhoSum + rho0) * dt : rho0 * dt;
            for (int a = 0; a < dims_; ++a) {
                const double e = pml_.regular[a][coord(i, a)];
                rho_[a][i] = e * (e * rho_[a][i] - factor * du_[a][i]);
            }
        }
    }

    void addPressureSource(std::size_t t) {
        if (sim_.p.length <= t) return;
        const auto& idx = sim_.p.index;
        const auto& sig = sim_.p.signal;
        auto value = [&](std::size_t i) { return sim_.p.many ? sig[t * idx.size() + i] : sig[t]; };
        if (sim_.p.mode == SourceMode::Additive) {
            std::vector<double> s(n_, 0.0);
            for (std::size_t i = 0; i < idx.size(); ++i) s[idx[i]] = value(i);
            const auto f = filtered(s, ops_.sourceKappa);
            for (int a = 0; a < dims_; ++a)
                for (std::size_t i = 0; i < n_; ++i) rho_[a][i] += f[i];
        } else {
            for (int a = 0; a < dims_; ++a)
                for (std::size_t i = 0; i < idx.size(); ++i) {
                    if (sim_.p.mode == SourceMode::Dirichlet) rho_[a][idx[i]] = value(i);
                    else rho_[a][idx[i]] += value(i);
                }
        }
    }

    void computePressure() {
        std::vector<double> rhoSum(n_, 0.0), duTerm(n_, 0.0);
        for (std::size_t i = 0; i < n_; ++i) {
            double du = 0.0;
            for (int a = 0; a < dims_; ++a) {
                rhoSum[i] += rho_[a][i];
                du += du_[a][i];
            }
            duTerm[i] = at(med_.rho0, i) * du;
        }
        std::vector<double> tauTerm, etaTerm;
        const auto absorption = sim_.medium.absorption;
        if (absorption == Absorption::PowerLaw) {
            tauTerm = filtered(duTerm, ops_.nabla1);
            etaTerm = filtered(rhoSum, ops_.nabla2);
        }
        for (std::size_t i = 0; i < n_; ++i) {
            double s = rhoSum[i];
            if (sim_.medium.nonlinear) s += at(med_.bOnA, i) * rhoSum[i] * rhoSum[i] / (2.0 * at(med_.rho0, i));
            if (absorption == Absorption::PowerLaw) s += at(med_.tau, i) * tauTerm[i] - at(med_.eta, i) * etaTerm[i];
            if (absorption == Absorption::Stokes) s += at(med_.tau, i) * duTerm[i];
            p_[i] = at(med_.c2, i) * s;
        }
    }

    // p = p0 and the split densities from it; u(-dt/2) = dt/(2 rho0) grad p0 so that u(0) = 0.
    void addInitialPressure() {
        for (std::size_t i = 0; i < n_; ++i) {
            p_[i] = sim_.p0[i];
            for (int a = 0; a < dims_; ++a) rho_[a][i] = sim_.p0[i] / (dims_ * at(med_.c2, i));
        }
        const Spectrum P = forward(p_);
        for (int a = 0; a < dims_; ++a) {
            const auto grad = derivative(P, a, true);
            for (std::size_t i = 0; i < n_; ++i) u_[a][i] = 0.5 * at(med_.dtRho0Sg[a], i) * grad[i];
        }
    }

    void sample() {
        for (const auto& q : quantities(g_)) {
            const auto out = outputsOf(q, out_);
            if (!out.sampled()) continue;
            const int f = fieldOf(q);
            if (f < 4) {
                sampleOnHost(rec_, q, out, points_, f == 0 ? p_.data() : u_[f - 1].data(), n_);
                continue;
            }
            // u moved half a cell back to the regular grid: Re(IFFT(FFT(u) e^(-i k d/2))) along its axis.
            const int a = f - 4;
            Spectrum s = forward(u_[a]);
            for (std::size_t i = 0; i < n_; ++i) s[i] *= ops_.shiftNeg[a][coord(i, a)];
            const auto shifted = inverseReal(std::move(s));
            sampleOnHost(rec_, q, out, points_, shifted.data(), n_);
        }
        ++rec_.samples;
    }

    const Simulation& sim_;
    OutputSelection out_;
    const Grid& g_;
    KSpaceOperators ops_;
    PerfectlyMatchedLayer pml_;
    MediumCoefficients med_;
    std::array<std::size_t, 3> shape_;
    std::size_t n_;
    int dims_;
    std::vector<std::uint64_t> points_;
    std::vector<double> p_;
    std::array<std::vector<double>, 3> u_, rho_, du_;
    Recording rec_;
};

}  // namespace

Recording referenceRun(const Simulation& sim, const OutputSelection& outputs, std::size_t steps) {
    requireWholeGrid(sim, "the reference solver");
    validate(sim, "the reference simulation");
    ReferenceSolver solver(sim, outputs);
    const std::size_t end = steps ? std::min(steps, sim.nt) : sim.nt;
    for (std::size_t t = 0; t < end; ++t) solver.step(t);
    return solver.finish();
}

}  // namespace portacl::kwave
