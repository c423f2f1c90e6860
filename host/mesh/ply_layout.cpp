// A PLY file walked the way CGAL's reader will walk it (its header line by line, then each element's
// items, each property it knows in turn), before that reader runs: every element count and list
// length is held against what is left of the file. CGAL sizes a list's buffer from the length it
// reads before reading the list, and loops over an element's declared items even when they hold
// nothing, so without this walk a few bytes of header buy gigabytes or an endless loop.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "mesh_detail.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::mesh::detail {
namespace {

struct PlyType {
    const char* name;
    const char* alias;
    int bytes;
    bool isInteger, isSigned;
};
constexpr PlyType kTypes[] = {{"char", "int8", 1, true, true},    {"uchar", "uint8", 1, true, false},
                              {"short", "int16", 2, true, true},  {"ushort", "uint16", 2, true, false},
                              {"int", "int32", 4, true, true},    {"uint", "uint32", 4, true, false},
                              {"float", "float32", 4, false, true}, {"double", "float64", 8, false, true}};

// The types CGAL's reader knows (it skips a property of any other type); list lengths are integers.
const PlyType* typeNamed(const std::string& s, bool lengthType) {
    for (const auto& t : kTypes)
        if ((s == t.name || s == t.alias) && (t.isInteger || !lengthType)) return &t;
    return nullptr;
}

struct Property {
    std::string name;
    const PlyType* length = nullptr;  // a list's length type; null for a scalar
    const PlyType* value = nullptr;
};
struct Element {
    std::string name;
    std::size_t items = 0;
    std::vector<Property> properties;
};
enum class Format { Ascii, LittleEndian, BigEndian };

// The header, read as CGAL reads it; false where CGAL's reader refuses it itself.
bool readHeader(std::istream& in, const std::string& file, Format& format, std::vector<Element>& elements) {
    std::string line;
    std::size_t lineNumber = 0;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        ++lineNumber;
        if (lineNumber == 1) {
            std::string signature;
            if (!(words >> signature) || signature != "ply") return false;
        } else if (lineNumber == 2) {
            std::string tag, name, version;
            if (!(words >> tag >> name >> version)) return false;
            if (name == "ascii") format = Format::Ascii;
            else if (name == "binary_little_endian") format = Format::LittleEndian;
            else if (name == "binary_big_endian") format = Format::BigEndian;
            else return false;
        } else {
            std::string keyword;
            if (!(words >> keyword)) return false;
            if (keyword == "property") {
                std::string type, name;
                if (!(words >> type >> name)) return false;
                Property p;
                if (type == "list") {
                    std::string valueType;
                    p.length = typeNamed(name, true);
                    if (!(words >> valueType >> p.name)) return false;
                    p.value = typeNamed(valueType, true);
                    if (!p.length || !p.value) continue;  // skipped by the reader
                } else {
                    p.name = name;
                    p.value = typeNamed(type, false);
                    if (!p.value) continue;
                }
                if (elements.empty())
                    throw Error(file + " declares the property '" + p.name + "' on line " + std::to_string(lineNumber) +
                                " before any element");
                elements.back().properties.push_back(p);
            } else if (keyword == "element") {
                Element e;
                if (!(words >> e.name >> e.items)) return false;
                elements.push_back(e);
            } else if (keyword == "end_header") {
                break;
            }
        }
    }
    return true;
}

std::string itemText(const Element& e, std::size_t item) {
    return "item " + std::to_string(item) + " of the element '" + e.name + "'";
}

