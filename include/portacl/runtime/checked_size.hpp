// Sizes read from files and command lines, checked before anything is allocated: products in
// std::size_t that refuse to wrap, a declared size held against the bytes the file can actually
// supply, and a host allocation held against the machine's memory. Every refusal is a portacl::Error
// with one sentence that names what was being sized (`what`: "dataset 'p' in in.h5", say).
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace portacl {

// a * b; throws "<what> is too large (a x b overflows)" when the product does not fit in size_t.
PORTACL_API std::size_t checkedMul(std::size_t a, std::size_t b, const std::string& what);
// The product of `factors` (1 for none), checked at every step.
PORTACL_API std::size_t checkedProduct(std::initializer_list<std::uint64_t> factors, const std::string& what);
PORTACL_API std::size_t checkedProduct(const std::uint64_t* factors, std::size_t count, const std::string& what);
// a + b, checked.
PORTACL_API std::size_t checkedAdd(std::size_t a, std::size_t b, const std::string& what);

// The host's physical memory in bytes (sysconf), or PORTACL_MAX_HOST_BYTES when that is set lower
// (fuzzers and tests set it to keep allocations small).
PORTACL_API std::size_t hostMemoryLimit();
// Throws "<what> needs N bytes, more than this machine's M bytes of memory" before allocating.
PORTACL_API void checkHostAllocation(std::size_t bytes, const std::string& what);

// The size of the file at `path` in bytes (0 when it cannot be read).
PORTACL_API std::uint64_t fileSizeOf(const std::string& path);
// A file that declares `declaredBytes` of data but holds only `fileBytes` bytes, of which at most
// `maxRatio` : 1 can expand (1 for raw samples; deflate's limit is 1032 : 1): throws "<what>
// declares N bytes of data but the file has only M bytes" so that a few bytes of header never buy
// gigabytes of memory.
PORTACL_API void checkDeclaredSize(std::uint64_t declaredBytes, std::uint64_t fileBytes, std::uint64_t maxRatio, const std::string& what);

// The deflate stream's largest expansion (zlib's technical note: 1032 : 1).
constexpr std::uint64_t kDeflateMaxRatio = 1032;

// A number from a file or command line that must be finite and lie in [lo, hi] (NaN and infinities
// refused): throws "<what> is <value>; it must lie in [lo, hi]" (or be positive, and so on).
PORTACL_API void checkFiniteRange(double value, double lo, double hi, const std::string& what);
PORTACL_API void checkPositiveFinite(double value, const std::string& what);
PORTACL_API void checkNonNegativeFinite(double value, const std::string& what);

}  // namespace portacl
