// Volumes by file extension, and the NumPy .npy format (a small, fully specified header: magic,
// version, a Python dict literal with descr, fortran_order and shape, then the raw array).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "portacl/io/image.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::io {
namespace {

std::string lowerExtension(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = path.substr(dot + 1);
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}

bool hostLittleEndian() {
    const std::uint16_t one = 1;
    unsigned char b;
    std::memcpy(&b, &one, 1);
    return b == 1;
}

// The value of key `key` in the header dict, as raw text up to the next top-level comma or brace.
std::string dictValue(const std::string& header, const std::string& key, const std::string& path) {
    const auto k = header.find("'" + key + "'");
    if (k == std::string::npos) throw Error(path + " is not a valid .npy file: its header has no '" + key + "'");
    auto c = header.find(':', k);
    if (c == std::string::npos) throw Error(path + " is not a valid .npy file: its header is malformed");
    ++c;
    while (c < header.size() && header[c] == ' ') ++c;
    if (c < header.size() && header[c] == '(') {
        const auto e = header.find(')', c);
        if (e == std::string::npos) throw Error(path + " is not a valid .npy file: its shape is malformed");
        return header.substr(c, e - c + 1);
    }
    auto e = c;
    while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
    std::string v = header.substr(c, e - c);
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
}

template <typename T>
double loadAs(const unsigned char* p, bool swap) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, p, sizeof(T));
    if (swap) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return double(v);
}

}  // namespace

Volume readNpy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
    char magic[8];
    if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw Error(path + " is not a NumPy .npy file (bad magic bytes)");
    const int major = static_cast<unsigned char>(magic[6]);
    std::uint32_t headerLen = 0;
    if (major == 1) {
        unsigned char l[2];
        if (!in.read(reinterpret_cast<char*>(l), 2)) throw Error(path + " is a truncated .npy file");
        headerLen = l[0] | (l[1] << 8);
    } else if (major == 2 || major == 3) {
        unsigned char l[4];
        if (!in.read(reinterpret_cast<char*>(l), 4)) throw Error(path + " is a truncated .npy file");
        headerLen = l[0] | (l[1] << 8) | (l[2] << 16) | (std::uint32_t(l[3]) << 24);
    } else {
        throw Error(path + " has an unsupported .npy version " + std::to_string(major));
    }
    // numpy writes headers of a few hundred bytes (and reads none over 10000 by default); a stated
    // limit of 65536 keeps a 4 GiB header length from being allocated.
    constexpr std::uint32_t maxHeader = 65536;
    if (headerLen > maxHeader)
        throw Error(path + " declares a .npy header of " + std::to_string(headerLen) + " bytes; at most " +
                    std::to_string(maxHeader) + " are accepted");
    const std::uint64_t fileBytes = fileSizeOf(path), dataStart = (major == 1 ? 10 : 12) + std::uint64_t(headerLen);
    if (dataStart > fileBytes) throw Error(path + " is a truncated .npy file");
    std::string header(headerLen, '\0');
    if (!in.read(&header[0], headerLen)) throw Error(path + " is a truncated .npy file");

    const std::string descr = dictValue(header, "descr", path);
    const std::string fortran = dictValue(header, "fortran_order", path);
    const std::string shapeText = dictValue(header, "shape", path);
    if (descr.size() < 5 || descr.front() != '\'')
        throw Error(path + " has a .npy element type this reader does not handle: " + descr);
    const char order = descr[1], kind = descr[2];
    const int bytes = std::atoi(descr.substr(3, descr.size() - 4).c_str());
    if (shapeText.size() < 2 || shapeText.front() != '(' || shapeText.back() != ')')
        throw Error(path + " has a .npy shape this reader does not understand: " + shapeText);
    std::vector<long long> shape;
    {
        std::string s = shapeText.substr(1, shapeText.size() - 2);
        std::replace(s.begin(), s.end(), ',', ' ');
        std::istringstream is(s);
        long long v;
        while (is >> v) shape.push_back(v);
        if (!is.eof()) throw Error(path + " has a .npy shape this reader does not understand: " + shapeText);
    }
    if (shape.size() < 2 || shape.size() > 3)
        throw Error(path + " holds a " + std::to_string(shape.size()) + "-D array; a 2-D image or 3-D volume is needed");
    for (auto v : shape)
        if (v <= 0 || v > (1LL << 30)) throw Error(path + " has an empty or absurd array shape " + shapeText);
    const std::uint64_t declared =
        checkedMul(checkedProduct(reinterpret_cast<const std::uint64_t*>(shape.data()), shape.size(), "the array of " + path),
                   std::size_t(bytes > 0 && bytes <= 8 ? bytes : 1), "the array of " + path);
    if (declared > fileBytes - dataStart)
        throw Error(path + " is a truncated .npy file: its shape " + shapeText + " needs " + std::to_string(declared) +
                    " bytes of data and the file holds " + std::to_string(fileBytes - dataStart));
    checkHostAllocation(checkedMul(declared / std::size_t(bytes > 0 && bytes <= 8 ? bytes : 1), sizeof(double) + 8, path),
                        "the array of " + path);
    Volume vol;
    if (shape.size() == 3) vol.nz = int(shape[0]);
    vol.ny = int(shape[shape.size() - 2]);
    vol.nx = int(shape[shape.size() - 1]);

    const bool known = (kind == 'u' || kind == 'i') ? (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)
                       : kind == 'f'                ? (bytes == 4 || bytes == 8)
                       : kind == 'b'                ? bytes == 1
                                                    : false;
    if (!known) throw Error(path + " has a .npy element type this reader does not handle: " + descr);
    vol.elementType = std::string(kind == 'u' ? "uint" : kind == 'i' ? "int" : kind == 'f' ? "float" : "bool") +
                      (kind == 'b' ? "" : std::to_string(bytes * 8));
    const bool swap = bytes > 1 && ((order == '<' && !hostLittleEndian()) || (order == '>' && hostLittleEndian()));

    const std::size_t n = vol.size();
    std::vector<unsigned char> raw(n * std::size_t(bytes));
    if (!in.read(reinterpret_cast<char*>(raw.data()), std::streamsize(raw.size())))
        throw Error(path + " is a truncated .npy file: the header promises " + std::to_string(n) + " elements");
    vol.data.resize(n);
    const bool isFortran = fortran.find("True") != std::string::npos;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char* p = raw.data() + i * std::size_t(bytes);
        double v = 0;
        if (kind == 'f') v = bytes == 4 ? loadAs<float>(p, swap) : loadAs<double>(p, swap);
        else if (kind == 'b') v = p[0] ? 1 : 0;
        else if (kind == 'u')
            v = bytes == 1 ? loadAs<std::uint8_t>(p, swap) : bytes == 2 ? loadAs<std::uint16_t>(p, swap)
              : bytes == 4 ? loadAs<std::uint32_t>(p, swap) : loadAs<std::uint64_t>(p, swap);
        else
            v = bytes == 1 ? loadAs<std::int8_t>(p, swap) : bytes == 2 ? loadAs<std::int16_t>(p, swap)
              : bytes == 4 ? loadAs<std::int32_t>(p, swap) : loadAs<std::int64_t>(p, swap);
        std::size_t dst = i;
        if (isFortran) {  // first index fastest: i = x*ny*nz + y*nz + z (3-D) or x*ny + y (2-D)
            const std::size_t z = i % std::size_t(vol.nz), rest = i / std::size_t(vol.nz);
            const std::size_t y = rest % std::size_t(vol.ny), x = rest / std::size_t(vol.ny);
            dst = (z * vol.ny + y) * vol.nx + x;
        }
        vol.data[dst] = v;
    }
    return vol;
}

