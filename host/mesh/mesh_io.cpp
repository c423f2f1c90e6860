// Mesh files through CGAL's polygon-soup reader (OBJ, OFF, PLY and STL, ASCII and binary), fanned into
// triangles and checked before any work: one sentence for each way a file can be unusable.
#include <CGAL/IO/polygon_soup_io.h>
#include <CGAL/Simple_cartesian.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "mesh_detail.hpp"
#include "portacl/mesh/triangle_mesh.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::mesh {
namespace {

namespace fs = std::filesystem;
using Point = CGAL::Simple_cartesian<double>::Point_3;

// What CGAL's reader may hold while it reads one file: counts in a header (OFF's vertices and faces,
// a face's corners) size its containers before anything is read, so every allocation of the soup
// is charged against the file's size. A real file needs at most a few bytes of soup per byte of file
// (a vertex "v 0 0 0" of 8 bytes becomes 24, a growing vector at most doubles that); 64 leaves room.
constexpr std::uint64_t kSoupBytesPerFileByte = 64;
constexpr std::uint64_t kSoupFloorBytes = std::uint64_t(1) << 20;

struct SoupBudget {
    std::string path;
    std::uint64_t fileBytes = 0, limit = 0, held = 0;
};
thread_local SoupBudget* tBudget = nullptr;

template <typename T>
struct BudgetAllocator {
    using value_type = T;
    BudgetAllocator() = default;
    template <typename U>
    BudgetAllocator(const BudgetAllocator<U>&) {}
    T* allocate(std::size_t n) {
        if (tBudget) {
            SoupBudget& b = *tBudget;
            std::uint64_t bytes = 0;
            if (__builtin_mul_overflow(std::uint64_t(n), sizeof(T), &bytes) || bytes > b.limit - b.held)
                throw Error("the mesh file " + b.path + " declares more vertices, faces or corners than its " +
                            std::to_string(b.fileBytes) + " bytes can hold");
            checkHostAllocation(std::size_t(b.held + bytes), "reading the mesh file " + b.path);
            b.held += bytes;
        }
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) {
        if (tBudget) tBudget->held -= std::min<std::uint64_t>(tBudget->held, std::uint64_t(n) * sizeof(T));
        std::allocator<T>().deallocate(p, n);
    }
    template <typename U>
    bool operator==(const BudgetAllocator<U>&) const { return true; }
    template <typename U>
    bool operator!=(const BudgetAllocator<U>&) const { return false; }
};
using Polygon = std::vector<std::size_t, BudgetAllocator<std::size_t>>;
using Points = std::vector<Point, BudgetAllocator<Point>>;
using Polygons = std::vector<Polygon, BudgetAllocator<Polygon>>;

// CGAL's polygon soup of the file, its allocations charged against the file's size (PLY walked first).
void readWithCgal(const std::string& path, const std::string& ext, Points& points, Polygons& polygons) {
    if (ext == ".ply") detail::checkPlyLayout(path);
    SoupBudget budget;
    budget.path = path;
    budget.fileBytes = fileSizeOf(path);
    budget.limit = kSoupFloorBytes + (budget.fileBytes > std::numeric_limits<std::uint64_t>::max() / kSoupBytesPerFileByte
                                          ? std::numeric_limits<std::uint64_t>::max() / 2
                                          : budget.fileBytes * kSoupBytesPerFileByte);
    bool ok = false;
    // CGAL's readers report details on std::cerr; the one sentence below says what matters.
    std::ostringstream quiet;
    std::streambuf* old = std::cerr.rdbuf(quiet.rdbuf());
    tBudget = &budget;
    try {
        ok = CGAL::IO::read_polygon_soup(path, points, polygons, CGAL::parameters::verbose(false));
    } catch (const Error&) {
        tBudget = nullptr;
        std::cerr.rdbuf(old);
        throw;
    } catch (const std::exception&) {
        ok = false;
    }
    tBudget = nullptr;
    std::cerr.rdbuf(old);
    if (!ok)
        throw Error("the mesh file " + path + " could not be read as " + ext.substr(1) +
                    " (malformed, truncated, or not that format)");
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

void checkReadable(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw Error("the mesh file " + path + " does not exist");
    if (fs::is_directory(path, ec)) throw Error("the mesh file " + path + " is a folder, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("the mesh file " + path + " cannot be read (permission denied?)");
    if (in.peek() == std::char_traits<char>::eof()) throw Error("the mesh file " + path + " is empty");
}

}  // namespace

void validate(const TriangleMesh& m) {
    const std::string name = m.path.empty() ? std::string("the mesh") : "the mesh " + m.path;
    if (m.points.size() % 3 || m.triangles.size() % 3)
        throw Error(name + " is malformed: its coordinates or indices are not in threes");
    if (m.triangles.empty()) throw Error(name + " has no triangles");
    if (m.triangleCount() >= (std::size_t(1) << 31)) throw Error(name + " has more than 2^31 triangles, more than the engine indexes");
    for (std::size_t i = 0; i < m.points.size(); ++i)
        if (!std::isfinite(m.points[i]))
            throw Error(name + " has a coordinate that is not finite (vertex " + std::to_string(i / 3) + ")");
    const std::size_t nv = m.vertexCount();
    for (std::size_t i = 0; i < m.triangles.size(); ++i)
        if (m.triangles[i] >= nv)
            throw Error(name + ": triangle " + std::to_string(i / 3) + " names vertex " + std::to_string(m.triangles[i]) +
                        ", but there are only " + std::to_string(nv) + " vertices");
}

TriangleMesh readMesh(const std::string& path) {
    const std::string ext = lower(fs::path(path).extension().string());
    if (ext != ".obj" && ext != ".off" && ext != ".ply" && ext != ".stl")
        throw Error("the mesh file " + path + " has the extension '" + ext + "'; meshes are read from .obj, .off, .ply or .stl");
    checkReadable(path);
    Points points;
    Polygons polygons;
    std::vector<double> xyz;
    std::vector<std::vector<std::size_t>> faces;
    if (ext == ".off") {
        detail::readOff(path, xyz, faces);
        for (std::size_t v = 0; v + 2 < xyz.size(); v += 3) points.emplace_back(xyz[v], xyz[v + 1], xyz[v + 2]);
        for (const auto& f : faces) polygons.emplace_back(f.begin(), f.end());
    } else {
        readWithCgal(path, ext, points, polygons);
    }
    TriangleMesh m;
    m.path = path;
    m.polygons = polygons.size();
    if (points.empty() || polygons.empty()) throw Error("the mesh file " + path + " has no faces");
    m.points.reserve(points.size() * 3);
    for (std::size_t v = 0; v < points.size(); ++v)
        for (int k = 0; k < 3; ++k) {
            const double c = points[v][k];
            if (!std::isfinite(c)) throw Error("the mesh file " + path + " has a coordinate that is not finite (vertex " + std::to_string(v) + ")");
            if (std::abs(c) > double(std::numeric_limits<float>::max()))
                throw Error("the mesh file " + path + " has a coordinate too large for float (vertex " + std::to_string(v) + ")");
            m.points.push_back(float(c));
        }
    for (std::size_t f = 0; f < polygons.size(); ++f) {
        const auto& p = polygons[f];
        if (p.size() < 3)
            throw Error("the mesh file " + path + ": face " + std::to_string(f) + " has " + std::to_string(p.size()) +
                        " corners; a face needs at least 3");
        for (std::size_t v : p)
            if (v >= points.size())
                throw Error("the mesh file " + path + ": face " + std::to_string(f) + " names vertex " + std::to_string(v) +
                            ", but there are only " + std::to_string(points.size()) + " vertices");
        for (std::size_t k = 1; k + 1 < p.size(); ++k) {
            m.triangles.push_back(std::uint32_t(p[0]));
            m.triangles.push_back(std::uint32_t(p[k]));
            m.triangles.push_back(std::uint32_t(p[k + 1]));
        }
    }
    validate(m);
    return m;
}

}  // namespace portacl::mesh
