// Writers of lineal path results (HDF5 through the C API, CSV); the PNG picture is map_picture.cpp.
#include <hdf5.h>

#include <cmath>
#include <iomanip>

#include "io/hdf5_untimed.hpp"
#include "portacl/io/image.hpp"
#include "portacl/lineal_path/output.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::lineal {
namespace {

void check(herr_t status, const std::string& path, const std::string& what) {
    if (status < 0) throw Error("cannot write " + what + " to " + path + " (HDF5 reported a failure)");
}

void dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& dims, hid_t memType, hid_t fileType,
             const void* data, const std::string& path) {
    const hid_t space = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
    const hid_t dcpl = io::detail::untimedCreation(H5P_DATASET_CREATE);
    const hid_t ds = H5Dcreate2(file, name.c_str(), fileType, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (ds < 0) throw Error("cannot create dataset " + name + " in " + path);
    const herr_t st = H5Dwrite(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    const herr_t closed = H5Dclose(ds);  // flushes the dataset's buffered data
    check(st < 0 ? st : closed, path, name);
}

void attribute(hid_t file, const std::string& key, const std::string& value, const std::string& path) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, value.size() + 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(file, key.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    const herr_t st = a < 0 ? -1 : H5Awrite(a, type, value.c_str());
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    check(st, path, "attribute " + key);
}

// A numeric attribute: `count` values (1: a scalar) of `memType`, stored as `fileType`.
void attribute(hid_t file, const std::string& key, hid_t memType, hid_t fileType, const void* values, hsize_t count,
               const std::string& path) {
    const hid_t space = count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr);
    const hid_t a = H5Acreate2(file, key.c_str(), fileType, space, H5P_DEFAULT, H5P_DEFAULT);
    const herr_t st = a < 0 ? -1 : H5Awrite(a, memType, values);
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    check(st, path, "attribute " + key);
}

void attribute(hid_t file, const std::string& key, const Parameter& p, const std::string& path) {
    switch (p.kind) {
        case Parameter::Kind::Text: return attribute(file, key, p.text, path);
        case Parameter::Kind::Real: return attribute(file, key, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &p.real, 1, path);
        case Parameter::Kind::Integer: return attribute(file, key, H5T_NATIVE_INT64, H5T_STD_I64LE, &p.integer, 1, path);
        case Parameter::Kind::Flag: {
            const unsigned char v = p.integer != 0;
            return attribute(file, key, H5T_NATIVE_UCHAR, H5T_STD_U8LE, &v, 1, path);
        }
    }
}

// The map's shape: (my, mx) for a 2-D image, (mz, my, mx) for a volume.
std::vector<hsize_t> mapDims(const Result& r) {
    if (r.nz > 1) return {hsize_t(r.mz), hsize_t(r.my), hsize_t(r.mx)};
    return {hsize_t(r.my), hsize_t(r.mx)};
}

}  // namespace

