#include "portacl/runtime/buffer_check.hpp"

#include "portacl/runtime/error.hpp"

namespace portacl {

void requireElements(const cl::Buffer& buffer, std::size_t elements, Precision element, const std::string& what) {
    const std::size_t size = element == Precision::Float ? sizeof(float) : sizeof(double);
    const std::size_t held = clCall("clGetMemObjectInfo", [&] { return buffer.getInfo<CL_MEM_SIZE>(); });
    if (elements > held / size)
        throw Error(what + " holds " + std::to_string(held) + " bytes, fewer than the " + std::to_string(elements) + " " +
                    precisionName(element == Precision::Float ? Precision::Float : Precision::Double) + " elements (" +
                    std::to_string(elements * size) + " bytes) it must hold; do its elements have another precision?");
}

void requireBytes(const cl::Buffer& buffer, std::size_t bytes, const std::string& contents, const std::string& what) {
    const std::size_t held = clCall("clGetMemObjectInfo", [&] { return buffer.getInfo<CL_MEM_SIZE>(); });
    if (bytes > held)
        throw Error(what + " holds " + std::to_string(held) + " bytes, fewer than the " + std::to_string(bytes) + " bytes (" + contents +
                    ") it must hold");
}

}  // namespace portacl
