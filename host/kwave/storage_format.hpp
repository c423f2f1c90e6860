// Host-side encoding of the solver's arrays into their device storage format (element type, fp16 or
// bfloat16; see cl/common/kwave_storage.h) and back.
#pragma once

#include <cstdint>
#include <vector>

#include "portacl/runtime/precision.hpp"

namespace portacl::kwave {

enum class StorageFormat { Element = 0, Half = 1, BFloat16 = 2 };

std::size_t bytesPerElement(StorageFormat f, Precision element);
std::vector<unsigned char> encode(const std::vector<double>& values, StorageFormat f, Precision element);
std::vector<double> decode(const std::vector<unsigned char>& bytes, StorageFormat f, Precision element);

std::uint16_t floatToHalf(float v);  // round to nearest even
float halfToFloat(std::uint16_t h);
std::uint16_t floatToBFloat16(float v);  // round to nearest even
float bfloat16ToFloat(std::uint16_t b);

}  // namespace portacl::kwave
