// Where the library's messages go. The library never writes to stdout or stderr itself: what a caller
// may want to see (a device fallback, a build log asked for with PORTACL_SHOW_BUILD_LOG, phase times)
// goes to the logger the caller sets, and nowhere when none is set. Failures are exceptions.
#pragma once

#include "portacl/export.hpp"

#include <functional>
#include <string>

namespace portacl {

enum class LogLevel { Debug, Info, Warning };

using Logger = std::function<void(LogLevel level, const std::string& message)>;

// Sets the process-wide logger (an empty function silences the library, the default); returns the
// previous one. Thread-safe; the logger itself may be called from any thread.
PORTACL_API Logger setLogger(Logger logger);

// Sends one message (one or more lines, no trailing newline needed) to the logger, if any.
PORTACL_API void log(LogLevel level, const std::string& message);

}  // namespace portacl
