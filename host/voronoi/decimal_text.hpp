// The numbers of the diagram's text files: "%d" and "%.15f" as printf writes them in the "C" locale,
// appended to a string. A batch of thousands of frames spends much of its host time here.
#pragma once

#include <string>

namespace portacl::voronoi {

void appendInt(std::string& out, int v);
// printf's "%.15f": the double's exact binary value rounded to 15 decimals, halves to even.
void appendFixed15(std::string& out, double v);

}  // namespace portacl::voronoi
