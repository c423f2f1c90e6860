// Structured fuzzing of the HDF5 readers: a valid file is written first, then the fuzzer's bytes
// choose edits to it (a dataset replaced by one of another type, rank, extents or storage, removed,
// or given other attributes; root attributes changed). Raw byte mutations of HDF5 files would
// mostly exercise libhdf5's own parser; these edits reach the project's checks of what a
// well-formed file declares.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace portacl::fuzz {

inline hsize_t pickExtent(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegralInRange(0, 5)) {
        case 0: return 0;
        case 1: return 1;
        case 2: return in.ConsumeIntegralInRange<hsize_t>(2, 64);
        case 3: return hsize_t(1) << in.ConsumeIntegralInRange(6, 62);
        case 4: return in.ConsumeIntegral<std::uint32_t>();
        default: return in.ConsumeIntegral<std::uint64_t>();
    }
}

inline void setStringAttribute(hid_t object, const char* name, const std::string& value, hsize_t copies) {
    if (H5Aexists(object, name) > 0) H5Adelete(object, name);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, value.size() + 1);
    const hid_t space = copies == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &copies, nullptr);
    const hid_t a = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        std::vector<char> buf((value.size() + 1) * copies, '\0');
        for (hsize_t i = 0; i < copies; ++i) std::memcpy(buf.data() + i * (value.size() + 1), value.data(), value.size());
        H5Awrite(a, type, buf.data());
        H5Aclose(a);
    }
    H5Sclose(space);
    H5Tclose(type);
}

// Replaces `name` by a dataset the fuzzer describes.
inline void replaceDataset(hid_t file, const std::string& name, FuzzedDataProvider& in) {
    if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) H5Ldelete(file, name.c_str(), H5P_DEFAULT);
    static const hid_t* types[] = {&H5T_IEEE_F32LE_g, &H5T_IEEE_F64LE_g, &H5T_STD_U64LE_g, &H5T_STD_I64LE_g, &H5T_STD_I32LE_g};
    const bool text = in.ConsumeIntegralInRange(0, 9) == 0;
    hid_t type = text ? H5Tcopy(H5T_C_S1) : H5Tcopy(*types[in.ConsumeIntegralInRange(0, 4)]);
    if (text) H5Tset_size(type, 8);
    const int rank = in.ConsumeIntegralInRange(0, 4);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    hsize_t count = 1;
    bool overflow = false;
    for (auto& d : dims) {
        d = pickExtent(in);
        if (d && count > (hsize_t(1) << 40) / d) overflow = true;
        count *= d ? d : 1;
    }
    const hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims.data(), nullptr);
    const hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
    const bool small = !overflow && count <= 4096;
    if (!small && rank > 0) {  // large: chunked and never written, so the file holds none of it
        std::vector<hsize_t> chunk(dims.size(), 1);
        H5Pset_chunk(plist, rank, chunk.data());
        if (in.ConsumeBool()) H5Pset_deflate(plist, 1);
    }
    const hid_t d = H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, plist, H5P_DEFAULT);
    if (d >= 0) {
        if (small) {
            std::vector<std::uint8_t> bytes(std::size_t(count) * H5Tget_size(type));
            const std::vector<std::uint8_t> given = in.ConsumeBytes<std::uint8_t>(bytes.size());
            if (!given.empty()) std::memcpy(bytes.data(), given.data(), given.size());
            H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
        }
        const char* dataTypes[] = {"float", "long", "double", ""};
        setStringAttribute(d, "data_type", dataTypes[in.ConsumeIntegralInRange(0, 3)], 1);
        setStringAttribute(d, "domain_type", in.ConsumeBool() ? "real" : "complex", 1);
        H5Dclose(d);
    }
    H5Pclose(plist);
    H5Sclose(space);
    H5Tclose(type);
}

// Up to eight edits of the datasets in `names` and of the root attributes in `rootAttributes`.
inline void applyEdits(const std::string& path, FuzzedDataProvider& in, const std::vector<std::string>& names,
                       const std::vector<std::string>& rootAttributes) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (file < 0) return;
    const int edits = in.ConsumeIntegralInRange(0, 8);
    for (int e = 0; e < edits && in.remaining_bytes(); ++e) {
        const std::string& name = names[in.ConsumeIntegralInRange<std::size_t>(0, names.size() - 1)];
        switch (in.ConsumeIntegralInRange(0, 4)) {
            case 0:
                if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) H5Ldelete(file, name.c_str(), H5P_DEFAULT);
                break;
            case 1:
            case 2: replaceDataset(file, name, in); break;
            case 3: {
                const hid_t d = H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0 ? H5Dopen2(file, name.c_str(), H5P_DEFAULT) : -1;
                if (d >= 0) {
                    setStringAttribute(d, in.ConsumeBool() ? "data_type" : "domain_type", in.ConsumeRandomLengthString(12),
                                       in.ConsumeIntegralInRange<hsize_t>(1, 3));
                    H5Dclose(d);
                }
                break;
            }
            default:
                if (!rootAttributes.empty()) {
                    const std::string& a = rootAttributes[in.ConsumeIntegralInRange<std::size_t>(0, rootAttributes.size() - 1)];
                    setStringAttribute(file, a.c_str(), in.ConsumeRandomLengthString(16), in.ConsumeIntegralInRange<hsize_t>(1, 3));
                }
        }
    }
    H5Fclose(file);
}

}  // namespace portacl::fuzz
