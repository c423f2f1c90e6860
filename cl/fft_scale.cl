// Scales n reals by a factor: the 1/N of an inverse FFT where the library cannot apply it in full
// precision (clFFT takes its scale factor as a float, which would cost a double transform 7 digits).
#include "common/real.h"

__kernel void fft_scale(__global real* data, const ulong n, const real factor) {
    const size_t i = get_global_id(0);
    if (i < n) data[i] *= factor;
}
