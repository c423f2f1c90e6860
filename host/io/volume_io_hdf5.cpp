// Volumes from HDF5 datasets through the HDF5 C API: any integer or float dataset of rank 2 or 3,
// converted to double by the library; the voxel size from the dataset's float attribute of three
// values (z, y, x) element_size_um (Fiji's HDF5 plugin and ilastik), else spacing with a unit
// string attribute (this project's writer). The binary volume writer stores both.
#include <hdf5.h>

#include <cmath>
#include <limits>
#include <vector>

#include "io/hdf5_limits.hpp"
#include "io/hdf5_untimed.hpp"
#include "io/volume_writers.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::io {
namespace {

// Closes an HDF5 id on scope exit.
struct Id {
    hid_t id;
    herr_t (*close)(hid_t);
    ~Id() {
        if (id >= 0) close(id);
    }
};

// Collects the datasets directly under the root group.
herr_t collect(hid_t group, const char* name, const H5L_info_t*, void* out) {
    const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0) return 0;
    if (H5Iget_type(obj) == H5I_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
    H5Oclose(obj);
    return 0;
}

// A numeric attribute of exactly three positive finite values, or false.
bool readTriple(hid_t object, const char* name, std::array<double, 3>& out) {
    if (H5Aexists(object, name) <= 0) return false;
    Id attr{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
    if (attr.id < 0) return false;
    Id space{H5Aget_space(attr.id), H5Sclose};
    Id type{H5Aget_type(attr.id), H5Tclose};
    const H5T_class_t cls = H5Tget_class(type.id);
    if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || H5Sget_simple_extent_npoints(space.id) != 3) return false;
    std::array<double, 3> v{};
    if (H5Aread(attr.id, H5T_NATIVE_DOUBLE, v.data()) < 0) return false;
    for (double d : v)
        if (!std::isfinite(d) || d <= 0) return false;
    out = v;
    return true;
}

// A string attribute (fixed or variable length), or empty.
std::string readString(hid_t object, const char* name) {
    if (H5Aexists(object, name) <= 0) return "";
    Id attr{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
    if (attr.id < 0) return "";
    Id type{H5Aget_type(attr.id), H5Tclose};
    if (H5Tget_class(type.id) != H5T_STRING) return "";
    Id space{H5Aget_space(attr.id), H5Sclose};
    if (H5Sget_simple_extent_npoints(space.id) != 1) return "";
    if (H5Tis_variable_str(type.id) > 0) {
        Id mem{H5Tcopy(H5T_C_S1), H5Tclose};
        H5Tset_size(mem.id, H5T_VARIABLE);
        char* text = nullptr;
        if (H5Aread(attr.id, mem.id, &text) < 0 || !text) return "";
        std::string s(text);
        H5free_memory(text);
        return s;
    }
    const std::size_t n = H5Tget_size(type.id);
    if (n == 0 || n > 4096) return "";
    std::vector<char> buf(n + 1, 0);
    if (H5Aread(attr.id, type.id, buf.data()) < 0) return "";
    return std::string(buf.data());
}

}  // namespace

Volume readHdf5Dataset(const std::string& path, const std::string& datasetName) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become sentences, not HDF5 stack dumps
    Id file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    if (file.id < 0) throw Error("cannot open " + path + " as an HDF5 file");
    std::string name = datasetName;
    if (name.empty()) {
        std::vector<std::string> names;
        H5Literate(file.id, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names);
        if (names.size() != 1)
            throw Error(path + " holds " + std::to_string(names.size()) +
                        " datasets at its root; name the dataset to read");
        name = names[0];
    }
    if (H5Lexists(file.id, name.c_str(), H5P_DEFAULT) <= 0) throw Error(path + " has no dataset " + name);
    Id ds{H5Dopen2(file.id, name.c_str(), H5P_DEFAULT), H5Dclose};
    if (ds.id < 0) throw Error(path + ": " + name + " is not a dataset");
    Id space{H5Dget_space(ds.id), H5Sclose};
    const int rank = H5Sget_simple_extent_ndims(space.id);
    if (rank < 2 || rank > 3)
        throw Error(path + ":" + name + " is a " + std::to_string(rank) + "-D dataset; a 2-D image or 3-D volume is needed");
    hsize_t dims[3] = {1, 1, 1};
    if (H5Sget_simple_extent_dims(space.id, dims, nullptr) != rank)
        throw Error("cannot read the shape of " + path + ":" + name);
    Id type{H5Dget_type(ds.id), H5Tclose};
    const H5T_class_t cls = H5Tget_class(type.id);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        throw Error(path + ":" + name + " holds neither integers nor floating-point numbers");
    // Each extent must fit the volume's int sizes, and the whole the file's storage for it and the
    // host's memory.
    const std::string where = path + ":" + name;
    for (int i = 0; i < rank; ++i)
        if (dims[i] == 0 || dims[i] > hsize_t(std::numeric_limits<int>::max()))
            throw Error(where + " has an extent of " + std::to_string(dims[i]) + "; each must lie in 1 to " +
                        std::to_string(std::numeric_limits<int>::max()));
    detail::checkHdf5Storage(ds.id, checkedProduct({dims[0], dims[1], dims[2]}, where), sizeof(double), where);
    Volume v;
    if (rank == 3) v.nz = int(dims[0]);
    v.ny = int(dims[rank - 2]);
    v.nx = int(dims[rank - 1]);
    const std::size_t bits = H5Tget_size(type.id) * 8;
    v.elementType = (cls == H5T_FLOAT ? "float" : (H5Tget_sign(type.id) == H5T_SGN_NONE ? "uint" : "int")) + std::to_string(bits);
    v.data.resize(v.size());
    if (H5Dread(ds.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data.data()) < 0)
        throw Error("cannot read " + path + ":" + name + " (HDF5 reported a read failure)");
    if (rank == 3) {
        if (readTriple(ds.id, "element_size_um", v.spacing)) {
            v.unit = "micron";
        } else if (readTriple(ds.id, "spacing", v.spacing)) {
            v.unit = readString(ds.id, "unit");
        }
    }
    return v;
}

