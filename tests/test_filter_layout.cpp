// The GPU work layout of the tile kernels (32x8 work-groups, 4 outputs per work-item, partial tiles
// at every edge) run on the test device through a tuning profile of this test's own, held to the
// serial reference: CI has no GPU, and the default CPU layout (16x16, one output per item) is
// covered by test_filter. The profile turns the register path of 8-bit planes off (strip = 0), so
// that the tile kernels keep their 8-bit coverage (tests/test_filter_strip.cpp covers that path).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "portacl/filter.hpp"
#include "support/test_support.hpp"

using namespace portacl;
using namespace portacl::filter;

namespace {

// Installs the profile before the test context exists (the first test::context() call).
class LayoutProfile : public testing::Environment {
public:
    void SetUp() override {
        dir_ = testing::TempDir() + "portacl_filter_layout_" + std::to_string(::getpid());
        ::mkdir(dir_.c_str(), 0700);
        // Matched on every fact of the test device, so that it is more specific than any shipped profile.
        const char* spec = std::getenv("PORTACL_TEST_DEVICE");
        const DeviceInfo d = selectDevice(spec ? spec : "");
        std::ofstream(dir_ + "/filter-gpu-layout.profile") << "[match]\nplatform = " << d.platformName << "\nvendor = " << d.vendor
                                                           << "\ndevice = " << d.name << "\ntype = " << d.type << "\n"
                                                           << "[build]\noptions = -cl-mad-enable\n"
                                                           << "[filter]\ntile_x = 32\ntile_y = 8\npixels_per_item = 4\nfused_separable = 1\nstrip = 0\n";
        ::setenv("PORTACL_PLATFORMS_DIR", dir_.c_str(), 1);
    }
    void TearDown() override {
        std::remove((dir_ + "/filter-gpu-layout.profile").c_str());
        ::rmdir(dir_.c_str());
    }

private:
    std::string dir_;
};
const auto* const kEnv = testing::AddGlobalTestEnvironment(new LayoutProfile);

io::Image image(int w, int h, int channels) {
    io::Image img = io::makeImage(w, h, channels, io::PixelType::U8);
    for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = static_cast<unsigned char>((i * 2654435761u) >> 11);
    return img;
}

}  // namespace

TEST(FilterLayout, FourOutputsPerItemEqualReference) {
    ASSERT_EQ(test::context().tuning().name, "filter-gpu-layout") << "the layout profile was not picked";
    // 131 = 32*4 + 3 columns: the last column of work-groups almost empty; 19 rows: a partial row of
    // groups (4 outputs per item, one below the other: 32 rows per group).
    const io::Image img = image(131, 19, 3);
    for (const std::string s : {"box:3", "box:9", "conv:1,2,0;-1,3,1;2,0,1", "gaussian:9:2.0", "median:3", "median:5", "median:7", "sobel", "rotating:3", "rotating:5", "rotating:7",
                                "threshold:5:10", "compass:kirsch", "laplace:8:5"}) {
        const std::vector<Operation> ops{parseOperation(s)};
        Options o;
        o.border = Border::Reflect;
        Pipeline p(test::context(), ops, o);
        EXPECT_EQ(p.run(img).data, filterReference(img, ops, o).data) << s;
    }
}

// A larger image: work-groups inside it load their tiles without border rules; the others with
// them, for each border mode. Odd rows per group's last item exercise the paired median's edge.
TEST(FilterLayout, InteriorAndEdgeGroupsEqualReference) {
    ASSERT_EQ(test::context().tuning().name, "filter-gpu-layout") << "the layout profile was not picked";
    const io::Image img = image(150, 101, 1);
    for (const Border b : {Border::Constant, Border::Replicate, Border::Wrap}) {
        for (const std::string s : {"box:9", "median:3", "median:5", "sobel", "conv:1,2,0;-1,3,1;2,0,1", "rotating:5"}) {
            const std::vector<Operation> ops{parseOperation(s)};
            Options o;
            o.border = b;
            o.borderValue = 77;
            Pipeline p(test::context(), ops, o);
            EXPECT_EQ(p.run(img).data, filterReference(img, ops, o).data) << s << " border " << static_cast<int>(b);
        }
    }
}
