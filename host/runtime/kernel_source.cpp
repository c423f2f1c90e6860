#include "portacl/runtime/kernel_source.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "portacl/runtime/error.hpp"

namespace portacl {

// Defined in the file that CMake generates from cl/ (cmake/EmbedKernels.cmake).
const std::map<std::string, std::string>& embeddedKernelSources();

namespace {

std::string rawSource(const std::string& name) {
    if (const char* dir = std::getenv("PORTACL_KERNEL_DIR"); dir && *dir) {
        std::ifstream in(std::string(dir) + "/" + name);
        if (in) {
            std::stringstream ss;
            ss << in.rdbuf();
            return ss.str();
        }
    }
    const auto& all = embeddedKernelSources();
    auto it = all.find(name);
    if (it == all.end()) throw Error("kernel source cl/" + name + " does not exist");
    return it->second;
}

void expand(const std::string& name, std::set<std::string>& included, std::ostringstream& out) {
    if (!included.insert(name).second) return;  // include each header once
    std::istringstream in(rawSource(name));
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line.compare(first, 8, "#include") == 0) {
            const auto a = line.find('"'), b = line.rfind('"');
            if (a != std::string::npos && b > a) {
                expand(line.substr(a + 1, b - a - 1), included, out);
                continue;
            }
        }
        out << line << '\n';
    }
}

}  // namespace

std::string kernelSource(const std::string& name) {
    std::set<std::string> included;
    std::ostringstream out;
    expand(name, included, out);
    return out.str();
}

std::vector<std::string> embeddedKernelNames() {
    std::vector<std::string> names;
    for (const auto& kv : embeddedKernelSources()) names.push_back(kv.first);
    return names;
}

}  // namespace portacl
