// Volumes from HDF5 datasets through the HDF5 C API: any integer or float dataset of rank 2 or 3,
// converted to double by the library.
#include <hdf5.h>

#include <limits>
#include <vector>

#include "io/hdf5_limits.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

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
    return v;
}

}  // namespace portacl::io
