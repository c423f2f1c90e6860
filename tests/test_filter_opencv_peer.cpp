// The CPU peer `portacl bench` times beside the filters on CPU devices (apps/opencv_peer/opencv_calls.hpp):
// each OpenCV call it makes computes the same filter as the bench's operation, within one grey level
// of the serial reference (OpenCV rounds its fixed point and float sums its own way), the Gaussian
// exactly (OpenCV's bit-exact integers, the reference's too), on an image of odd sides. Skipped where
// the build has no OpenCV.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "opencv_peer/opencv_calls.hpp"
#include "portacl/filter.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

io::Image noise(int w, int h, unsigned seed) {
    io::Image img = io::makeImage(w, h, 1, io::PixelType::U8);
    std::mt19937 rng(seed);
    for (auto& v : img.data) v = static_cast<unsigned char>(rng() % 256);
    return img;
}

void expectWithinOne(const std::string& spec, const io::Image& img, Border b) {
    Options o;
    o.border = b;
    const io::Image want = filterReference(img, {parseOperation(spec)}, o), got = openCvPeerApply(spec, img, b);
    int worst = 0;
    for (std::size_t i = 0; i < want.data.size(); ++i) worst = std::max(worst, std::abs(int(want.data[i]) - int(got.data[i])));
    EXPECT_LE(worst, spec.rfind("gaussian", 0) == 0 ? 0 : 1) << spec << " border " << borderName(b);
}

}  // namespace

TEST(FilterOpenCvPeer, EveryBenchCallComputesTheOperation) {
    if (openCvPeerVersion().empty()) GTEST_SKIP() << "this build has no OpenCV";
    const io::Image img = noise(97, 61, 3);
    for (const char* spec : {"box:3", "box:9", "conv:1,3,5,2,4;4,1,3,5,2;2,4,1,3,5;5,2,4,1,3;3,5,2,4,1:sum", "conv:1,1,1,1,1,1,1,1,1:sum",
                             "conv:1;8;28;56;70;56;28;8;1:sum", "sobel", "scharr", "gaussian:9:2.0", "laplace:4:3"})
        for (Border b : {Border::Reflect101, Border::Replicate}) {
            ASSERT_TRUE(openCvPeerHas(spec)) << spec;
            expectWithinOne(spec, img, b);
        }
    // medianBlur always replicates the edge.
    for (const char* spec : {"median:3", "median:5", "median:9"}) expectWithinOne(spec, img, Border::Replicate);
    EXPECT_FALSE(openCvPeerHas("rotating:3"));
    EXPECT_FALSE(openCvPeerHas("no-such-operation"));
}
