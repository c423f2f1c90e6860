// k-Wave's k-space pseudospectral time step (kspaceFirstOrder-OMP/-CUDA), element-wise parts; the
// FFTs are the engine's. One program per simulation configuration, chosen by defines:
//   KW_3D                         3-D (else 2-D: the z arrays are not touched)
//   C0_ARRAY, RHO0_ARRAY, BONA_ARRAY, ABSORB_ARRAY, ALPHA_ARRAY   heterogeneous quantities (else one
//                                 value at [0]; BONA_ARRAY: B/A / (2 rho0), ABSORB_ARRAY: Stokes tau)
//   NONLINEAR, ABSORPTION (0 lossless, 1 power law, 2 Stokes)
//   ST_<Q>                        storage of quantity Q (common/kwave_storage.h)
//   STORED_OPERATORS              kappa, nabla1 and nabla2 read from arrays in every storage mode,
//                                 and with the power law `absorb` holding 2 alpha c^(y-1) (else
//                                 computed per element: see KAPPA_STORED below)
// The inverse FFTs are scaled by 1/N, by the FFT library or (the one-device solver where FFTW
// transforms, whose scaling is a pass of its own) in the operators before them: the shifted
// derivative and unstagger operators are uploaded times 1/N, and the absorption terms and the
// source correction take `scale`. No fftDivider appears here.
#include "common/real.h"
#include "common/kwave_storage.h"

#ifndef KW_3D
#define KW_3D 0
#endif
#ifndef C0_ARRAY
#define C0_ARRAY 0
#endif
#ifndef RHO0_ARRAY
#define RHO0_ARRAY 0
#endif
#ifndef BONA_ARRAY
#define BONA_ARRAY 0
#endif
#ifndef ABSORB_ARRAY
#define ABSORB_ARRAY 0
#endif
#ifndef NONLINEAR
#define NONLINEAR 0
#endif
#ifndef ABSORPTION
#define ABSORPTION 0
#endif
#ifndef ALPHA_ARRAY
#define ALPHA_ARRAY 0
#endif
#ifndef ST_C2
#define ST_C2 0
#endif
#ifndef ST_RHO0
#define ST_RHO0 0
#endif
#ifndef ST_BONA
#define ST_BONA 0
#endif
#ifndef ST_TAU
#define ST_TAU 0
#endif
#ifndef ST_NABLA
#define ST_NABLA 0
#endif
#ifndef ST_RHO
#define ST_RHO 0
#endif
#ifndef ST_DTRHO
#define ST_DTRHO 0
#endif
#ifndef ST_KAPPA
#define ST_KAPPA 0
#endif
#ifndef ST_SKAPPA
#define ST_SKAPPA 0
#endif
#ifndef ST_P0
#define ST_P0 0
#endif
#ifndef ST_SIGNAL
#define ST_SIGNAL 0
#endif
#ifndef STORED_OPERATORS
#define STORED_OPERATORS 0
#endif

// Whether kappa and the absorption operators are read (reduced storage, or STORED_OPERATORS: the
// device profile's [kwave] stored_operators, set for CPUs, where sin, exp and log per element cost
// more than the reads) or computed from the squared wavenumbers (GPUs in full storage).
#define KAPPA_STORED (ST_KAPPA != 0 || STORED_OPERATORS)
#define NABLA_STORED (ST_NABLA != 0 || STORED_OPERATORS)

typedef KW_T(ST_C2) c2_t;
typedef KW_T(ST_RHO0) rho0_t;
typedef KW_T(ST_BONA) bona_t;
typedef KW_T(ST_TAU) tau_t;
typedef KW_T(ST_NABLA) nabla_t;
typedef KW_T(ST_RHO) rho_t;
typedef KW_T(ST_DTRHO) dtrho_t;
typedef KW_T(ST_KAPPA) kappa_t;
typedef KW_T(ST_SKAPPA) skappa_t;
typedef KW_T(ST_P0) p0_t;
typedef KW_T(ST_SIGNAL) signal_t;

#define AT_C0(i) (C0_ARRAY ? (i) : 0)
#define AT_RHO0(i) (RHO0_ARRAY ? (i) : 0)
#define AT_BONA(i) (BONA_ARRAY ? (i) : 0)
#define AT_ABSORB(i) (ABSORB_ARRAY ? (i) : 0)
#define AT_ALPHA(i) (ALPHA_ARRAY ? (i) : 0)

#define LD_RHO(p, i) KW_LD(ST_RHO, p, i)

// Reduced storage keeps c0 (c^2 overflows fp16) and 1/rho0_sg (dt/rho0_sg underflows fp16), as the
// thesis does; full storage keeps k-Wave's precomputed c^2 and dt/rho0_sg.
#if ST_C2
inline real load_c2(__global const c2_t* c2, size_t i) { const real c = KW_LD(ST_C2, c2, i); return c * c; }
#else
inline real load_c2(__global const c2_t* c2, size_t i) { return c2[i]; }
#endif
#if ST_DTRHO
#define LD_DTRHO(p, i) (dt * KW_LD(ST_DTRHO, p, i))
#else
#define LD_DTRHO(p, i) ((p)[i])
#endif
#define ST_RHO_(p, i, v) KW_ST(ST_RHO, p, i, v)

