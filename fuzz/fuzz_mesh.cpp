// libFuzzer harness: the mesh readers (host/mesh/mesh_io.cpp, CGAL's polygon-soup readers: OBJ, OFF,
// PLY and STL, ASCII and binary) on arbitrary bytes. The reader picks the format by extension, so
// the extension comes from the input: a first byte 0..3 names it (.obj, .off, .ply, .stl) and is not
// part of the file; any other first byte leaves the whole input as the file, its extension guessed
// from how it starts (the real meshes among the seeds carry no such byte).
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_support.hpp"
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

namespace {

const char* const kExtensions[] = {".obj", ".off", ".ply", ".stl"};

const char* guessExtension(const std::uint8_t* data, std::size_t size) {
    const std::string head(reinterpret_cast<const char*>(data), size < 80 ? size : 80);
    if (head.rfind("ply", 0) == 0) return ".ply";
    if (head.rfind("solid", 0) == 0) return ".stl";
    if (head.substr(0, head.find('\n')).find("OFF") != std::string::npos) return ".off";
    return ".obj";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* extension = size && data[0] < 4 ? kExtensions[data[0]] : guessExtension(data, size);
    if (size && data[0] < 4) ++data, --size;
    const fuzz::InputFile file(data, size, extension);
    try {
        mesh::readMesh(file.path());
    } catch (const Error&) {
    }
    return 0;
}
