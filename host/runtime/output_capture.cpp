#include "runtime/output_capture.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace portacl::detail {

OutputCapture::OutputCapture() {
    char name[] = "/tmp/portacl-build-output-XXXXXX";
    file_ = ::mkstemp(name);
    if (file_ < 0) return;
    ::unlink(name);
    std::fflush(stdout);
    std::fflush(stderr);
    for (int fd : {1, 2}) {
        saved_[fd - 1] = ::dup(fd);
        if (saved_[fd - 1] >= 0) ::dup2(file_, fd);
    }
}

OutputCapture::~OutputCapture() { finish(); }

std::string OutputCapture::finish() {
    if (done_ || file_ < 0) return "";
    done_ = true;
    std::fflush(stdout);
    std::fflush(stderr);
    for (int fd : {1, 2})
        if (saved_[fd - 1] >= 0) {
            ::dup2(saved_[fd - 1], fd);
            ::close(saved_[fd - 1]);
        }
    std::string text;
    char buf[4096];
    ::lseek(file_, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(file_, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
    ::close(file_);
    return text;
}

}  // namespace portacl::detail