void writeNpyU8(const std::string& path, const Volume& v) {
    std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (";
    if (v.nz > 1) header += std::to_string(v.nz) + ", ";
    header += std::to_string(v.ny) + ", " + std::to_string(v.nx) + "), }";
    const std::size_t total = 10 + header.size() + 1;
    header += std::string((64 - total % 64) % 64, ' ') + "\n";
    writeFileAtomically(
        path,
        [&](std::ostream& out) {
            const unsigned char pre[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
            out.write(reinterpret_cast<const char*>(pre), 8);
            const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                          static_cast<unsigned char>(header.size() >> 8)};
            out.write(reinterpret_cast<const char*>(len), 2);
            out << header;
            for (double d : v.data) {
                const double c = std::min(255.0, std::max(0.0, std::round(d)));
                out.put(char(static_cast<unsigned char>(c)));
            }
        },
        true);
}

Volume readVolume(const std::string& path, const std::string& dataset) {
    {
        std::ifstream probe(path);
        if (!probe) throw Error("cannot open " + path + ": " + std::strerror(errno));
    }
    const std::string ext = lowerExtension(path);
    if (ext == "npy") return readNpy(path);
    if (ext == "h5" || ext == "hdf5" || ext == "he5") return readHdf5Dataset(path, dataset);
    if (ext == "tif" || ext == "tiff") return readTiffStack(path);
    if (ext == "nii" || (ext == "gz" && path.size() > 7 && lowerExtension(path.substr(0, path.size() - 3)) == "nii")) return readNifti(path);
    const Image img = readImage(path);
    Volume v;
    v.ny = img.height;
    v.nx = img.width;
    v.elementType = pixelTypeName(img.type);
    const int colour = img.channels == 2 || img.channels == 4 ? img.channels - 1 : img.channels;
    v.data.resize(img.pixelCount());
    for (std::size_t i = 0; i < img.pixelCount(); ++i) {
        double s = 0;
        for (int c = 0; c < colour; ++c) {
            const std::size_t k = i * std::size_t(img.channels) + std::size_t(c);
            s += img.type == PixelType::U8 ? img.samples<unsigned char>()[k]
               : img.type == PixelType::U16 ? img.samples<unsigned short>()[k]
                                            : img.samples<float>()[k];
        }
        v.data[i] = s / colour;
    }
    return v;
}

}  // namespace portacl::io
