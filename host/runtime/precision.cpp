#include "portacl/runtime/precision.hpp"

#include "portacl/runtime/error.hpp"

namespace portacl {

Precision parsePrecision(const std::string& text) {
    if (text == "float" || text == "single" || text == "fp32") return Precision::Float;
    if (text == "double" || text == "fp64") return Precision::Double;
    if (text == "mixed") return Precision::Mixed;
    throw Error("unknown precision '" + text + "'; use float, double or mixed");
}

const char* precisionName(Precision p) {
    switch (p) {
        case Precision::Float: return "float";
        case Precision::Double: return "double";
        case Precision::Mixed: return "mixed";
    }
    return "?";
}

const char* realTypeName(Precision p) {
    if (p == Precision::Mixed) throw Error("mixed precision is a dispatch mode, not an element type");
    return p == Precision::Double ? "double" : "float";
}

}  // namespace portacl
