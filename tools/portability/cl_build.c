/* Compiles one OpenCL C file in this process on the first device of the first platform whose name
 * contains TEXT, and prints clBuildProgram's status and log: a reproducer for vendor compiler bugs
 * with no engine around it (docs/portability.md).
 *
 *   cc tools/portability/cl_build.c -o cl_build -lOpenCL
 *   ./cl_build "Intel(R) OpenCL" docs/portability/intel_median_crash.cl ["OPTIONS"]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PLATFORM-TEXT FILE.cl [OPTIONS]\n", argv[0]);
        return 2;
    }
    FILE* f = fopen(argv[2], "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    static char source[1 << 20];
    const size_t n = fread(source, 1, sizeof source - 1, f);
    fclose(f);
    source[n] = 0;
    cl_platform_id platforms[32];
    cl_uint count = 0;
    if (clGetPlatformIDs(32, platforms, &count) != CL_SUCCESS) count = 0;
    for (cl_uint i = 0; i < count; ++i) {
        char name[256] = "";
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        cl_device_id device;
        if (!strstr(name, argv[1]) || clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
            continue;
        cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, NULL);
        const char* text = source;
        cl_program program = clCreateProgramWithSource(context, 1, &text, NULL, NULL);
        const cl_int status = clBuildProgram(program, 1, &device, argc > 3 ? argv[3] : "", NULL, NULL);
        static char log[1 << 16];
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("%s: clBuildProgram returned %d\n%s\n", name, status, log);
        return status == CL_SUCCESS ? 0 : 1;
    }
    fprintf(stderr, "no platform with a device matches '%s'\n", argv[1]);
    return 2;
}
