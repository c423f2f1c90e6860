// libFuzzer harness: volumes from HDF5 datasets (host/io/volume_io_hdf5.cpp). A file with one
// small valid dataset is written, the fuzzer's edits replace or remove it or add others
// (fuzz/hdf5_edits.hpp), and the reader is asked for it by name and as the file's only dataset.
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "hdf5_edits.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"

using namespace portacl;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::limitHostMemory();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const fuzz::InputFile file(nullptr, 0, ".h5");
    {
        const hid_t f = H5Fcreate(file.path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[2] = {4, 5};
        const double values[20] = {};
        const hid_t space = H5Screate_simple(2, dims, nullptr);
        const hid_t d = H5Dcreate2(f, "volume", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
        H5Dclose(d);
        H5Sclose(space);
        H5Fclose(f);
    }
    fuzz::applyEdits(file.path(), in, {"volume", "other"}, {});
    for (const char* name : {"volume", ""}) {
        try {
            io::readHdf5Dataset(file.path(), name);
        } catch (const Error&) {
        }
    }
    return 0;
}
