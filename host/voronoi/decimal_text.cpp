#include "voronoi/decimal_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace portacl::voronoi {

char* writeInt(char* at, int v) { return std::to_chars(at, at + kIntChars, v).ptr; }

char* writeFixed15(char* at, double v) {
    const double a = std::fabs(v);
    if (!(a < 9007199254740992.0)) {
        // 2^53 and above, infinities and NaN: std::to_chars (printf's bytes, slower: Ryu's tables).
        return std::to_chars(at, at + kFixed15Chars, v, std::chars_format::fixed, 15).ptr;
    }
    // Below 2^53 the whole part and the fraction are exact doubles; the fraction is m 2^e (m < 2^53,
    // e <= -53), so fraction x 10^15 = m 5^15 / 2^s with s = -(e + 15) >= 38, and m 5^15 < 2^88:
    // one 128-bit product and shift, rounded half to even.
    std::uint64_t whole = static_cast<std::uint64_t>(a);
    const double fraction = a - static_cast<double>(whole);
    std::uint64_t bits;
    std::memcpy(&bits, &fraction, sizeof bits);
    const int biased = static_cast<int>(bits >> 52);  // the sign bit is clear
    const std::uint64_t m = (bits & ((std::uint64_t(1) << 52) - 1)) | (biased ? std::uint64_t(1) << 52 : 0);
    const int s = -((biased ? biased : 1) - 1075 + 15);
    std::uint64_t decimals = 0;
    if (m != 0 && s < 128) {  // s >= 128: below 2^-40 x 10^-15, which rounds to 0
        using u128 = unsigned __int128;
        const u128 p = static_cast<u128>(m) * 30517578125u;  // 5^15
        if (s < 64) {
            // A fraction of 2^-26 or more (coordinates, radii): the same in 64-bit halves, since the
            // remainder fits in the low half (s >= 38, so the high half's shift is 1 to 26 bits).
            const std::uint64_t lo = static_cast<std::uint64_t>(p), hi = static_cast<std::uint64_t>(p >> 64);
            const std::uint64_t q = hi << (64 - s) | lo >> s, rest = lo & ((std::uint64_t(1) << s) - 1),
                                half = std::uint64_t(1) << (s - 1);
            decimals = q + (rest > half || (rest == half && (q & 1)));
        } else {
            const u128 q = p >> s, rest = p - (q << s), half = static_cast<u128>(1) << (s - 1);
            decimals = static_cast<std::uint64_t>(q) + (rest > half || (rest == half && (q & 1)));
        }
        if (decimals == 1000000000000000u) decimals = 0, ++whole;
    }
    static constexpr char kPairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    // Written in place: the sign, the whole part (its digits counted first), the point, the 15 decimals.
    char* p = at;
    if (std::signbit(v)) *p++ = '-';
    int wholeDigits = 1;
    for (std::uint64_t w = whole; w >= 10; w /= 10) ++wholeDigits;
    char* const point = p + wholeDigits;
    char* q = point;
    do *--q = static_cast<char>('0' + whole % 10), whole /= 10;
    while (whole > 0);
    *point = '.';
    char* const end = point + 16;
    // The decimals in groups (3, 4, 4, 4 digits: short chains of divisions, not one of seven).
    const std::uint32_t lo = static_cast<std::uint32_t>(decimals % 100000000u), hi = static_cast<std::uint32_t>(decimals / 100000000u);
    const std::uint32_t g0 = hi / 10000, g1 = hi % 10000, g2 = lo / 10000, g3 = lo % 10000;
    const auto four = [&](char* at4, std::uint32_t x) {
        std::memcpy(at4, kPairs + 2 * (x / 100), 2);
        std::memcpy(at4 + 2, kPairs + 2 * (x % 100), 2);
    };
    char* const d = point + 1;
    d[0] = static_cast<char>('0' + g0 / 100);
    std::memcpy(d + 1, kPairs + 2 * (g0 % 100), 2);
    four(d + 3, g1), four(d + 7, g2), four(d + 11, g3);
    return end;
}

}  // namespace portacl::voronoi
