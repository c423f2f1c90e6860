#include "portacl/output_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "portacl/error.hpp"

namespace portacl {

std::string temporaryPathFor(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

void discardTemporary(const std::string& path) {
    std::error_code ec;
    std::filesystem::remove(temporaryPathFor(path), ec);
}

void commitTemporary(const std::string& path) {
    std::error_code ec;
    std::filesystem::rename(temporaryPathFor(path), path, ec);
    if (ec) {
        discardTemporary(path);
        throw Error("cannot write " + path + ": " + ec.message());
    }
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write, bool binary) {
    const std::string tmp = temporaryPathFor(path);
    try {
        std::ofstream out(tmp, binary ? std::ios::binary | std::ios::trunc : std::ios::trunc);
        if (!out) throw Error("cannot create " + path + " (is the folder there and writable?)");
        write(out);
        out.flush();
        if (!out) throw Error("writing " + path + " failed (disk full?)");
    } catch (...) {
        discardTemporary(path);
        throw;
    }
    commitTemporary(path);
}

}  // namespace portacl
