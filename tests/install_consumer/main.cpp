// Adds two vectors on the default device through the installed library; exits 0 when the result
// equals the serial reference.
#include <portacl/vector_ops.hpp>

int main() {
    portacl::Context ctx(portacl::selectDevice(""));
    const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
    return portacl::vectorSum(ctx, a, b) == portacl::vectorSumReference(a, b) ? 0 : 1;
}
