#include "portacl/runtime/checked_size.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "portacl/runtime/error.hpp"

namespace portacl {

namespace {

std::string number(double v) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
}

}  // namespace

std::size_t checkedMul(std::size_t a, std::size_t b, const std::string& what) {
    std::size_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw Error(what + " is too large (" + std::to_string(a) + " x " + std::to_string(b) + " overflows).");
    return r;
}

std::size_t checkedAdd(std::size_t a, std::size_t b, const std::string& what) {
    std::size_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        throw Error(what + " is too large (" + std::to_string(a) + " + " + std::to_string(b) + " overflows).");
    return r;
}

std::size_t checkedProduct(const std::uint64_t* factors, std::size_t count, const std::string& what) {
    std::size_t p = 1;
    for (std::size_t i = 0; i < count; ++i) {
        if (factors[i] > std::numeric_limits<std::size_t>::max())
            throw Error(what + " is too large (" + std::to_string(factors[i]) + " does not fit in memory).");
        p = checkedMul(p, static_cast<std::size_t>(factors[i]), what);
    }
    return p;
}

std::size_t checkedProduct(std::initializer_list<std::uint64_t> factors, const std::string& what) {
    return checkedProduct(factors.begin(), factors.size(), what);
}

std::size_t hostMemoryLimit() {
    // The physical memory does not change while the process runs; sysconf asks the kernel (a
    // sysinfo call) every time, which every small workload call would pay.
    static const std::size_t physical = [] {
        const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
        return pages > 0 && pageSize > 0 ? std::size_t(pages) * std::size_t(pageSize) : std::size_t(1) << 40;
    }();
    std::size_t limit = physical;
    if (const char* env = std::getenv("PORTACL_MAX_HOST_BYTES")) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(env, &end, 10);
        if (end != env && *end == '\0' && v > 0 && v < limit) limit = static_cast<std::size_t>(v);
    }
    return limit;
}

void checkHostAllocation(std::size_t bytes, const std::string& what) {
    const std::size_t limit = hostMemoryLimit();
    if (bytes > limit)
        throw Error(what + " needs " + std::to_string(bytes) + " bytes, more than this machine's " + std::to_string(limit) +
                    " bytes of memory.");
}

std::uint64_t fileSizeOf(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || st.st_size < 0) return 0;
    return static_cast<std::uint64_t>(st.st_size);
}

void checkDeclaredSize(std::uint64_t declaredBytes, std::uint64_t fileBytes, std::uint64_t maxRatio, const std::string& what) {
    std::uint64_t supply = 0;
    if (__builtin_mul_overflow(fileBytes, maxRatio, &supply)) supply = std::numeric_limits<std::uint64_t>::max();
    if (declaredBytes > supply)
        throw Error(what + " declares " + std::to_string(declaredBytes) + " bytes of data but the file has only " +
                    std::to_string(fileBytes) + " bytes" +
                    (maxRatio > 1 ? " (at most " + std::to_string(maxRatio) + " : 1 compressed)" : std::string()) + ".");
    checkHostAllocation(static_cast<std::size_t>(declaredBytes), what);
}

void checkFiniteRange(double value, double lo, double hi, const std::string& what) {
    if (!std::isfinite(value) || value < lo || value > hi)
        throw Error(what + " is " + number(value) + "; it must be a finite number in [" + number(lo) + ", " + number(hi) + "].");
}

void checkPositiveFinite(double value, const std::string& what) {
    if (!std::isfinite(value) || !(value > 0)) throw Error(what + " is " + number(value) + "; it must be a positive finite number.");
}

void checkNonNegativeFinite(double value, const std::string& what) {
    if (!std::isfinite(value) || value < 0) throw Error(what + " is " + number(value) + "; it must be a finite number, zero or more.");
}

}  // namespace portacl
