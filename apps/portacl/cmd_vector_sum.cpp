// portacl vector-sum: the lecture's first example, c = a + b on the device, checked against the
// serial reference.
#include <iostream>
#include <random>

#include "command.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/vector_ops.hpp"

namespace portacl::cli {
namespace {

template <typename T>
int sumAndCheck(Context& ctx, std::size_t n) {
    std::mt19937 gen(42);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<T> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = static_cast<T>(dist(gen));
        b[i] = static_cast<T>(dist(gen));
    }
    const auto c = vectorSum(ctx, a, b);
    const bool same = c == vectorSumReference(a, b);
    std::cout << "vector sum of " << n << " " << precisionName(precisionOf<T>()) << " elements on "
              << ctx.device().label() << ": " << (same ? "equals" : "DIFFERS FROM") << " the serial reference\n";
    return same ? 0 : 1;
}

int runVectorSum(const std::vector<std::string>& args) {
    po::options_description desc("portacl vector-sum options");
    CommonOptions common;
    common.add(desc);
    std::size_t n = 1 << 20;
    desc.add_options()("size,n", po::value(&n)->default_value(n), "number of elements");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm, "usage: portacl vector-sum [--size N] [--precision float|double]", common.help))
        return 0;
    const Precision p = common.parsedPrecision();
    if (p == Precision::Mixed) throw Error("the vector sum has no mixed mode; use float or double");
    Context ctx(selectDevice(common.device), common.contextOptions());
    const int rc = p == Precision::Double ? sumAndCheck<double>(ctx, n) : sumAndCheck<float>(ctx, n);
    printProfile(ctx, common);
    return rc;
}

}  // namespace

PORTACL_COMMAND("vector-sum", "c = a + b on the device, checked against the serial reference", runVectorSum);

}  // namespace portacl::cli
