// What the harnesses share: the readers take paths, so each input is written to a private file
// first; allocations are capped (PORTACL_MAX_HOST_BYTES) so that a declared size the checks let
// through shows up as a refusal, not as libFuzzer's out-of-memory report. A harness catches
// portacl::Error only: any other exception, a crash or a sanitizer report is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace portacl::fuzz {

// 256 MiB: more than any seed needs, far below libFuzzer's 2 GB RSS limit.
inline void limitHostMemory() { setenv("PORTACL_MAX_HOST_BYTES", "268435456", 1); }

// A file holding the input, removed when the harness returns.
class InputFile {
public:
    InputFile(const std::uint8_t* data, std::size_t size, const std::string& extension) {
        const char* dir = std::getenv("TMPDIR");
        path_ = std::string(dir && *dir ? dir : "/tmp") + "/portacl_fuzz_" + std::to_string(::getpid()) + extension;
        if (std::FILE* f = std::fopen(path_.c_str(), "wb")) {
            if (size) std::fwrite(data, 1, size, f);
            std::fclose(f);
        }
    }
    ~InputFile() { std::remove(path_.c_str()); }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace portacl::fuzz
