// Small kernels around the FFT libraries (host/fft/clfft_plan.cpp).
#include "common/real.h"

// Scales n reals by a factor: the 1/N of an inverse FFT where the library cannot apply it in full
// precision (clFFT takes its scale factor as a float, which would cost a double transform 7 digits).
__kernel void fft_scale(__global real* data, const ulong n, const real factor) {
    const size_t i = get_global_id(0);
    if (i < n) data[i] *= factor;
}

// Does nothing: enqueued just before a library transform that reports only its last kernel's
// event, its event marks where the transform starts on the device (a kernel, so as not to rely on
// how each driver timestamps marker events).
__kernel void fft_timing_mark(void) {}
