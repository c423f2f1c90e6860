#include "profile_keys.hpp"

#include "portacl/runtime/error.hpp"

namespace portacl::kwave {

long profileKey(const Context& ctx, const RunOptions& options, const std::string& name, long fallback, long lo, long hi) {
    const auto it = options.profileKeys.find(name);
    if (it == options.profileKeys.end()) return ctx.tuning().getInt("kwave", name, fallback, lo, hi);
    if (it->second < lo || it->second > hi)
        throw Error("the k-Wave solver's [kwave] " + name + " must lie in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], not " + std::to_string(it->second));
    return it->second;
}

}  // namespace portacl::kwave
