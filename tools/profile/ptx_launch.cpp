// Launches the OpenCL-built PTX of filter_strip (cl/filter_strip.cl) through the CUDA driver API,
// so that Nsight Compute, which does not see OpenCL kernels, can profile the very code NVIDIA's
// OpenCL driver runs. The arguments are the kernel's: a W x H 8-bit source plane (noise) and
// destination, W, H and the constant border's value (0); the grid is the pipeline's (strips of SW
// x RPI outputs, work-groups of GX x GY). Prints the registers and the mean time of REPEATS
// back-to-back launches.
// PTX_KERNEL names another kernel with the same arguments and a grid of the same shape (the median
// network's, cl/filter_median_network.cl: SW = its tile's width, RPI = twice its height).
//   nvcc -O2 -o ptx_launch ptx_launch.cpp -lcuda
//   [PTX_KERNEL=name] ptx_launch PTX W H SW RPI GX GY [REPEATS]
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* text = nullptr;
    cuGetErrorString(r, &text);
    std::fprintf(stderr, "ptx_launch: %s failed: %s\n", what, text ? text : "unknown error");
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 8) {
        std::fprintf(stderr, "usage: ptx_launch PTX W H SW RPI GX GY [REPEATS]\n");
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::fprintf(stderr, "ptx_launch: cannot read %s\n", argv[1]);
        return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string ptx = text.str();
    int w = std::atoi(argv[2]), h = std::atoi(argv[3]);
    const int sw = std::atoi(argv[4]), rpi = std::atoi(argv[5]), gx = std::atoi(argv[6]), gy = std::atoi(argv[7]);
    const int repeats = argc > 8 ? std::atoi(argv[8]) : 20;
    if (w < 1 || h < 1 || sw < 1 || rpi < 1 || gx < 1 || gy < 1 || repeats < 1) {
        std::fprintf(stderr, "ptx_launch: sizes must be positive\n");
        return 2;
    }

    check(cuInit(0), "cuInit");
    CUdevice device;
    check(cuDeviceGet(&device, 0), "cuDeviceGet");
    CUcontext context;
    check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    CUmodule module;
    check(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
    CUfunction kernel;
    const char* name = std::getenv("PTX_KERNEL");
    if (!name || !*name) name = "filter_strip";
    check(cuModuleGetFunction(&kernel, module, name), "cuModuleGetFunction");
    int registers = 0;
    check(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel), "cuFuncGetAttribute");

    const std::size_t n = static_cast<std::size_t>(w) * h;
    std::vector<unsigned char> noise(n);
    unsigned state = 1;
    for (auto& b : noise) b = static_cast<unsigned char>((state = state * 1664525u + 1013904223u) >> 24);
    CUdeviceptr src, dst;
    check(cuMemAlloc(&src, n + 16), "cuMemAlloc");  // the slack the pipeline leaves after a plane (kStripSlack)
    check(cuMemAlloc(&dst, n), "cuMemAlloc");
    check(cuMemcpyHtoD(src, noise.data(), n), "cuMemcpyHtoD");
    int outside = 0;
    void* args[] = {&src, &dst, &w, &h, &outside};
    const unsigned bx = ((w + sw - 1) / sw + gx - 1) / gx, by = ((h + rpi - 1) / rpi + gy - 1) / gy;

    check(cuLaunchKernel(kernel, bx, by, 1, gx, gy, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    CUevent start, stop;
    check(cuEventCreate(&start, 0), "cuEventCreate");
    check(cuEventCreate(&stop, 0), "cuEventCreate");
    check(cuEventRecord(start, nullptr), "cuEventRecord");
    for (int i = 0; i < repeats; ++i) check(cuLaunchKernel(kernel, bx, by, 1, gx, gy, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
    check(cuEventRecord(stop, nullptr), "cuEventRecord");
    check(cuEventSynchronize(stop), "cuEventSynchronize");
    float ms = 0;
    check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    const double perLaunch = ms / repeats;
    std::printf("%s: %d registers, %.4f ms per launch (%d back to back), %.1f GB/s (one read and one write per pixel)\n", argv[1], registers,
                perLaunch, repeats, 2.0 * n / (perLaunch * 1e6));
    return 0;
}
