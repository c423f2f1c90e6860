// The OpenCL C sources in cl/, embedded into the library at build time. PORTACL_KERNEL_DIR makes the
// engine read them from that folder instead, for quick iteration without rebuilding.
#pragma once

#include "portacl/export.hpp"

#include <string>
#include <vector>

namespace portacl {

// The text of cl/<name> with every `#include "x"` line replaced by cl/x (recursively), so that the
// final text is self-contained: it is what the compiler sees and what the binary cache hashes.
// Throws portacl::Error when the file does not exist.
PORTACL_API std::string kernelSource(const std::string& name);

// Names of every embedded source ("vector_ops.cl", "common/real.h", ...).
PORTACL_API std::vector<std::string> embeddedKernelNames();

}  // namespace portacl
