// OFF read here rather than by CGAL's scanner, whose handling of the variants' extra columns
// (colours, normals, texture coordinates) reads past the numbers a short or odd line holds, and whose
// header arithmetic overflows on large counts. In ASCII a vertex is the first 3 numbers of its line (4
// for a homogeneous 4OFF, divided by the last) and a face a corner count and that many indices;
// whatever follows on a line (colours, normals, texture coordinates) is not used. Binary OFF ("OFF
// BINARY", big-endian, Geomview's layout: each face ends with a count of 0 to 4 colour floats) is read
// without the variants. Nothing is sized by the header's counts: the file must hold what they say.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "mesh_detail.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::mesh::detail {
namespace {

// The next line with content, its comment (from '#') removed; false at the end of the file.
bool nextLine(std::istream& in, std::string& line, std::size_t& lineNumber) {
    while (std::getline(in, line)) {
        ++lineNumber;
        const std::size_t hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        if (line.find_first_not_of(" \t\r\f\v") != std::string::npos) return true;
    }
    return false;
}

bool parseCount(const std::string& word, std::size_t& value) {
    if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 18) return false;
    value = std::stoull(word);
    return true;
}

bool parseNumber(const std::string& word, double& value) {
    char* end = nullptr;
    value = std::strtod(word.c_str(), &end);
    return !word.empty() && end == word.c_str() + word.size();
}

// Big-endian 32-bit words after the header.
class BinaryWords {
public:
    BinaryWords(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}
    std::uint32_t next(const std::string& what) {
        unsigned char b[4];
        if (!in_.read(reinterpret_cast<char*>(b), 4)) throw Error(file_ + " ends inside " + what);
        return std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 | std::uint32_t(b[2]) << 8 | b[3];
    }
    std::size_t count(const std::string& what) {
        const std::uint32_t v = next(what);
        if (v > std::uint32_t(INT32_MAX)) throw Error(file_ + " gives a negative count for " + what);
        return v;
    }
    double real(const std::string& what) {
        const std::uint32_t v = next(what);
        float f = 0;
        std::memcpy(&f, &v, 4);
        return f;
    }

private:
    std::istream& in_;
    std::string file_;
};

void readBinaryOff(std::istream& in, const std::string& file, bool homogeneous, std::vector<double>& xyz,
                   std::vector<std::vector<std::size_t>>& faces) {
    BinaryWords words(in, file);
    const std::size_t vertices = words.count("its vertex count"), faceCount = words.count("its face count");
    words.count("its edge count");
    for (std::size_t v = 0; v < vertices; ++v) {
        const std::string what = "vertex " + std::to_string(v) + " of " + std::to_string(vertices);
        double c[4] = {0, 0, 0, 1};
        for (int k = 0; k < (homogeneous ? 4 : 3); ++k) c[k] = words.real(what);
        for (int k = 0; k < 3; ++k) xyz.push_back(c[k] / c[3]);
    }
    for (std::size_t f = 0; f < faceCount; ++f) {
        const std::string what = "face " + std::to_string(f) + " of " + std::to_string(faceCount);
        const std::size_t corners = words.count(what);
        std::vector<std::size_t> face;
        for (std::size_t k = 0; k < corners; ++k) face.push_back(words.count(what));
        const std::size_t colours = words.count(what);
        if (colours > 4) throw Error(file + ": " + what + " gives " + std::to_string(colours) + " colour components (at most 4)");
        for (std::size_t k = 0; k < colours; ++k) words.real(what);
        faces.push_back(std::move(face));
    }
}

}  // namespace

void readOff(const std::string& path, std::vector<double>& xyz, std::vector<std::vector<std::size_t>>& faces) {
    const std::string file = "the mesh file " + path;
    std::ifstream in(path, std::ios::binary);
    std::string line, word;
    std::size_t lineNumber = 0;
    if (!nextLine(in, line, lineNumber)) throw Error(file + " holds no OFF header");
    std::istringstream words(line);
    words >> word;
    // [ST][C][N][4]OFF: texture coordinates, colours, normals, homogeneous coordinates.
    std::size_t at = 0;
    if (word.compare(at, 2, "ST") == 0) at += 2;
    if (word.compare(at, 1, "C") == 0) ++at;
    if (word.compare(at, 1, "N") == 0) ++at;
    const bool plain = at == 0;
    const bool homogeneous = word.compare(at, 1, "4") == 0;
    if (homogeneous) ++at;
    if (word.compare(at, std::string::npos, "OFF") != 0)
        throw Error(file + " does not start with an OFF header ([ST][C][N][4]OFF), but with '" + word.substr(0, 40) + "'");
    std::string counts[3];
    std::size_t have = 0;
    for (;;) {
        while (have < 3 && words >> counts[have]) {
            if (have == 0 && counts[0] == "BINARY") {
                if (!plain) throw Error(file + " is a binary OFF with colours, normals or texture coordinates, which are not read");
                if (words >> word) throw Error(file + " has '" + word.substr(0, 40) + "' after BINARY on its header line");
                return readBinaryOff(in, file, homogeneous, xyz, faces);
            }
            ++have;
        }
        if (have == 3 || !nextLine(in, line, lineNumber)) break;
        words.clear();
        words.str(line);
    }
    std::size_t vertices = 0, faceCount = 0, edges = 0;
    if (have < 3 || !parseCount(counts[0], vertices) || !parseCount(counts[1], faceCount) || !parseCount(counts[2], edges))
        throw Error(file + " does not give its counts of vertices, faces and edges after the OFF header");
    const std::size_t coordinates = homogeneous ? 4 : 3;
    for (std::size_t v = 0; v < vertices; ++v) {
        if (!nextLine(in, line, lineNumber))
            throw Error(file + " declares " + std::to_string(vertices) + " vertices but ends after " + std::to_string(v));
        std::istringstream numbers(line);
        double c[4] = {0, 0, 0, 1};
        for (std::size_t k = 0; k < coordinates; ++k)
            if (!(numbers >> word) || !parseNumber(word, c[k]))
                throw Error(file + ": line " + std::to_string(lineNumber) + " (vertex " + std::to_string(v) + ") does not start with " +
                            std::to_string(coordinates) + " numbers");
        for (std::size_t k = 0; k < 3; ++k) xyz.push_back(c[k] / c[3]);
    }
    for (std::size_t f = 0; f < faceCount; ++f) {
        if (!nextLine(in, line, lineNumber))
            throw Error(file + " declares " + std::to_string(faceCount) + " faces but ends after " + std::to_string(f));
        std::istringstream numbers(line);
        std::size_t corners = 0;
        if (!(numbers >> word) || !parseCount(word, corners))
            throw Error(file + ": line " + std::to_string(lineNumber) + " (face " + std::to_string(f) + ") does not start with its number of corners");
        std::vector<std::size_t> face;
        for (std::size_t k = 0; k < corners; ++k) {
            std::size_t index = 0;
            if (!(numbers >> word) || !parseCount(word, index))
                throw Error(file + ": line " + std::to_string(lineNumber) + " (face " + std::to_string(f) + ") does not hold the " +
                            std::to_string(corners) + " vertex indices its count says");
            face.push_back(index);
        }
        faces.push_back(std::move(face));
    }
}

}  // namespace portacl::mesh::detail
