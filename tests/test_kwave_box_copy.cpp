// The distributed transposes' pack and unpack kernels (kwave/box_copy.hpp) against the serial
// reference, exact in float and double (a copy changes no value).
#include "support/box_copy_cases.hpp"
#include "support/test_support.hpp"

using namespace portacl;

TEST(KWaveBoxCopy, MatchesTheSerialReferenceInFloat) { test::checkBoxCopies<float>(test::context()); }

TEST(KWaveBoxCopy, MatchesTheSerialReferenceInDouble) {
    if (!test::hasFp64()) GTEST_SKIP() << "the device has no fp64";
    test::checkBoxCopies<double>(test::context());
}
