// oclgrind 21.10 reports bytes of a new buffer as uninitialised when the buffer takes the place of a
// smaller released one, however they were written (docs/portability.md, "oclgrind"):
//
//   g++ -std=c++17 released_buffer_shadow.cpp -lOpenCL -o released_buffer_shadow
//   oclgrind --uninitialized ./released_buffer_shadow 36 120 0   # reports words 36 .. 119
//   oclgrind --uninitialized ./released_buffer_shadow 36 120 1   # the first buffer kept: nothing
//
// A buffer of FIRST words is filled and released; a buffer of 2 x SECOND words is then created, a
// kernel writes its first SECOND words and a second kernel copies them into the other half.
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: released_buffer_shadow FIRST SECOND KEEP_FIRST\n";
        return 2;
    }
    const int first = std::atoi(argv[1]), second = std::atoi(argv[2]);
    const bool keepFirst = std::atoi(argv[3]) != 0;
    cl::Context context(CL_DEVICE_TYPE_ALL);
    cl::CommandQueue queue(context, context.getInfo<CL_CONTEXT_DEVICES>()[0]);
    cl::Program program(context, R"(
        __kernel void fill(__global uint* e, int n) { int i = get_global_id(0); if (i < n) e[i] = 7u; }
        __kernel void copy(__global uint* e, int n) { int i = get_global_id(0); if (i < n) e[n + i] = e[i]; })",
                        true);
    cl::Kernel fill(program, "fill"), copy(program, "copy");
    cl::Buffer kept;
    {
        cl::Buffer a(context, CL_MEM_READ_WRITE, first * sizeof(cl_uint));
        fill.setArg(0, a);
        fill.setArg(1, first);
        queue.enqueueNDRangeKernel(fill, cl::NullRange, cl::NDRange(first));
        queue.finish();
        if (keepFirst) kept = a;
    }
    cl::Buffer b(context, CL_MEM_READ_WRITE, 2 * second * sizeof(cl_uint));
    fill.setArg(0, b);
    fill.setArg(1, second);
    queue.enqueueNDRangeKernel(fill, cl::NullRange, cl::NDRange(second));
    copy.setArg(0, b);
    copy.setArg(1, second);
    queue.enqueueNDRangeKernel(copy, cl::NullRange, cl::NDRange(second));
    queue.finish();
    std::cout << "done\n";
    return 0;
}