void writeHdf5(const std::string& path, const Result& r, const RadialProfile& radial,
               const std::map<std::string, Parameter>& parameters, const std::vector<double>* s2) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    AtomicOutput out(path);
    const hid_t fcpl = io::detail::untimedCreation(H5P_FILE_CREATE);
    hid_t file = H5Fcreate(out.writePath().c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (file < 0) throw Error("cannot create " + path + " (HDF5 could not open it for writing)");
    try {
        for (const char* name : {"radial", "profiles"}) {
            const hid_t gcpl = io::detail::untimedCreation(H5P_GROUP_CREATE);
            const hid_t group = H5Gcreate2(file, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            H5Pclose(gcpl);
            if (group < 0 || H5Gclose(group) < 0) throw Error("cannot create the group " + std::string(name) + " in " + path);
        }
        const std::vector<hsize_t> dims = mapDims(r);
        const auto L = r.map();
        dataset(file, "L", dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, L.data(), path);
        dataset(file, "count", dims, H5T_NATIVE_UINT64, H5T_STD_U64LE, r.count.data(), path);
        dataset(file, "tried", dims, H5T_NATIVE_UINT64, H5T_STD_U64LE, r.tried.data(), path);
        if (s2) dataset(file, "S2", dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, s2->data(), path);
        const std::vector<hsize_t> nb = {hsize_t(radial.L.size())};
        dataset(file, "radial/r", nb, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, radial.radius.data(), path);
        dataset(file, "radial/L", nb, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, radial.L.data(), path);
        dataset(file, "radial/vectors", nb, H5T_NATIVE_UINT64, H5T_STD_U64LE, radial.vectors.data(), path);
        for (const auto& p : directionProfiles(r))
            dataset(file, "profiles/" + p.name, {hsize_t(p.L.size())}, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, p.L.data(), path);
        std::map<std::string, Parameter> attrs = parameters;
        attrs.insert_or_assign("max_length", Parameter(std::int64_t(r.maxLength)));
        attrs.insert_or_assign("periodic", Parameter::flag(r.periodic));
        attrs.insert_or_assign("convention", Parameter(r.nz > 1 ? "L[dz+MLz, dy+ML, dx+ML] = count/tried; Bresenham segments from p to p+d, ties step diagonally"
                                                                : "L[dy+ML, dx+ML] = count/tried; Bresenham segments from p to p+d, ties step diagonally"));
        attrs.insert_or_assign("radial_bin_width", Parameter(radial.binWidth));
        for (const auto& [k, v] : attrs) attribute(file, k, v, path);
        std::vector<std::int64_t> shape = {r.ny, r.nx};
        if (r.nz > 1) shape.insert(shape.begin(), r.nz);
        attribute(file, "shape", H5T_NATIVE_INT64, H5T_STD_I64LE, shape.data(), shape.size(), path);
        const herr_t closed = H5Fclose(file);
        file = -1;  // closed, even when the close failed: HDF5 releases the identifier either way
        if (closed < 0) throw Error("cannot write " + path + " (HDF5 could not finish the file: is the disk full?)");
    } catch (...) {
        if (file >= 0) H5Fclose(file);
        throw;  // out's destructor removes the temporary
    }
    out.commit();
}

void writeNpy(const std::string& path, const Result& r) {
    const auto L = r.map();
    std::string shape = "(" + std::to_string(r.my) + ", " + std::to_string(r.mx) + ")";
    if (r.nz > 1) shape = "(" + std::to_string(r.mz) + ", " + std::to_string(r.my) + ", " + std::to_string(r.mx) + ")";
    // NumPy's format 1.0: magic, version, header length, a dict padded with spaces to a multiple of 64.
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
    const std::size_t total = 10 + header.size() + 1;
    header += std::string((64 - total % 64) % 64, ' ') + "\n";
    writeFileAtomically(path, [&](std::ostream& os) {
        os.write("\x93NUMPY\x01\x00", 8);
        const std::uint16_t n = static_cast<std::uint16_t>(header.size());
        const char len[2] = {static_cast<char>(n & 0xff), static_cast<char>(n >> 8)};
        os.write(len, 2);
        os << header;
        os.write(reinterpret_cast<const char*>(L.data()), static_cast<std::streamsize>(L.size() * sizeof(double)));
    });
}

void writeCsv(const std::string& path, const Result& r) {
    writeFileAtomically(path, [&](std::ostream& os) {
        const bool is3d = r.mz > 1;
        os << (is3d ? "dx,dy,dz,count,tried,L\n" : "dx,dy,count,tried,L\n");
        os << std::setprecision(17);
        const int ml = r.maxLength, mlz = r.mlz();
        for (int dz = -mlz; dz <= mlz; ++dz)
            for (int dy = -ml; dy <= ml; ++dy)
                for (int dx = -ml; dx <= ml; ++dx) {
                    const std::size_t i = r.index(dz, dy, dx);
                    os << dx << ',' << dy << ',';
                    if (is3d) os << dz << ',';
                    os << r.count[i] << ',' << r.tried[i] << ',' << r.L(i) << '\n';
                }
    });
}

}  // namespace portacl::lineal
