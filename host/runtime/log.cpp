#include "portacl/runtime/log.hpp"

#include <mutex>

namespace portacl {

namespace {
std::mutex& loggerMutex() {
    static std::mutex m;
    return m;
}
Logger& currentLogger() {
    static Logger logger;
    return logger;
}
}  // namespace

Logger setLogger(Logger logger) {
    std::lock_guard<std::mutex> lock(loggerMutex());
    std::swap(currentLogger(), logger);
    return logger;
}

void log(LogLevel level, const std::string& message) {
    Logger logger;
    {
        std::lock_guard<std::mutex> lock(loggerMutex());
        logger = currentLogger();
    }
    if (logger) logger(level, message);
}

}  // namespace portacl
