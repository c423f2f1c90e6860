// A small RAII wrapper over the HDF5 C API: open or create a file, read and write float, double and
// uint64 datasets with their dimensions, groups, and fixed-length string attributes in the layout
// H5LTset_attribute_string produces (H5T_C_S1, NUL-terminated, ASCII), which k-Wave reads.
// Every failure raises portacl::Error with one sentence naming the file and the object.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace portacl::io {

// Dimensions in HDF5 (C) order: the last varies fastest.
using Dims = std::vector<std::uint64_t>;

PORTACL_API std::uint64_t elementCount(const Dims& dims);
PORTACL_API std::string dimsText(const Dims& dims);  // "(1, 24, 32)"

enum class ElementType { Float32, Float64, UInt64, Int64, Other };

class PORTACL_API Hdf5File {
public:
    enum class Mode { Read, ReadWrite };

    // Opens an existing file. Throws "cannot open <path> as an HDF5 file" when it is not one.
    static Hdf5File open(const std::string& path, Mode mode = Mode::Read);
    // Creates (truncates) a file. Messages name it `shownAs` when given (the final name of a file
    // written under a temporary name).
    static Hdf5File create(const std::string& path, const std::string& shownAs = "");

    Hdf5File() = default;
    Hdf5File(Hdf5File&& o) noexcept;
    Hdf5File& operator=(Hdf5File&& o) noexcept;
    Hdf5File(const Hdf5File&) = delete;
    Hdf5File& operator=(const Hdf5File&) = delete;
    ~Hdf5File();

    const std::string& path() const { return path_; }
    bool isOpen() const { return file_ >= 0; }
    void close();  // flushes and closes; throws when HDF5 reports a failure

    // Names are paths from the root ("p", "/p/1"). Groups are created one level at a time.
    bool exists(const std::string& name) const;
    void createGroup(const std::string& name);
    void remove(const std::string& name);  // unlinks a dataset or group

    Dims dims(const std::string& dataset) const;           // throws naming the dataset when missing
    ElementType elementType(const std::string& dataset) const;

    // Whole-dataset reads converted to the requested type by HDF5; `expectedCount` (when nonzero)
    // is checked against the element count with a sentence naming the dataset.
    std::vector<float> readFloat(const std::string& dataset, std::uint64_t expectedCount = 0) const;
    std::vector<double> readDouble(const std::string& dataset, std::uint64_t expectedCount = 0) const;
    std::vector<std::uint64_t> readUInt64(const std::string& dataset, std::uint64_t expectedCount = 0) const;
    // Elements [first, first + count) of the dataset in C order, read as one hyperslab: the range
    // must be whole rows of some axis (a slab of planes of the slowest axis is). The file's storage
    // is checked as for a whole read, the host's memory against `count` elements only.
    std::vector<float> readFloatRange(const std::string& dataset, std::uint64_t first, std::uint64_t count) const;
    // A (1,1,1) scalar; throws when the dataset has more than one element.
    double readScalar(const std::string& dataset) const;
    std::uint64_t readScalarUInt64(const std::string& dataset) const;

    // Writes a new dataset (it must not exist). compression 0 = contiguous, 1-9 = deflate in chunks.
    void writeFloat(const std::string& dataset, const Dims& dims, const float* data, int compression = 0);
    void writeDouble(const std::string& dataset, const Dims& dims, const double* data, int compression = 0);
    void writeUInt64(const std::string& dataset, const Dims& dims, const std::uint64_t* data, int compression = 0);
    void writeUInt32(const std::string& dataset, const Dims& dims, const std::uint32_t* data, int compression = 0);
    void writeInt64(const std::string& dataset, const Dims& dims, const std::int64_t* data, int compression = 0);
    void writeFloat(const std::string& dataset, const Dims& dims, const std::vector<float>& data, int compression = 0) {
        writeFloat(dataset, dims, data.data(), compression);
    }
    void writeUInt64(const std::string& dataset, const Dims& dims, const std::vector<std::uint64_t>& data, int compression = 0) {
        writeUInt64(dataset, dims, data.data(), compression);
    }

    // A float dataset written by parts: created with its shape (chunked as writeFloat chunks it),
    // then each range of elements, as readFloatRange's, written with writeFloatRange.
    void createFloat(const std::string& dataset, const Dims& dims, int compression = 0);
    void writeFloatRange(const std::string& dataset, std::uint64_t first, std::uint64_t count, const float* data);

    // String attributes on an object ("/" for the root group, or a dataset or group name).
    bool hasAttribute(const std::string& object, const std::string& attribute) const;
    std::string readStringAttribute(const std::string& object, const std::string& attribute) const;
    void writeStringAttribute(const std::string& object, const std::string& attribute, const std::string& value);
    // Scalar numeric attributes (stored as float64 and int64; reads convert).
    void writeDoubleAttribute(const std::string& object, const std::string& attribute, double value);
    void writeInt64Attribute(const std::string& object, const std::string& attribute, std::int64_t value);
    double readDoubleAttribute(const std::string& object, const std::string& attribute) const;
    std::int64_t readInt64Attribute(const std::string& object, const std::string& attribute) const;

private:
    explicit Hdf5File(long long id, std::string path) : file_(id), path_(std::move(path)) {}
    void writeDataset(const std::string& dataset, const Dims& dims, long long memType, long long fileType,
                      const void* data, int compression);
    // The dataset's element count, checked against `expected` (when nonzero), the file's storage for
    // it and the host's memory (at memoryElementBytes an element) before anything is allocated.
    std::uint64_t checkedCount(const std::string& dataset, std::uint64_t expected, std::size_t memoryElementBytes) const;
    void readDataset(const std::string& dataset, long long memType, void* data, std::uint64_t expected,
                     std::size_t count) const;

    long long file_ = -1;  // hid_t
    std::string path_;
};

}  // namespace portacl::io
