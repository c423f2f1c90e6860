// The host's side of the level-by-level order (cl/common/d8_frontier.h): wide frontiers get one launch
// per level across the device, a few levels per read of the frontier's size; narrow ones (the long
// tails of the flow paths, where a launch would occupy almost nothing) go to one work-group that runs
// level after level behind a barrier until its frontier is empty or grows wide again.
#include <algorithm>
#include <array>

#include "drainage_detail.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage::detail {
namespace {

constexpr std::size_t kWideLocal = 64;
constexpr int kLevelsPerRead = 8;       // wide launches between reads of the state (an empty level costs a launch)
constexpr std::size_t kGroupSide = 256;  // the narrow kernel's work-group where the device allows it (at most FRONTIER_MAX_GROUP)
constexpr long kGroupLimitPerItem = 4;  // a narrow level: at most this many cells per work-item, unless tuned

}  // namespace

int runFrontier(Context& ctx, cl::Kernel& wide, cl::Kernel& group, cl_uint levelArg, const cl::Buffer& state) {
    const std::size_t groupSize = std::min<std::size_t>(
        {kGroupSide, ctx.device().maxWorkGroupSize, group.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(ctx.device().device)});
    // [drainage] narrow_cells: the largest frontier the one work-group takes (a CPU's core runs through
    // a wide one sooner than the device starts a launch).
    const cl_int limit = cl_int(ctx.tuning().getInt("drainage", "narrow_cells", long(groupSize) * kGroupLimitPerItem, 1, 1L << 30));
    const std::size_t widest = std::max<std::size_t>(1, ctx.device().computeUnits) * 1024;
    std::array<cl_int, 4> s{};
    int level = 0, launches = 0;
    auto wideLevels = [&](std::size_t n, int count) {
        const cl::NDRange global(roundUp(std::min(n, widest), kWideLocal));
        for (int k = 0; k < count; ++k, ++level, ++launches) {
            setArgs(wide, levelArg, cl_int(level));
            ctx.launch(wide, global, cl::NDRange(kWideLocal));
        }
        ctx.read(state, s.data(), sizeof s, "frontier sizes");
    };
    // The sources are a large share of any terrain's cells: level 0 runs wide without a look.
    wideLevels(widest, 1);
    for (;;) {
        const cl_int n = s[std::size_t(level % 3)];
        if (n == 0) return launches;
        if (n > limit) {
            wideLevels(std::size_t(n), kLevelsPerRead);
            continue;
        }
        setArgs(group, levelArg, cl_int(level), limit);
        ctx.launch(group, cl::NDRange(groupSize), cl::NDRange(groupSize));
        ++launches;
        ctx.read(state, s.data(), sizeof s, "frontier sizes");
        level = s[3];
    }
}

}  // namespace portacl::drainage::detail