inline real2 cmul(real2 a, real2 b) { return (real2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// The spectral kernels run over the nr = nxr*ny*nz points of the half spectrum in one dimension
// (a 3-D range would round the odd row length nxr = nx/2+1 up to a whole GPU work-group, leaving most
// of the last group of every row idle) and recover the coordinates for the 1-D operators. With
// ROW_KERNELS (the one-device solver, the device profile's [kwave] row_kernels, for CPUs) a
// work-item takes a whole x row instead, over a 2-D range (ny, nz), and loops over it: no integer
// divisions, and a loop the compiler vectorises along x. (A work-item per point is left scalar by
// CPU runtimes here: the compiler first pairs each complex value's two reals into one 2-lane
// value, and the loop over work-items cannot be vectorised across such values.) The 3-D
// element-wise kernels (GRID_BEGIN) take rows the same way.
// SPECTRAL_BEGIN ... SPECTRAL_END enclose a kernel's body for point i = (x, y, z).
#ifndef ROW_KERNELS
#define ROW_KERNELS 0
#endif
#if ROW_KERNELS
#define SPECTRAL_BEGIN                                                \
    const uint y = get_global_id(0), z = get_global_id(1);           \
    if (y >= ny) return;                                              \
    const size_t row_ = (size_t)nxr * (y + (size_t)ny * z);          \
    if (row_ >= nr) return;                                           \
    (void)z;                                                          \
    for (uint x = 0; x < nxr; ++x) {                                  \
        const size_t i = row_ + x;
#define SPECTRAL_END }
#define GRID_BEGIN                                                    \
    const uint y = get_global_id(0), z = get_global_id(1);           \
    if (y >= ny || z >= nz) return;                                   \
    const size_t row_ = (size_t)nx * (y + (size_t)ny * z);           \
    for (uint x = 0; x < nx; x += GRID_LANES) {                       \
        const size_t i = row_ + x;
#define C_LOAD(p, i, re, im) const real re = (p)[2 * (i)], im = (p)[2 * (i) + 1]
#define C_STORE(p, i, re, im) ((p)[2 * (i)] = (re), (p)[2 * (i) + 1] = (im))
#else
#define SPECTRAL_BEGIN                                               \
    const size_t i = get_global_id(0);                              \
    if (i >= nr) return;                                            \
    const uint x = (uint)(i % nxr);                                 \
    const size_t yz_ = i / nxr;                                     \
    const uint y = (uint)(yz_ % ny), z = (uint)(yz_ / ny);          \
    (void)z;                                                        \
    {
#define SPECTRAL_END }
#define GRID_BEGIN                                                                 \
    const uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2); \
    if (x >= nx || y >= ny || z >= nz) return;                                    \
    {                                                                             \
        const size_t i = x + (size_t)nx * (y + (size_t)ny * z);
#define C_LOAD(p, i, re, im)                                     \
    const real2 re##_##im = ((__global const real2*)(p))[i];    \
    const real re = re##_##im.x, im = re##_##im.y
#define C_STORE(p, i, re, im) (((__global real2*)(p))[i] = (real2)((re), (im)))
#endif
#define GRID_END }
// With ROW_KERNELS the arrays of the kernels below that take rows (RESTRICT_ROWS in their signatures)
// are restrict: distinct buffers, each written through one pointer only (2-D calls may pass one
// buffer twice for a z array that is then never touched). Without it the compiler vectorises a row's
// loop only behind a run-time overlap check of every written array against every other, per row
// (velocity: three written arrays against eleven), and keeps it scalar past its limit on such checks.
#if ROW_KERNELS
#define RESTRICT_ROWS restrict
#else
#define RESTRICT_ROWS
#endif
// The 3-D element-wise kernels (GRID_BEGIN) compute GRID_LANES consecutive points of an x row at
// once, in explicit vectors (`lreal`), where the host sets ROW_LANES ([kwave] row_lanes, CPU profiles,
// when nx is a multiple of it): PoCL 5's loop vectorizer leaves the row loop scalar on a CPU (its cost
// model finds vectors "not beneficial"), where PoCL 3's vectorised it. Elsewhere one point at a time.
// L_LD(m, p, i) / L_ST(m, p, i, v): the lanes at i of an array stored in mode m (kwave_storage.h);
// L_AT(flag, m, p, i): those of a quantity that is an array when flag is set, else its one value.
#if ROW_KERNELS && defined(ROW_LANES) && ROW_LANES > 1
#define GRID_LANES ROW_LANES
#define L_CAT_(a, b) a##b
#define L_CAT(a, b) L_CAT_(a, b)
#define L_REAL L_CAT(REAL, ROW_LANES)
typedef L_REAL lreal;
#define L_LD_0(p, i) L_CAT(vload, ROW_LANES)(0, (p) + (i))
#define L_LD_1(p, i) L_CAT(convert_, L_REAL)(L_CAT(vload_half, ROW_LANES)(0, (const __global half*)(p) + (i)))
#define L_LD_2(p, i) L_CAT(convert_, L_REAL)(L_CAT(as_float, ROW_LANES)(L_CAT(convert_uint, ROW_LANES)(L_CAT(vload, ROW_LANES)(0, (p) + (i))) << 16))
#define L_ST_0(p, i, v) L_CAT(vstore, ROW_LANES)((v), 0, (p) + (i))
#define L_ST_1(p, i, v) L_CAT(L_CAT(vstore_half, ROW_LANES), _rte)(L_CAT(convert_float, ROW_LANES)(v), 0, (__global half*)(p) + (i))
#define L_ST_2(p, i, v) L_CAT(vstore, ROW_LANES)(kw_to_bf16_lanes(L_CAT(convert_float, ROW_LANES)(v)), 0, (p) + (i))
typedef L_CAT(uint, ROW_LANES) luint;
typedef L_CAT(ushort, ROW_LANES) lushort;
inline lushort kw_to_bf16_lanes(L_CAT(float, ROW_LANES) v) {
    luint u = L_CAT(as_uint, ROW_LANES)(v);
    u += 0x7FFFu + ((u >> 16) & 1u);  // as kw_to_bf16, lane by lane
    return L_CAT(convert_ushort, ROW_LANES)(u >> 16);
}
#define L_LD_(m, p, i) L_LD_##m(p, i)
#define L_LD(m, p, i) L_LD_(m, p, i)
#define L_ST_(m, p, i, v) L_ST_##m(p, i, v)
#define L_ST(m, p, i, v) L_ST_(m, p, i, v)
#define L_AT(flag, m, p, i) ((flag) ? L_LD(m, p, i) : (lreal)KW_LD(m, p, 0))
#else
#define GRID_LANES 1
typedef real lreal;
#define L_LD(m, p, i) KW_LD(m, p, i)
#define L_ST(m, p, i, v) KW_ST(m, p, i, v)
#define L_AT(flag, m, p, i) KW_LD(m, p, (flag) ? (i) : 0)
#endif

#if ST_DTRHO
#define L_DTRHO(p, i) (dt * L_AT(RHO0_ARRAY, ST_DTRHO, p, i))
#else
#define L_DTRHO(p, i) L_AT(RHO0_ARRAY, 0, p, i)
#endif

// p[i] = a * b for complex a and b.
#define C_MUL_STORE(p, i, ar, ai, br, bi) C_STORE(p, i, (ar) * (br) - (ai) * (bi), (ar) * (bi) + (ai) * (br))

// |k| at a half-spectrum point from the squared wavenumbers of each axis (kk: nxr values along x,
// then ny along y, then nz along z; 2-D: one zero for z).
inline real wave_number(__global const real* kk, uint x, uint y, uint z, uint nxr, uint ny) {
    return sqrt(kk[x] + kk[nxr + y] + kk[nxr + ny + z]);
}

// kappa = sinc(c_ref |k| dt/2). Kept in full precision it is computed here (kHalf = c_ref dt/2) rather
// than read, which spares a half-spectrum field of traffic per use and its memory; the reduced modes
// read it as stored (Table 5.1).
// x^e for x > 0 as exp(e log x): on CPU devices (PoCL) pow() is a scalar library call per element,
// several times slower in kwave_pressure and kwave_absorption_terms; the result differs from pow()
// by a few ulp (e log x carries log's rounding times e).
inline real power_of_positive(real x, real e) { return exp(e * log(x)); }

// sinc(a) = sin(a) / a. Up to |a| = pi (kappa's c_ref dt |k| / 2 at CFL numbers up to 2 / sqrt(3) in
// 3-D; k-Wave's default is 0.3) as its Taylor series in a^2, cut at the first term below the
// precision's rounding at pi (pi^18/19! in float, pi^28/29! in double): a few multiply-adds in place
// of sin and a division, for the kernels that compute kappa per element (the fused z kernels).
#if PORTACL_DOUBLE
__constant real SINC_TAYLOR[] = {1, -0.16666666666666666, 0.0083333333333333332,
                                   -0.00019841269841269841, 2.7557319223985893e-06,
                                   -2.505210838544172e-08, 1.6059043836821613e-10,
                                   -7.6471637318198164e-13, 2.8114572543455206e-15,
                                   -8.2206352466243295e-18, 1.9572941063391263e-20,
                                   -3.8681701706306841e-23, 6.4469502843844736e-26,
                                   -9.183689863795546e-29};
#else
__constant real SINC_TAYLOR[] = {1, -0.16666666666666666, 0.0083333333333333332,
                                   -0.00019841269841269841, 2.7557319223985893e-06,
                                   -2.505210838544172e-08, 1.6059043836821613e-10,
                                   -7.6471637318198164e-13, 2.8114572543455206e-15};
#endif
inline real sinc_of(real a) {
    const real a2 = a * a;
    if (a2 > (real)9.8696044010893586) return sin(a) / a;
    const int terms = (int)(sizeof(SINC_TAYLOR) / sizeof(SINC_TAYLOR[0]));
    real s = SINC_TAYLOR[terms - 1];
#pragma unroll
    for (int n = terms - 2; n >= 0; --n) s = fma(s, a2, SINC_TAYLOR[n]);
    return s;
}
#if !KAPPA_STORED
#define KAPPA_AT(i) sinc_of(kHalf * wave_number(kk, x, y, z, nxr, ny))
#else
#define KAPPA_AT(i) KW_LD(ST_KAPPA, kappa, i)
#endif

// FFT(p) in X -> kappa * dd*_shift_pos * FFT(p) in X, Y, Z (half spectrum).
__kernel void kwave_pressure_gradient(__global real* RESTRICT_ROWS X, __global real* RESTRICT_ROWS Y,
                                      __global real* RESTRICT_ROWS Z,
                                      __global const kappa_t* RESTRICT_ROWS kappa,
                                      __global const real* RESTRICT_ROWS kk, real kHalf,
                                      __global const real* RESTRICT_ROWS ddx,
                                      __global const real* RESTRICT_ROWS ddy,
                                      __global const real* RESTRICT_ROWS ddz, uint nxr, uint ny, ulong nr) {
    SPECTRAL_BEGIN
    const real k = KAPPA_AT(i);
    C_LOAD(X, i, fr, fi);
    const real er = fr * k, ei = fi * k;
    C_LOAD(ddx, x, ar, ai);
    C_MUL_STORE(X, i, er, ei, ar, ai);
    C_LOAD(ddy, y, br, bi);
    C_MUL_STORE(Y, i, er, ei, br, bi);
#if KW_3D
    C_LOAD(ddz, z, cr, ci);
    C_MUL_STORE(Z, i, er, ei, cr, ci);
#endif
    SPECTRAL_END
}

// FFT(u_i) -> kappa * dd*_shift_neg * FFT(u_i), in place.
__kernel void kwave_velocity_gradient(__global real* RESTRICT_ROWS X, __global real* RESTRICT_ROWS Y,
                                      __global real* RESTRICT_ROWS Z,
                                      __global const kappa_t* RESTRICT_ROWS kappa,
                                      __global const real* RESTRICT_ROWS kk, real kHalf,
                                      __global const real* RESTRICT_ROWS ddx,
                                      __global const real* RESTRICT_ROWS ddy,
                                      __global const real* RESTRICT_ROWS ddz, uint nxr, uint ny, ulong nr) {
    SPECTRAL_BEGIN
    const real k = KAPPA_AT(i);
    C_LOAD(X, i, xr, xi);
    C_LOAD(ddx, x, ar, ai);
    C_MUL_STORE(X, i, xr * k, xi * k, ar, ai);
    C_LOAD(Y, i, yr, yi);
    C_LOAD(ddy, y, br, bi);
    C_MUL_STORE(Y, i, yr * k, yi * k, br, bi);
#if KW_3D
    C_LOAD(Z, i, zr, zi);
    C_LOAD(ddz, z, cr, ci);
    C_MUL_STORE(Z, i, zr * k, zi * k, cr, ci);
#endif
    SPECTRAL_END
}

// u = pml_sg * (pml_sg * u - dt/rho0_sg * dp/dxi), per axis.
__kernel void kwave_velocity(__global real* RESTRICT_ROWS ux, __global real* RESTRICT_ROWS uy,
                             __global real* RESTRICT_ROWS uz, __global const real* RESTRICT_ROWS gx,
                             __global const real* RESTRICT_ROWS gy, __global const real* RESTRICT_ROWS gz,
                             __global const dtrho_t* RESTRICT_ROWS dtrx,
                             __global const dtrho_t* RESTRICT_ROWS dtry,
                             __global const dtrho_t* RESTRICT_ROWS dtrz,
                             __global const real* RESTRICT_ROWS pmlx, __global const real* RESTRICT_ROWS pmly,
                             __global const real* RESTRICT_ROWS pmlz, real dt, uint nx, uint ny, uint nz) {
    GRID_BEGIN
    const lreal ex = L_LD(0, pmlx, x);
    const real ey = pmly[y];
    L_ST(0, ux, i, (L_LD(0, ux, i) * ex - L_DTRHO(dtrx, i) * L_LD(0, gx, i)) * ex);
    L_ST(0, uy, i, (L_LD(0, uy, i) * ey - L_DTRHO(dtry, i) * L_LD(0, gy, i)) * ey);
#if KW_3D
    const real ez = pmlz[z];
    L_ST(0, uz, i, (L_LD(0, uz, i) * ez - L_DTRHO(dtrz, i) * L_LD(0, gz, i)) * ez);
#endif
    GRID_END
}

// After C2R of the p0 gradient into u: u(-dt/2) = dt/(2 rho0_sg) dp0/dxi, so that u(0) = 0.
__kernel void kwave_initial_velocity(__global real* ux, __global real* uy, __global real* uz,
                                     __global const dtrho_t* dtrx, __global const dtrho_t* dtry,
                                     __global const dtrho_t* dtrz, real dt, ulong n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const size_t r = AT_RHO0(i);
    ux[i] *= (real)0.5 * LD_DTRHO(dtrx, r);
    uy[i] *= (real)0.5 * LD_DTRHO(dtry, r);
#if KW_3D
    uz[i] *= (real)0.5 * LD_DTRHO(dtrz, r);
#endif
}

inline real density_sum(__global const rho_t* rhox, __global const rho_t* rhoy, __global const rho_t* rhoz, size_t i) {
#if KW_3D
    return LD_RHO(rhox, i) + LD_RHO(rhoy, i) + LD_RHO(rhoz, i);
#else
    return LD_RHO(rhox, i) + LD_RHO(rhoy, i);
#endif
}

// rho_i = pml_i * (pml_i * rho_i - dt * rho0 * du_i/dxi); nonlinear: rho0 -> 2 sum(rho) + rho0.
__kernel void kwave_density(__global rho_t* RESTRICT_ROWS rhox, __global rho_t* RESTRICT_ROWS rhoy,
                            __global rho_t* RESTRICT_ROWS rhoz, __global real* RESTRICT_ROWS dux,
                            __global real* RESTRICT_ROWS duy, __global const real* RESTRICT_ROWS duz,
                            __global const rho0_t* RESTRICT_ROWS rho0,
                            __global const real* RESTRICT_ROWS pmlx, __global const real* RESTRICT_ROWS pmly,
                            __global const real* RESTRICT_ROWS pmlz, real dt, uint nx, uint ny, uint nz,
                            uint writeTerms) {
    GRID_BEGIN
    const lreal r0 = L_AT(RHO0_ARRAY, ST_RHO0, rho0, i);
    const lreal rx = L_LD(ST_RHO, rhox, i), ry = L_LD(ST_RHO, rhoy, i);
#if KW_3D
    const lreal rz = L_LD(ST_RHO, rhoz, i);
#else
    const lreal rz = 0;
#endif
#if NONLINEAR
    const lreal f = ((real)2 * (rx + ry + rz) + r0) * dt;
#else
    const lreal f = r0 * dt;
#endif
    const lreal ex = L_LD(0, pmlx, x);
    const real ey = pmly[y];
    const lreal dx_ = L_LD(0, dux, i), dy_ = L_LD(0, duy, i);
    const lreal nrx = ex * (ex * rx - f * dx_), nry = ey * (ey * ry - f * dy_);
    L_ST(ST_RHO, rhox, i, nrx);
    L_ST(ST_RHO, rhoy, i, nry);
#if KW_3D
    const real ez = pmlz[z];
    const lreal dz_ = L_LD(0, duz, i);
    const lreal nrz = ez * (ez * rz - f * dz_);
    L_ST(ST_RHO, rhoz, i, nrz);
#else
    const lreal nrz = 0, dz_ = 0;
#endif
#if ABSORPTION == 1
    // kwave_pressure_terms fused in, for steps without a pressure source (which would change rho
    // between the two): dux <- sum(rho) as stored, duy <- rho0 sum(du).
    if (writeTerms) {
#if KW_3D
        L_ST(0, dux, i, L_LD(ST_RHO, rhox, i) + L_LD(ST_RHO, rhoy, i) + L_LD(ST_RHO, rhoz, i));
#else
        L_ST(0, dux, i, L_LD(ST_RHO, rhox, i) + L_LD(ST_RHO, rhoy, i));
#endif
        L_ST(0, duy, i, r0 * (dx_ + dy_ + dz_));
    }
#endif
    (void)nrz;
    GRID_END
}


// Power law, before its FFTs: dux <- sum(rho) (the eta term's input, and kept for the pressure),
// duy <- rho0 * sum(du) (the tau term's input). In place: each element reads its own values first.
__kernel void kwave_pressure_terms(__global const rho_t* rhox, __global const rho_t* rhoy,
                                   __global const rho_t* rhoz, __global real* dux, __global real* duy,
                                   __global const real* duz, __global const rho0_t* rho0, ulong n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
#if KW_3D
    const real du = dux[i] + duy[i] + duz[i];
#else
    const real du = dux[i] + duy[i];
#endif
    const real s = density_sum(rhox, rhoy, rhoz, i);
    dux[i] = s;
    duy[i] = KW_LD(ST_RHO0, rho0, AT_RHO0(i)) * du;
}

// Spectra of the two absorption terms times their operators: the eta term's in X times
// nabla2 = |k|^(y-1), the tau term's in Y times nabla1 = |k|^(y-2) (0 at k = 0). Computed here in
// full precision (yMinus2 = y - 2), read as stored (bfloat16) in the reduced modes.
__kernel void kwave_absorption_terms(__global real* RESTRICT_ROWS X, __global real* RESTRICT_ROWS Y,
                                     __global const nabla_t* RESTRICT_ROWS nabla2,
                                     __global const nabla_t* RESTRICT_ROWS nabla1,
                                     __global const real* RESTRICT_ROWS kk, real yMinus2, uint nxr, uint ny,
                                     ulong nr, real scale) {
    SPECTRAL_BEGIN
#if !NABLA_STORED
    const real k = wave_number(kk, x, y, z, nxr, ny);
    const real n1 = k == (real)0 ? (real)0 : power_of_positive(k, yMinus2) * scale, n2 = n1 * k;
#else
    const real n2 = KW_LD(ST_NABLA, nabla2, i) * scale, n1 = KW_LD(ST_NABLA, nabla1, i) * scale;
#endif
    C_LOAD(X, i, xr, xi);
    C_STORE(X, i, xr * n2, xi * n2);
    C_LOAD(Y, i, yr, yi);
    C_STORE(Y, i, yr * n1, yi * n1);
    SPECTRAL_END
}

// p = c^2 (sum(rho) [+ B/A sum(rho)^2 / (2 rho0)] [+ tau*tauTerm - eta*etaTerm | + tau rho0 sum(du)]).
// Power law: sum(rho) arrives in dux (from kwave_density or kwave_pressure_terms), etaTerm and
// tauTerm in duy and duz (after their inverse FFTs), which spares reading the three densities.
// Quantities read only here come folded, one field each: `bona` holds B/A / (2 rho0); with the power
// law `absorb` holds 2 alpha [Np], and tau*tauTerm - eta*etaTerm = -2 alpha c^(y-1) (tauTerm + c
// tan(pi y/2) etaTerm) with tau = -2 alpha c^(y-1), eta = 2 alpha c^y tan(pi y/2) (yMinus1 = y - 1,
// tanHalfPiY = tan(pi y/2)), or with STORED_OPERATORS 2 alpha c^(y-1) (a grid where alpha or c is);
// with Stokes `absorb` holds tau.
__kernel void kwave_pressure(__global real* p, __global const rho_t* rhox, __global const rho_t* rhoy,
                             __global const rho_t* rhoz, __global const real* dux, __global const real* duy,
                             __global const real* duz, __global const c2_t* c2, __global const rho0_t* rho0,
                             __global const bona_t* bona, __global const tau_t* absorb, ulong n, real yMinus1,
                             real tanHalfPiY) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
#if ABSORPTION == 1
    const real s = dux[i];
#else
    const real s = density_sum(rhox, rhoy, rhoz, i);
#endif
    real acc = s;
    const real cc = load_c2(c2, AT_C0(i));
#if NONLINEAR
    acc += KW_LD(ST_BONA, bona, AT_BONA(i)) * s * s;
#endif
#if ABSORPTION == 1
#if ST_C2
    const real c = KW_LD(ST_C2, c2, AT_C0(i));  // stored as c
#else
    const real c = sqrt(cc);
#endif
#if STORED_OPERATORS
    acc -= KW_LD(ST_TAU, absorb, AT_ABSORB(i)) * (duz[i] + c * tanHalfPiY * duy[i]);  // 2 alpha c^(y-1)
#else
    acc -= KW_LD(ST_TAU, absorb, AT_ALPHA(i)) * power_of_positive(c, yMinus1) * (duz[i] + c * tanHalfPiY * duy[i]);
#endif
#elif ABSORPTION == 2
#if KW_3D
    const real du = dux[i] + duy[i] + duz[i];
#else
    const real du = dux[i] + duy[i];
#endif
    acc += KW_LD(ST_TAU, absorb, AT_ABSORB(i)) * KW_LD(ST_RHO0, rho0, AT_RHO0(i)) * du;
#endif
    p[i] = cc * acc;
}

// p = p0; rho_i = p0 / (N c^2).
__kernel void kwave_initial_pressure(__global real* p, __global rho_t* rhox, __global rho_t* rhoy,
                                     __global rho_t* rhoz, __global const p0_t* p0, __global const c2_t* c2,
                                     ulong n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const real v = KW_LD(ST_P0, p0, i);
    p[i] = v;
#if KW_3D
    const real r = v / ((real)3 * load_c2(c2, AT_C0(i)));
    ST_RHO_(rhoz, i, r);
#else
    const real r = v / ((real)2 * load_c2(c2, AT_C0(i)));
#endif
    ST_RHO_(rhox, i, r);
    ST_RHO_(rhoy, i, r);
}

// Point sources: mode 0 sets the field at the source points, mode 1 adds. `offset` is the first
// signal element of this step (t*nsrc when many, else t), `many` whether each point has its own.
__kernel void kwave_point_source(__global real* field, __global const ulong* index,
                                 __global const signal_t* signal, uint nsrc, ulong offset, uint many, uint mode) {
    const uint i = get_global_id(0);
    if (i >= nsrc) return;
    const real v = KW_LD(ST_SIGNAL, signal, offset + (many ? i : 0));
    if (mode == 0) field[index[i]] = v;
    else field[index[i]] += v;
}

// Velocity sources keep their signals in the element type (Table 5.1 reduces only the pressure signal).
__kernel void kwave_velocity_point_source(__global real* field, __global const ulong* index,
                                          __global const real* signal, uint nsrc, ulong offset, uint many,
                                          uint mode) {
    const uint i = get_global_id(0);
    if (i >= nsrc) return;
    const real v = signal[offset + (many ? i : 0)];
    if (mode == 0) field[index[i]] = v;
    else field[index[i]] += v;
}

// The same for the split densities (which may be stored in fp16).
__kernel void kwave_point_source_density(__global rho_t* rhox, __global rho_t* rhoy, __global rho_t* rhoz,
                                         __global const ulong* index, __global const signal_t* signal,
                                         uint nsrc, ulong offset, uint many, uint mode) {
    const uint i = get_global_id(0);
    if (i >= nsrc) return;
    const real v = KW_LD(ST_SIGNAL, signal, offset + (many ? i : 0));
    const size_t j = index[i];
    ST_RHO_(rhox, j, (mode == 0 ? (real)0 : LD_RHO(rhox, j)) + v);
    ST_RHO_(rhoy, j, (mode == 0 ? (real)0 : LD_RHO(rhoy, j)) + v);
#if KW_3D
    ST_RHO_(rhoz, j, (mode == 0 ? (real)0 : LD_RHO(rhoz, j)) + v);
#endif
}

// Additive sources: the spectrum of the scattered source times source_kappa.
__kernel void kwave_source_kappa(__global real* X, __global const skappa_t* skappa, ulong nr, real scale) {
    const size_t i = get_global_id(0);
    if (i >= nr) return;
    const real s = KW_LD(ST_SKAPPA, skappa, i) * scale;
    C_LOAD(X, i, xr, xi);
    C_STORE(X, i, xr * s, xi * s);
}

__kernel void kwave_add_field(__global real* field, __global const real* s, ulong n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    field[i] += s[i];
}

// The local Fourier basis decomposition's bell (host/kwave/subdomain.hpp): `count` points of `field`
// from point `first` on, each times the bell of its plane (`plane` points each), before a forward
// transform, so that a subdomain's field falls smoothly to zero over its overlap planes.
__kernel void kwave_bell(__global real* field, __global const real* bell, ulong plane, ulong first, ulong count) {
    const size_t i = get_global_id(0);
    if (i >= count) return;
    field[first + i] *= bell[i / plane];
}

__kernel void kwave_add_density(__global rho_t* rhox, __global rho_t* rhoy, __global rho_t* rhoz,
                                __global const real* s, ulong n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const real v = s[i];
    ST_RHO_(rhox, i, LD_RHO(rhox, i) + v);
    ST_RHO_(rhoy, i, LD_RHO(rhoy, i) + v);
#if KW_3D
    ST_RHO_(rhoz, i, LD_RHO(rhoz, i) + v);
#endif
}

// ux at the velocity source points += transducer_source_input[delay + t]. The host checks every
// index and delay once; the kernel still reads nothing past the grid (n points) or the signal
// (signal_length samples), whatever the buffers hold. (t + d cannot wrap: t is a time step. Written
// as t >= signal_length - d, the check made Intel's CPU compiler 2026.2, optimising, drop the stores
// of other kernels of the program: kwave_sample_all, kwave_sample and kwave_unstagger wrote nothing.)
__kernel void kwave_transducer(__global real* ux, __global const ulong* index, __global const real* signal,
                               __global const ulong* delay, uint nsrc, ulong t, ulong n, ulong signal_length) {
    const uint i = get_global_id(0);
    if (i >= nsrc) return;
    const ulong at = index[i], d = delay[i];
    if (at >= n || d >= signal_length || t + d >= signal_length) return;
    ux[at] += signal[d + t];
}

// --u_non_staggered_raw: the spectrum of u_i times e^(-i k_i d_i/2) along its own axis, which moves
// it from the staggered grid back to the regular one.
__kernel void kwave_unstagger(__global real* RESTRICT_ROWS X, __global const real* RESTRICT_ROWS shift,
                              uint axis, uint nxr, uint ny, ulong nr) {
    SPECTRAL_BEGIN
    const uint j = axis == 0 ? x : axis == 1 ? y : z;
    C_LOAD(X, i, xr, xi);
    C_LOAD(shift, j, sr, si);
    C_MUL_STORE(X, i, xr, xi, sr, si);
    SPECTRAL_END
}

// Sampling at the sensor points: raw (into raw + sample*nsens), running sum of squares, max, min.
// flags: 1 raw, 2 rms, 4 max, 8 min. `first` initialises the aggregates.
__kernel void kwave_sample(__global const real* field, __global const ulong* points, uint nsens,
                           __global real* raw, ulong rawOffset, __global real* sumsq, __global real* mx,
                           __global real* mn, uint flags, uint first) {
    const uint i = get_global_id(0);
    if (i >= nsens) return;
    const real v = field[points[i]];
    if (flags & 1u) raw[rawOffset + i] = v;
    if (flags & 2u) sumsq[i] = first ? v * v : sumsq[i] + v * v;
    if (flags & 4u) mx[i] = first ? v : fmax(mx[i], v);
    if (flags & 8u) mn[i] = first ? v : fmin(mn[i], v);
}

// Max and min over the whole grid. flags: 1 max, 2 min.
__kernel void kwave_sample_all(__global const real* field, __global real* mx, __global real* mn, ulong n,
                               uint flags, uint first) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const real v = field[i];
    if (flags & 1u) mx[i] = first ? v : fmax(mx[i], v);
    if (flags & 2u) mn[i] = first ? v : fmin(mn[i], v);
}

#ifdef KZ_Q
// ---- Spectral operators fused with the z transforms (3-D, nz = 16 KZ_Q) ----------------------------
// The host transforms x and y only (batched 2-D FFTs of every z plane); these kernels take the z
// transform of each line, multiply by the operator and transform back, so the spectrum of a field
// never goes to memory in full 3-D form: one read and one write per field instead of the z passes
// of the forward and inverse FFTs and the element-wise kernel between them. The operators are the
// element-wise kernels' (above), with the inverse z transform's 1/nz folded in.
#include "common/z_line_fft.h"
#define Z_N (16 * KZ_Q)

// The coordinates of a work-item: its line (x, y) and its place t on the line. The lines are numbered
// y nxr + x, so that those of a work-group are consecutive in memory whatever nxr is (tiles along x
// alone would leave most of the last tile of every row idle: nxr = nx/2 + 1 is odd).
#define Z_LINE_INDEX                                                                \
    const int line = (int)get_local_id(0), t = (int)get_local_id(1);                \
    const uint lineIndex = (uint)get_group_id(0) * Z_LINES + (uint)line;            \
    const bool valid = lineIndex < nxr * ny;                                        \
    const uint x = lineIndex % nxr, y = lineIndex / nxr;                            \
    const size_t plane = (size_t)nxr * ny, base = valid ? lineIndex : 0;            \
    __local real2 lds[Z_N * Z_PITCH];                                               \
    __local real2 tw[Z_N];                                                          \
    z_twiddles(tw, t * Z_LINES + line, Z_N, Z_N)

inline void z_load(__global const real2* f, real2* v, const size_t base, const size_t plane, const int t, const bool valid) {
#pragma unroll
    for (int j = 0; j < KZ_Q; ++j) v[j] = valid ? f[base + (size_t)(t + 16 * j) * plane] : (real2)(0, 0);
}
inline void z_store(__global real2* f, const real2* v, const size_t base, const size_t plane, const int t, const bool valid) {
    if (!valid) return;
#pragma unroll
    for (int j = 0; j < KZ_Q; ++j) f[base + (size_t)(t + 16 * j) * plane] = v[j];
}

// kappa / nz at the spectrum points this work-item holds (z = t + KZ_Q k).
inline void z_kappa(real* kap, __global const kappa_t* kappa, __global const real* kk, const real kHalf, const uint x,
                    const uint y, const size_t base, const size_t plane, const uint nxr, const uint ny, const int t) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
        const uint z = (uint)(t + KZ_Q * k);
        const size_t i = base + z * plane;
        (void)i;
        kap[k] = KAPPA_AT(i) * ((real)1 / (real)Z_N);
    }
}

// The shifted derivative operator of axis a at (x, y, z).
inline real2 z_axis_shift(const int a, __global const real2* ddx, __global const real2* ddy, __global const real2* ddz,
                          const uint x, const uint y, const uint z) {
    return a == 0 ? ddx[x] : a == 1 ? ddy[y] : ddz[z];
}

// FFT_xy(p) in X -> FFT_xy^-1 of kappa * dd*_shift_pos * FFT(p) ... in X, Y, Z: the z part of
// FFT(p), kwave_pressure_gradient and the z part of the three inverse FFTs. The x and y shifts are
// constant along a line, so they multiply after one shared inverse z transform: two inverse
// transforms, not three.
__kernel __attribute__((reqd_work_group_size(Z_LINES, 16, 1)))
void kwave_z_pressure_gradient(__global real2* X, __global real2* Y, __global real2* Z,
                               __global const kappa_t* kappa, __global const real* kk, real kHalf,
                               __global const real2* ddx, __global const real2* ddy,
                               __global const real2* ddz, uint nxr, uint ny) {
    Z_LINE_INDEX;
    real2 v[KZ_Q], s[16], e[16];  // e: kappa FFT(p), kept for the z derivative
    z_load(X, v, base, plane, t, valid);
    z_forward(v, s, lds, tw, t, line, KZ_Q);
    if (t < KZ_Q && valid) {
        real kap[16];
        z_kappa(kap, kappa, kk, kHalf, x, y, base, plane, nxr, ny, t);
#pragma unroll
        for (int k = 0; k < 16; ++k) e[k] = s[k] *= kap[k];
    }
    z_inverse(s, v, lds, tw, t, line, KZ_Q);
    if (valid) {
        const real2 dx = ddx[x], dy = ddy[y];
#pragma unroll
        for (int j = 0; j < KZ_Q; ++j) {
            const size_t i = base + (size_t)(t + 16 * j) * plane;
            X[i] = cmul(v[j], dx);
            Y[i] = cmul(v[j], dy);
        }
    }
    if (t < KZ_Q && valid) {
#pragma unroll
        for (int k = 0; k < 16; ++k) s[k] = cmul(e[k], ddz[t + KZ_Q * k]);
    }
    z_inverse(s, v, lds, tw, t, line, KZ_Q);
    z_store(Z, v, base, plane, t, valid);
}

// FFT_xy(u_i) in X, Y, Z -> FFT_xy^-1 of kappa * dd*_shift_neg * FFT(u_i) ..., in place.
__kernel __attribute__((reqd_work_group_size(Z_LINES, 16, 1)))
void kwave_z_velocity_gradient(__global real2* X, __global real2* Y, __global real2* Z,
                               __global const kappa_t* kappa, __global const real* kk, real kHalf,
                               __global const real2* ddx, __global const real2* ddy,
                               __global const real2* ddz, uint nxr, uint ny) {
    Z_LINE_INDEX;
    real2 v[KZ_Q], s[16];
    real kap[16];
    if (t < KZ_Q && valid) z_kappa(kap, kappa, kk, kHalf, x, y, base, plane, nxr, ny, t);
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        __global real2* f = a == 0 ? X : a == 1 ? Y : Z;
        z_load(f, v, base, plane, t, valid);
        z_forward(v, s, lds, tw, t, line, KZ_Q);
        if (t < KZ_Q && valid) {
#pragma unroll
            for (int k = 0; k < 16; ++k) {
                const real2 d = z_axis_shift(a, ddx, ddy, ddz, x, y, (uint)(t + KZ_Q * k));
                s[k] = cmul(s[k] * kap[k], d);
            }
        }
        z_inverse(s, v, lds, tw, t, line, KZ_Q);
        z_store(f, v, base, plane, t, valid);
    }
}