// The binary body: `left` bytes after the header.
void walkBinary(std::istream& in, const std::string& file, Format format, const std::vector<Element>& elements, std::uint64_t left) {
    auto need = [&](std::uint64_t bytes, const Element& e, std::size_t item) {
        if (bytes > left)
            throw Error(file + " is shorter than its header says: " + itemText(e, item) + " needs " + std::to_string(bytes) +
                        " bytes where " + std::to_string(left) + " are left");
        left -= bytes;
    };
    for (const Element& e : elements) {
        bool lists = false;
        std::uint64_t fixed = 0;
        for (const Property& p : e.properties) {
            lists |= p.length != nullptr;
            fixed += std::uint64_t(p.value->bytes);
        }
        if (!lists) {
            std::uint64_t bytes = 0;
            if (__builtin_mul_overflow(std::uint64_t(e.items), fixed, &bytes) || bytes > left)
                throw Error(file + " declares " + std::to_string(e.items) + " items of the element '" + e.name + "' (" +
                            std::to_string(fixed) + " bytes each), more than the " + std::to_string(left) +
                            " bytes after its header");
            left -= bytes;
            in.ignore(std::streamsize(bytes));
            continue;
        }
        for (std::size_t item = 0; item < e.items; ++item) {
            for (const Property& p : e.properties) {
                if (!p.length) {
                    need(std::uint64_t(p.value->bytes), e, item);
                    in.ignore(p.value->bytes);
                    continue;
                }
                need(std::uint64_t(p.length->bytes), e, item);
                unsigned char raw[4] = {};
                in.read(reinterpret_cast<char*>(raw), p.length->bytes);
                std::uint64_t length = 0;
                for (int k = 0; k < p.length->bytes; ++k) {
                    const int at = format == Format::LittleEndian ? p.length->bytes - 1 - k : k;
                    length = length << 8 | raw[at];
                }
                const int top = 8 * p.length->bytes - 1;
                if (p.length->isSigned && (length >> top) & 1)
                    throw Error(file + ": the list '" + p.name + "' of " + itemText(e, item) + " has a negative length");
                need(length * std::uint64_t(p.value->bytes), e, item);
                in.ignore(std::streamsize(length * std::uint64_t(p.value->bytes)));
            }
        }
    }
}

bool isDigits(const std::string& s, std::size_t from) {
    if (from >= s.size()) return false;
    for (std::size_t i = from; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

// A number as the reader's stream extraction takes it whole: [+-]digits for integers, and a plain
// decimal (digits, one point, an exponent) for floats; anything else it would split or refuse.
bool isNumber(const std::string& s, const PlyType& t) {
    const std::size_t sign = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    if (t.isInteger) return isDigits(s, sign);
    std::size_t i = sign, digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
    if (i < s.size() && s[i] == '.')
        for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) ++digits;
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        return isDigits(s, i);
    }
    return i == s.size();
}

// The ASCII body: one whitespace-separated number per scalar, a length and that many numbers per list.
void walkAscii(std::istream& in, const std::string& file, const std::vector<Element>& elements) {
    std::string word;
    auto next = [&](const Element& e, std::size_t item, const Property& p, const PlyType& t) {
        if (!(in >> word))
            throw Error(file + " ends inside " + itemText(e, item) + " (its header declares more than the file holds)");
        if (!isNumber(word, t))
            throw Error(file + ": '" + word.substr(0, 40) + "' in " + itemText(e, item) + " is not a " + t.name + " (property '" +
                        p.name + "')");
    };
    for (const Element& e : elements)
        for (std::size_t item = 0; item < e.items; ++item)
            for (const Property& p : e.properties) {
                if (!p.length) {
                    next(e, item, p, *p.value);
                    continue;
                }
                next(e, item, p, *p.length);
                if (word[0] == '-' && word.find_first_not_of("-0") != std::string::npos)
                    throw Error(file + ": the list '" + p.name + "' of " + itemText(e, item) + " has a negative length");
                const std::size_t digits = word.find_first_not_of("+-0");
                const std::string value = digits == std::string::npos ? "0" : word.substr(digits);
                const std::uint64_t max = p.length->isSigned ? (1ull << (8 * p.length->bytes - 1)) - 1 : (1ull << (8 * p.length->bytes)) - 1;
                if (value.size() > 19 || std::stoull(value) > max)
                    throw Error(file + ": the list '" + p.name + "' of " + itemText(e, item) + " has the length " + word.substr(0, 40) +
                                ", more than its type " + p.length->name + " holds");
                for (std::uint64_t k = std::stoull(value); k > 0; --k) next(e, item, p, *p.value);
            }
}

}  // namespace

void checkPlyLayout(const std::string& path) {
    const std::string file = "the mesh file " + path;
    std::ifstream in(path, std::ios::binary);
    Format format = Format::Ascii;
    std::vector<Element> elements;
    if (!in || !readHeader(in, file, format, elements)) return;  // the reader refuses the header itself
    const std::uint64_t size = fileSizeOf(path);
    for (const Element& e : elements)
        if (e.items > 0 && e.properties.empty())
            throw Error(file + " declares " + std::to_string(e.items) + " items of the element '" + e.name +
                        "' but no property of a type the reader knows");
    // Without end_header the reader reads its items from a failed stream, sizing lists by whatever
    // its buffer held.
    if (!in) throw Error(file + " has no end_header line");
    const std::uint64_t bodyStart = std::uint64_t(in.tellg());
    if (format == Format::Ascii) walkAscii(in, file, elements);
    else walkBinary(in, file, format, elements, size > bodyStart ? size - bodyStart : 0);
}

}  // namespace portacl::mesh::detail
