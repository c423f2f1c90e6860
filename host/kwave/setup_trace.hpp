// PORTACL_KWAVE_SETUP_TRACE=1: each part of a k-Wave solver's set-up on stderr as it starts, with the
// MPI rank and the seconds since the first such line, so that a set-up that takes minutes (a 1024^3
// grid) shows where it is and which rank holds the others back.
#pragma once

#include <string>

namespace portacl::kwave {

void traceSetup(const std::string& part);

}  // namespace portacl::kwave