// The absorption terms (kwave_absorption_terms) with their z transforms: X times nabla2, Y times
// nabla1, in place.
__kernel __attribute__((reqd_work_group_size(Z_LINES, 16, 1)))
void kwave_z_absorption_terms(__global real2* X, __global real2* Y, __global const nabla_t* nabla2,
                              __global const nabla_t* nabla1, __global const real* kk, real yMinus2, uint nxr, uint ny) {
    Z_LINE_INDEX;
    real2 v[KZ_Q], s[16];
#if !NABLA_STORED
    // nabla1 = |k|^(y-2) / nz at this work-item's spectrum points, computed once for both fields
    // (nabla2 = nabla1 |k|).
    real n1[16];
    if (t < KZ_Q && valid) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            const real kw = wave_number(kk, x, y, (uint)(t + KZ_Q * k), nxr, ny);
            n1[k] = kw == (real)0 ? (real)0 : power_of_positive(kw, yMinus2) * ((real)1 / (real)Z_N);
        }
    }
#endif
#pragma unroll
    for (int a = 0; a < 2; ++a) {
        __global real2* f = a == 0 ? X : Y;
        z_load(f, v, base, plane, t, valid);
        z_forward(v, s, lds, tw, t, line, KZ_Q);
        if (t < KZ_Q && valid) {
#pragma unroll
            for (int k = 0; k < 16; ++k) {
                const uint z = (uint)(t + KZ_Q * k);
#if !NABLA_STORED
                s[k] *= a == 0 ? n1[k] * wave_number(kk, x, y, z, nxr, ny) : n1[k];
#else
                const size_t i = base + z * plane;
                s[k] *= (a == 0 ? KW_LD(ST_NABLA, nabla2, i) : KW_LD(ST_NABLA, nabla1, i)) * ((real)1 / (real)Z_N);
#endif
            }
        }
        z_inverse(s, v, lds, tw, t, line, KZ_Q);
        z_store(f, v, base, plane, t, valid);
    }
}
#endif