namespace detail {

void writeHdf5Mask(const std::string& target, const BinaryVolume& v, const std::string& dataset) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    AtomicOutput out(target);
    bool ok = true;
    {
        Id fileCreation{untimedCreation(H5P_FILE_CREATE), H5Pclose};
        Id file{H5Fcreate(out.writePath().c_str(), H5F_ACC_TRUNC, fileCreation.id, H5P_DEFAULT), H5Fclose};
        if (file.id < 0) throw Error("cannot write " + target + " as an HDF5 file");
        const hsize_t dims[3] = {hsize_t(v.nz), hsize_t(v.ny), hsize_t(v.nx)};
        Id space{H5Screate_simple(3, dims, nullptr), H5Sclose};
        Id props{untimedCreation(H5P_DATASET_CREATE), H5Pclose};
        const hsize_t chunk[3] = {1, hsize_t(v.ny), hsize_t(v.nx)};  // one z slice a chunk
        ok = H5Pset_chunk(props.id, 3, chunk) >= 0 && H5Pset_deflate(props.id, 4) >= 0;
        Id ds{ok ? H5Dcreate2(file.id, dataset.c_str(), H5T_STD_U8LE, space.id, H5P_DEFAULT, props.id, H5P_DEFAULT) : -1, H5Dclose};
        ok = ds.id >= 0 && H5Dwrite(ds.id, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.mask.data()) >= 0;
        auto triple = [&](const char* name, const std::array<double, 3>& values) {
            const hsize_t three = 3;
            Id s{H5Screate_simple(1, &three, nullptr), H5Sclose};
            Id a{H5Acreate2(ds.id, name, H5T_IEEE_F64LE, s.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
            return a.id >= 0 && H5Awrite(a.id, H5T_NATIVE_DOUBLE, values.data()) >= 0;
        };
        ok = ok && triple("spacing", v.spacing);
        const double um = micrometresPer(v.unit);
        if (ok && um > 0) ok = triple("element_size_um", {v.spacing[0] * um, v.spacing[1] * um, v.spacing[2] * um});
        if (ok && !v.unit.empty()) {
            Id type{H5Tcopy(H5T_C_S1), H5Tclose};
            H5Tset_size(type.id, v.unit.size() + 1);
            H5Tset_strpad(type.id, H5T_STR_NULLTERM);
            Id s{H5Screate(H5S_SCALAR), H5Sclose};
            Id a{H5Acreate2(ds.id, "unit", type.id, s.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
            ok = a.id >= 0 && H5Awrite(a.id, type.id, v.unit.c_str()) >= 0;
        }
        if (ds.id >= 0) ok = H5Dclose(ds.id) >= 0 && ok;
        ds.id = -1;
        ok = H5Fclose(file.id) >= 0 && ok;
        file.id = -1;
    }
    if (!ok) throw Error("cannot write " + target + " (is the disk full?)");
    out.commit();
}

}  // namespace detail

}  // namespace portacl::io
