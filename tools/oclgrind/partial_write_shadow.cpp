// oclgrind 21.10 forgets which bytes of a buffer are initialised when the host writes or fills part of
// it at an offset (docs/portability.md, "oclgrind"):
//
//   g++ -std=c++17 partial_write_shadow.cpp -lOpenCL -o partial_write_shadow
//   oclgrind --uninitialized ./partial_write_shadow 0   # a kernel fills the buffer: nothing reported
//   oclgrind --uninitialized ./partial_write_shadow 1   # then clEnqueueWriteBuffer of 4 bytes at 160: reported
//   oclgrind --uninitialized ./partial_write_shadow 2   # then clEnqueueFillBuffer of 4 bytes at 160: reported
//
// A kernel writes all 64 words of a buffer; the host then writes word 40; a kernel adds words 40 and 0.
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <cstdlib>
#include <iostream>
int main(int argc, char** argv) {
    const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
    cl::Context ctx(CL_DEVICE_TYPE_ALL);
    cl::CommandQueue q(ctx, ctx.getInfo<CL_CONTEXT_DEVICES>()[0]);
    cl::Program p(ctx, R"(
      __kernel void fill(__global uint* e, int n) { int g = get_global_id(0); if (g < n) e[g] = 7u; }
      __kernel void use(__global const uint* e, __global uint* out, int at) { out[0] = e[at] + e[0]; })", true);
    cl::Kernel fill(p, "fill"), use(p, "use");
    cl::Buffer b(ctx, CL_MEM_READ_WRITE, 64 * 4), out(ctx, CL_MEM_READ_WRITE, 4);
    fill.setArg(0, b); fill.setArg(1, 64);
    q.enqueueNDRangeKernel(fill, cl::NullRange, cl::NDRange(64));
    cl_uint v = 3;
    if (mode == 1) q.enqueueWriteBuffer(b, CL_TRUE, 40 * 4, 4, &v);
    if (mode == 2) q.enqueueFillBuffer(b, cl_uint(0), 40 * 4, 4);
    use.setArg(0, b); use.setArg(1, out); use.setArg(2, 40);
    q.enqueueNDRangeKernel(use, cl::NullRange, cl::NDRange(1));
    q.finish();
    std::cout << "done\n";
}
