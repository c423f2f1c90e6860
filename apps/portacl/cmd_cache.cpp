// portacl cache: where the compiled-program cache lives, and clearing it.
#include <iostream>

#include "command.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/program_cache.hpp"

namespace portacl::cli {
namespace {

int runCache(const std::vector<std::string>& args) {
    po::options_description desc("portacl cache options");
    bool help = false;
    std::string action;
    desc.add_options()("help,h", po::bool_switch(&help), "show this help")("action", po::value(&action), "clear or dir");
    po::positional_options_description pos;
    pos.add("action", 1);
    po::variables_map vm;
    if (!parseArgs(args, desc, pos, vm,
                   "usage: portacl cache clear   (remove every cached program binary)\n"
                   "       portacl cache dir     (print the cache folder; PORTACL_CACHE_DIR sets it)",
                   help))
        return 0;
    if (action == "clear") {
        const std::size_t n = ProgramCache::clear();
        std::cout << "removed " << n << " cached program" << (n == 1 ? "" : "s") << " from " << ProgramCache::directory() << "\n";
        return 0;
    }
    if (action == "dir") {
        std::cout << ProgramCache::directory() << "\n";
        return 0;
    }
    if (action.empty()) throw Error("give an action: clear or dir");
    throw Error("unknown action '" + action + "'; the actions are clear and dir");
}

}  // namespace

PORTACL_COMMAND("cache", "the on-disk cache of compiled kernels: 'clear' or 'dir'", runCache);

}  // namespace portacl::cli
