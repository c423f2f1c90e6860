// The numbers of the diagram's text files: "%d" and "%.15f" as printf writes them in the "C" locale,
// written into a character buffer. A batch of thousands of frames spends much of its host time here.
#pragma once

#include <cstddef>

namespace portacl::voronoi {

// Each writes at `at` and returns the end of what it wrote.
constexpr std::size_t kIntChars = 11;        // "-2147483648"
constexpr std::size_t kFixed15Chars = 330;   // "-" + 309 whole digits + "." + 15 decimals, and room
char* writeInt(char* at, int v);
// printf's "%.15f": the double's exact binary value rounded to 15 decimals, halves to even.
char* writeFixed15(char* at, double v);

}  // namespace portacl::voronoi
