// libFuzzer harness: reconstruction targets, the descriptor files of `portacl lineal-path -o`
// (host/lineal_path/anneal.cpp targetFromFile). A valid 16x16 target is written, the fuzzer's
// edits change /L, /S2 and the shape, max_length and periodic attributes (fuzz/hdf5_edits.hpp).
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "hdf5_edits.hpp"
#include "portacl/lineal_path/reconstruct.hpp"
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
        const hsize_t dims[2] = {3, 3};
        const double L[9] = {0.4, 0.45, 0.4, 0.45, 0.5, 0.45, 0.4, 0.45, 0.4};
        for (const char* name : {"L", "S2"}) {
            const hid_t space = H5Screate_simple(2, dims, nullptr);
            const hid_t d = H5Dcreate2(f, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, L);
            H5Dclose(d);
            H5Sclose(space);
        }
        fuzz::setStringAttribute(f, "shape", "16x16", 1);
        fuzz::setStringAttribute(f, "max_length", "1", 1);
        fuzz::setStringAttribute(f, "periodic", "true", 1);
        H5Fclose(f);
    }
    const double s2Weight = in.ConsumeBool() ? 1.0 : 0.0;
    fuzz::applyEdits(file.path(), in, {"L", "S2"}, {"shape", "max_length", "periodic"});
    try {
        lineal::targetFromFile(file.path(), s2Weight);
    } catch (const Error&) {
    }
    return 0;
}
