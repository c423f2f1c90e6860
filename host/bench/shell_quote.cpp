// shellQuote (portacl/bench.hpp): single quotes around the text, each quote inside written as '\''.
#include "portacl/bench.hpp"

namespace portacl {

std::string shellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace portacl
