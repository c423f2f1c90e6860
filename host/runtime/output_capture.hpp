// Captures what a vendor's compiler writes straight to the process's stdout and stderr while a kernel
// builds (PoCL's clang prints "N warnings generated." there), so that it never lands in the middle of
// a caller's output. The text is kept, and the build log that PORTACL_SHOW_BUILD_LOG sends to the
// logger includes it. File descriptors are process-wide: other threads' output written during the
// capture is captured too, so the capture spans the compiler call alone.
#pragma once

#include <string>

namespace portacl::detail {

class OutputCapture {
public:
    OutputCapture();   // redirects fds 1 and 2 to a temporary file (does nothing if that fails)
    ~OutputCapture();  // restores them
    OutputCapture(const OutputCapture&) = delete;
    OutputCapture& operator=(const OutputCapture&) = delete;
    // Restores the descriptors and returns what was written meanwhile.
    std::string finish();

private:
    int saved_[2] = {-1, -1};
    int file_ = -1;
    bool done_ = false;
};

}  // namespace portacl::detail
