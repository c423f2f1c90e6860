#include "portacl/runtime/buffer_check.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/vector_ops.hpp"

namespace portacl {

void vectorSum(Context& ctx, Precision element, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
               std::size_t n) {
    requireElements(a, n, element, "buffer a of vectorSum");
    requireElements(b, n, element, "buffer b of vectorSum");
    requireElements(c, n, element, "buffer c of vectorSum");
    cl::Kernel k = ctx.kernel("vector_ops.cl", "vector_sum", element);
    setArg(k, 0, a);
    setArg(k, 1, b);
    setArg(k, 2, c);
    setArg(k, 3, static_cast<cl_ulong>(n));
    const std::size_t wg = static_cast<std::size_t>(ctx.tuning().getInt("vector", "work_group", 256, 1, 1L << 16));
    const std::size_t width = element == Precision::Double ? 2 : 4;  // VECTOR_SUM_WIDTH of the kernel
    if (n) ctx.launch(k, cl::NDRange((n + width - 1) / width), cl::NDRange(std::min(wg, ctx.device().maxWorkGroupSize)));
}

template <typename T>
std::vector<T> vectorSum(Context& ctx, const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size())
        throw Error("vector sum needs two vectors of the same length, got " + std::to_string(a.size()) + " and " +
                    std::to_string(b.size()));
    ctx.checkFits(3 * a.size() * sizeof(T), "the vector sum of " + std::to_string(a.size()) + " elements");
    cl::Buffer da = ctx.upload(a, "a", CL_MEM_READ_ONLY);
    cl::Buffer db = ctx.upload(b, "b", CL_MEM_READ_ONLY);
    cl::Buffer dc = ctx.buffer(a.size() * sizeof(T), "c", CL_MEM_WRITE_ONLY);
    vectorSum(ctx, precisionOf<T>(), da, db, dc, a.size());
    return ctx.download<T>(dc, a.size(), "c");
}

template <typename T>
std::vector<T> vectorSumReference(const std::vector<T>& a, const std::vector<T>& b) {
    std::vector<T> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
    return c;
}

template std::vector<float> vectorSum(Context&, const std::vector<float>&, const std::vector<float>&);
template std::vector<double> vectorSum(Context&, const std::vector<double>&, const std::vector<double>&);
template std::vector<float> vectorSumReference(const std::vector<float>&, const std::vector<float>&);
template std::vector<double> vectorSumReference(const std::vector<double>&, const std::vector<double>&);

}  // namespace portacl
