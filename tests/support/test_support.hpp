// What every suite shares: the device the tests run on (PORTACL_TEST_DEVICE, else PORTACL_DEVICE,
// else "auto": the PoCL CPU device in CI) and the path of the shared test data.
#pragma once

#include <string>

#include "portacl/context.hpp"

namespace portacl::test {

// One context per test program, built on first use.
Context& context();
// ../shared/data/<relative>
std::string dataPath(const std::string& relative);
// True when the test device supports double precision (tests of double skip otherwise, saying so).
bool hasFp64();
// Mesa's rusticl device (llvmpipe: no fp64), or nullptr when it is not installed. Rusticl lists it only
// with RUSTICL_ENABLE=llvmpipe set before the process's first OpenCL call (a suite that wants it sets
// the variable in a static initializer).
Context* rusticlContext();

}  // namespace portacl::test
