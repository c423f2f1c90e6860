// What every suite shares: the device the tests run on (PORTACL_TEST_DEVICE, else PORTACL_DEVICE,
// else "auto": the PoCL CPU device in CI) and the path of the shared test data (found by the rule of
// include/portacl/runtime/data_dir.hpp; a test that needs it starts with PORTACL_REQUIRE_DATA(), which skips
// it, saying where to put the data, when the data is absent).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "portacl/runtime/context.hpp"

namespace portacl::test {

// One context per test program, built on first use.
Context& context();
// <data folder>/<relative>
std::string dataPath(const std::string& relative);
// True when the shared data folder was found.
bool hasData();
// The sentence a test that needs the data skips with.
std::string missingDataSentence();
// True when the test device supports double precision (tests of double skip otherwise, saying so).
bool hasFp64();
// Mesa's rusticl device (llvmpipe: no fp64), or nullptr when it is not installed. Rusticl lists it only
// with RUSTICL_ENABLE=llvmpipe set before the process's first OpenCL call (a suite that wants it sets
// the variable in a static initializer).
Context* rusticlContext();

// Whether the test device is Mesa's rusticl, whose known faults some tests pass over (docs/portability.md).
bool testDeviceIsRusticl();

}  // namespace portacl::test

// Skips the current test, with where the data belongs, when the shared data is absent.
#define PORTACL_REQUIRE_DATA() \
    do { \
        if (!::portacl::test::hasData()) GTEST_SKIP() << ::portacl::test::missingDataSentence(); \
    } while (0)
