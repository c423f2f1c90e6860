#include "portacl/runtime/data_dir.hpp"

#include <cstdlib>
#include <filesystem>

namespace portacl {

namespace {
namespace fs = std::filesystem;

// The source tree's sibling, as compiled in (CMake sets PORTACL_SOURCE_DATA_DIR for this file alone).
#ifndef PORTACL_SOURCE_DATA_DIR
#define PORTACL_SOURCE_DATA_DIR ""
#endif

bool isDataDir(const fs::path& p) {
    std::error_code ec;
    return !p.empty() && fs::is_directory(p, ec);
}
}  // namespace

std::string dataDirectory() {
    if (const char* env = std::getenv("PORTACL_DATA_DIR"); env && *env) return isDataDir(env) ? std::string(env) : "";
    std::error_code ec;
    const fs::path source = PORTACL_SOURCE_DATA_DIR;
    if (isDataDir(source)) return fs::weakly_canonical(source, ec).string();
    for (const char* d : {"shared/data", "../shared/data"})
        if (isDataDir(d)) return fs::absolute(d, ec).string();
    return "";
}

std::string dataDirectoryHint() {
    if (const char* env = std::getenv("PORTACL_DATA_DIR"); env && *env)
        return std::string("PORTACL_DATA_DIR is ") + env + ", which is not a folder; point it at the shared data (the folder holding MANIFEST.md)";
    std::string where = "shared/data or ../shared/data from the working directory";
    if (*PORTACL_SOURCE_DATA_DIR) where = std::string(PORTACL_SOURCE_DATA_DIR) + ", " + where;
    return "the shared data (the folder holding MANIFEST.md) is not in " + where +
           "; set PORTACL_DATA_DIR to its folder or put it beside the source tree";
}

}  // namespace portacl
