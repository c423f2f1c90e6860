#include "storage_format.hpp"

#include <cmath>
#include <cstring>

namespace portacl::kwave {

std::uint16_t floatToHalf(float v) {
    std::uint32_t f;
    std::memcpy(&f, &v, 4);
    const std::uint32_t sign = (f >> 16) & 0x8000u;
    const std::uint32_t absf = f & 0x7FFFFFFFu;
    if (absf >= 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7C00u | (absf > 0x7F800000u ? 0x200u : 0u));
    if (absf >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds past 65504: infinity
    if (absf < 0x38800000u) {
        // Subnormal half (or zero): scale into the 10-bit mantissa with round to nearest even.
        float a;
        std::memcpy(&a, &absf, 4);
        const float scaled = a * 16777216.0f;  // 2^24: one half-subnormal ulp becomes 1
        const float r = std::nearbyint(scaled);
        return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(r));
    }
    const std::uint32_t mant = absf & 0x7FFFFFu;
    const std::uint32_t exp = (absf >> 23) - 127 + 15;
    std::uint32_t h = (exp << 10) | (mant >> 13);
    const std::uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carries into the exponent correctly
    return static_cast<std::uint16_t>(sign | h);
}

float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = (h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu;
    const std::uint32_t mant = h & 0x3FFu;
    float out;
    if (exp == 0) {
        out = std::ldexp(static_cast<float>(mant), -24);
        if (sign) out = -out;
        return out;
    }
    std::uint32_t f = exp == 31 ? (sign | 0x7F800000u | (mant << 13)) : (sign | ((exp - 15 + 127) << 23) | (mant << 13));
    std::memcpy(&out, &f, 4);
    return out;
}

std::uint16_t floatToBFloat16(float v) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<std::uint16_t>(u >> 16);
}

float bfloat16ToFloat(std::uint16_t b) {
    const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

std::size_t bytesPerElement(StorageFormat f, Precision element) {
    if (f != StorageFormat::Element) return 2;
    return element == Precision::Double ? 8 : 4;
}

std::vector<unsigned char> encode(const std::vector<double>& values, StorageFormat f, Precision element) {
    const std::size_t b = bytesPerElement(f, element);
    std::vector<unsigned char> out(values.size() * b);
    for (std::size_t i = 0; i < values.size(); ++i) {
        unsigned char* dst = out.data() + i * b;
        if (f == StorageFormat::Element && element == Precision::Double) {
            std::memcpy(dst, &values[i], 8);
        } else if (f == StorageFormat::Element) {
            const float x = static_cast<float>(values[i]);
            std::memcpy(dst, &x, 4);
        } else {
            const std::uint16_t h = f == StorageFormat::Half ? floatToHalf(static_cast<float>(values[i]))
                                                             : floatToBFloat16(static_cast<float>(values[i]));
            std::memcpy(dst, &h, 2);
        }
    }
    return out;
}

std::vector<double> decode(const std::vector<unsigned char>& bytes, StorageFormat f, Precision element) {
    const std::size_t b = bytesPerElement(f, element);
    std::vector<double> out(bytes.size() / b);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const unsigned char* src = bytes.data() + i * b;
        if (f == StorageFormat::Element && element == Precision::Double) {
            std::memcpy(&out[i], src, 8);
        } else if (f == StorageFormat::Element) {
            float x;
            std::memcpy(&x, src, 4);
            out[i] = x;
        } else {
            std::uint16_t h;
            std::memcpy(&h, src, 2);
            out[i] = f == StorageFormat::Half ? halfToFloat(h) : bfloat16ToFloat(h);
        }
    }
    return out;
}

}  // namespace portacl::kwave