#ifdef KX_Q
// ---- The velocity update fused with the inverse x transforms (3-D, nx = 32 KX_Q) -----------------
// After kwave_z_pressure_gradient the host runs only the y part of the inverse FFTs; this kernel
// takes each x row of the three gradients through its inverse real transform (row_inverse_real) and
// updates u there, so the real gradients never go to memory: kwave_velocity with the x pass of the
// inverse FFTs. The Z_LINES rows of a work-group are consecutive (y + ny z), so their coefficients
// and their points are one contiguous block each, read and written through local memory.
#define X_N (32 * KX_Q)
#define X_H (X_N / 2 + 1)
__kernel __attribute__((reqd_work_group_size(Z_LINES, 16, 1)))
void kwave_x_velocity(__global real* ux, __global real* uy, __global real* uz, __global const real2* gx,
                      __global const real2* gy, __global const real2* gz, __global const dtrho_t* dtrx,
                      __global const dtrho_t* dtry, __global const dtrho_t* dtrz, __global const real* pmlx,
                      __global const real* pmly, __global const real* pmlz, real dt, uint ny, uint nz) {
    const int line = (int)get_local_id(0), t = (int)get_local_id(1), id = t * Z_LINES + line;
    const uint firstRow = (uint)get_group_id(0) * Z_LINES, rows = min((uint)Z_LINES, ny * nz - firstRow);
    __local real2 lds[X_H * Z_PITCH];
    __local real2 tw[X_N / 2], halfTw[X_N / 2];
    z_twiddles(tw, id, X_N / 2, X_N / 2);
    z_twiddles(halfTw, id, X_N, X_N / 2);
#pragma unroll
    for (int a = 0; a < 3; ++a) {
        __global const real2* g = a == 0 ? gx : a == 1 ? gy : gz;
        // The block loops stay rolled: unrolled (or without the row bound, which the compiler then
        // unrolls) the kernel is slower on NVIDIA GPUs.
        for (int f = id; f < Z_LINES * X_H; f += 16 * Z_LINES) {
            const int r = f / X_H, m = f - r * X_H;
            lds[m * Z_PITCH + r] = (uint)r < rows ? g[(size_t)firstRow * X_H + f] : (real2)(0, 0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        real2 v[KX_Q];
        row_inverse_real(v, lds, tw, halfTw, t, line, KX_Q);
#pragma unroll
        for (int j = 0; j < KX_Q; ++j) lds[(t + 16 * j) * Z_PITCH + line] = v[j];
        barrier(CLK_LOCAL_MEM_FENCE);
        __global real* u = a == 0 ? ux : a == 1 ? uy : uz;
        __global const dtrho_t* dtr = a == 0 ? dtrx : a == 1 ? dtry : dtrz;
        for (int f = id; f < Z_LINES * X_N / 2; f += 16 * Z_LINES) {
            const int r = f / (X_N / 2), m = f - r * (X_N / 2);
            if ((uint)r >= rows) break;
            const uint row = firstRow + (uint)r, x = 2 * (uint)m;
            const size_t i = (size_t)firstRow * X_N + 2 * (size_t)f;
            const real2 d = lds[m * Z_PITCH + r];
            const real e0 = a == 0 ? pmlx[x] : a == 1 ? pmly[row % ny] : pmlz[row / ny], e1 = a == 0 ? pmlx[x + 1] : e0;
            u[i] = (u[i] * e0 - LD_DTRHO(dtr, AT_RHO0(i)) * d.x) * e0;
            u[i + 1] = (u[i + 1] * e1 - LD_DTRHO(dtr, AT_RHO0(i + 1)) * d.y) * e1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // lds free for the next component
    }
}
#endif
