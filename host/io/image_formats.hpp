// The per-format codecs behind readImage/writeImage (host/io/image_io.cpp dispatches to them). Each
// reader throws portacl::Error with one sentence naming the file; each writer writes exactly the
// path it is given (the dispatcher hands it a temporary name and renames it).
#pragma once

#include <string>

#include "portacl/io/image.hpp"

// Exported (PORTACL_API) for the fuzzers, which feed each codec alone.
namespace portacl::io::detail {

PORTACL_API Image readPng(const std::string& path);
PORTACL_API void writePng(const std::string& path, const Image& img);

PORTACL_API Image readTiff(const std::string& path);
PORTACL_API void writeTiff(const std::string& path, const Image& img);

PORTACL_API Image readBmp(const std::string& path);
PORTACL_API void writeBmp(const std::string& path, const Image& img);

PORTACL_API Image readPnm(const std::string& path);
PORTACL_API void writePnm(const std::string& path, const Image& img);

}  // namespace portacl::io::detail
