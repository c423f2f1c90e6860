// The per-format codecs behind readImage/writeImage (host/io/image_io.cpp dispatches to them). Each
// reader throws portacl::Error with one sentence naming the file; each writer writes exactly the
// path it is given (the dispatcher hands it a temporary name and renames it).
#pragma once

#include <string>

#include "portacl/io/image.hpp"

namespace portacl::io::detail {

Image readPng(const std::string& path);
void writePng(const std::string& path, const Image& img);

Image readTiff(const std::string& path);
void writeTiff(const std::string& path, const Image& img);

Image readBmp(const std::string& path);
void writeBmp(const std::string& path, const Image& img);

Image readPnm(const std::string& path);
void writePnm(const std::string& path, const Image& img);

}  // namespace portacl::io::detail
