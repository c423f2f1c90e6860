#include "portacl/io/hdf5_file.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "io/hdf5_limits.hpp"
#include "io/hdf5_untimed.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::io {
namespace {

// HDF5 prints its error stack to stderr by default; we report our own sentences instead.
void silenceHdf5() {
    static const bool done = [] {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        return true;
    }();
    (void)done;
}

// Closes an HDF5 identifier of any kind when it leaves scope.
class Handle {
public:
    explicit Handle(hid_t id) : id_(id) {}
    ~Handle() {
        if (id_ >= 0) H5Idec_ref(id_);
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    hid_t release() {
        const hid_t id = id_;
        id_ = -1;
        return id;
    }

private:
    hid_t id_;
};

std::string objectPath(const std::string& name) { return name.empty() || name[0] != '/' ? "/" + name : name; }

// HDF5 1.10 crashes in its exit handler when a file failed to close (a full disk): after the failed
// close has been reported, the process must still end with that sentence and its exit status. The
// library's files are all closed explicitly, so its exit-time clean-up is not needed.
const bool hdf5ExitHandlerOff = [] {
    H5dont_atexit();
    return true;
}();

// Elements [first, first + count) of a dataspace of `dims` in C order as one hyperslab, selected in
// `space`: the range must cover whole rows of some axis k (the axes after k whole, and along k one
// stretch inside one row of the axes before it), as a slab of planes does.
void selectRange(hid_t space, const Dims& dims, std::uint64_t first, std::uint64_t count, const std::string& where) {
    const std::size_t rank = dims.size();
    std::uint64_t inner = 1;
    for (std::size_t k = rank; k-- > 0;) {
        if (first % inner == 0 && count % inner == 0) {
            const std::uint64_t a = first / inner, c = count / inner;
            if (a % dims[k] + c <= dims[k]) {
                std::vector<hsize_t> start(rank, 0), extent(dims.begin(), dims.end());
                std::uint64_t outer = a;
                for (std::size_t i = k + 1; i-- > 0;) {
                    start[i] = outer % dims[i];
                    outer /= dims[i];
                    extent[i] = i == k ? c : 1;
                }
                if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr) < 0)
                    throw Error("cannot select elements " + std::to_string(first) + " to " + std::to_string(first + count) + " of " + where);
                return;
            }
        }
        inner *= dims[k];
    }
    throw Error("elements " + std::to_string(first) + " to " + std::to_string(first + count) + " of " + where +
                " are not whole rows of one of its axes");
}

// The creation properties of a new dataset: compression 0 = contiguous, 1-9 = deflate in chunks of
// whole trailing planes, at most about 1 M elements, as k-Wave does for its streams.
hid_t datasetCreation(const Dims& dims, int compression) {
    Handle plist(detail::untimedCreation(H5P_DATASET_CREATE));
    const auto n = elementCount(dims);
    if (compression > 0 && n > 0) {
        std::vector<hsize_t> chunk(dims.begin(), dims.end());
        std::uint64_t size = n;
        for (std::size_t i = 0; i < chunk.size() && size > (1u << 20); ++i) {
            size /= chunk[i];
            chunk[i] = 1;
        }
        H5Pset_chunk(plist.get(), static_cast<int>(chunk.size()), chunk.data());
        H5Pset_deflate(plist.get(), static_cast<unsigned>(std::min(compression, 9)));
    }
    return plist.release();
}

// Elements first .. first + count of a dataset of n elements, or one sentence saying why not.
void checkElementRange(const std::string& where, std::uint64_t n, std::uint64_t first, std::uint64_t count) {
    if (first > n || count > n - first)
        throw Error(where + " has " + std::to_string(n) + " elements, too few for elements " + std::to_string(first) + " to " +
                    std::to_string(first + count));
}

}  // namespace

std::uint64_t elementCount(const Dims& dims) { return checkedProduct(dims.data(), dims.size(), "a dataset of shape " + dimsText(dims)); }

namespace detail {

void checkHdf5Storage(long long dataset, std::uint64_t elements, std::uint64_t memoryElementBytes, const std::string& where) {
    Handle t(H5Dget_type(dataset));
    Handle plist(H5Dget_create_plist(dataset));
    const std::size_t fileElement = t.valid() ? H5Tget_size(t.get()) : 0;
    if (fileElement == 0) throw Error("cannot read the element type of " + where);
    std::uint64_t ratio = 1;  // contiguous or compact: the storage is the data
    const int filters = plist.valid() ? H5Pget_nfilters(plist.get()) : 0;
    for (int i = 0; i < filters; ++i) {
        unsigned flags = 0;
        std::size_t n = 0;
        const H5Z_filter_t f = H5Pget_filter2(plist.get(), unsigned(i), &flags, &n, nullptr, 0, nullptr, nullptr);
        // deflate expands at most 1032 : 1; shuffle and fletcher32 do not expand; any other codec gets a stated 65536.
        const std::uint64_t r = f == H5Z_FILTER_DEFLATE ? kDeflateMaxRatio
                              : (f == H5Z_FILTER_SHUFFLE || f == H5Z_FILTER_FLETCHER32) ? 1 : 65536;
        ratio = std::max(ratio, r);
    }
    if (filters > 1) ratio = std::min<std::uint64_t>(ratio * ratio, 65536ULL * 1032);
    checkDeclaredSize(checkedMul(elements, fileElement, where), H5Dget_storage_size(dataset), ratio, where);
    checkHostAllocation(checkedMul(elements, memoryElementBytes, where), where);
}

}  // namespace detail

std::string dimsText(const Dims& dims) {
    std::ostringstream os;
    os << "(";
    for (std::size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
    os << ")";
    return os.str();
}

Hdf5File Hdf5File::open(const std::string& path, Mode mode) {
    silenceHdf5();
    if (::access(path.c_str(), F_OK) != 0) throw Error("the file " + path + " does not exist");
    if (::access(path.c_str(), R_OK) != 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
    if (H5Fis_hdf5(path.c_str()) <= 0) throw Error("cannot open " + path + " as an HDF5 file");
    const hid_t id = H5Fopen(path.c_str(), mode == Mode::Read ? H5F_ACC_RDONLY : H5F_ACC_RDWR, H5P_DEFAULT);
    if (id < 0) throw Error("cannot open " + path + " as an HDF5 file");
    return Hdf5File(id, path);
}

Hdf5File Hdf5File::create(const std::string& path, const std::string& shownAs) {
    silenceHdf5();
    const std::string name = shownAs.empty() ? path : shownAs;
    Handle creation(detail::untimedCreation(H5P_FILE_CREATE));  // the root group's times
    const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, creation.get(), H5P_DEFAULT);
    if (id < 0) throw Error("cannot create the HDF5 file " + name);
    return Hdf5File(id, name);
}

Hdf5File::Hdf5File(Hdf5File&& o) noexcept : file_(o.file_), path_(std::move(o.path_)) { o.file_ = -1; }

Hdf5File& Hdf5File::operator=(Hdf5File&& o) noexcept {
    if (this != &o) {
        if (file_ >= 0) H5Fclose(file_);
        file_ = o.file_;
        path_ = std::move(o.path_);
        o.file_ = -1;
    }
    return *this;
}

Hdf5File::~Hdf5File() {
    if (file_ >= 0) H5Fclose(file_);
}

void Hdf5File::close() {
    if (file_ < 0) return;
    const herr_t s = H5Fclose(file_);
    file_ = -1;
    if (s < 0) throw Error("cannot close the HDF5 file " + path_);
}

bool Hdf5File::exists(const std::string& name) const {
    const std::string full = objectPath(name);
    // H5Lexists needs every intermediate link to exist, so test the path one component at a time.
    std::size_t pos = 1;
    while (true) {
        const std::size_t next = full.find('/', pos);
        const std::string part = full.substr(0, next);
        if (part.size() > 1 && H5Lexists(file_, part.c_str(), H5P_DEFAULT) <= 0) return false;
        if (next == std::string::npos) return true;
        pos = next + 1;
    }
}

void Hdf5File::createGroup(const std::string& name) {
    if (exists(name)) return;
    Handle creation(detail::untimedCreation(H5P_GROUP_CREATE));
    Handle g(H5Gcreate2(file_, objectPath(name).c_str(), H5P_DEFAULT, creation.get(), H5P_DEFAULT));
    if (!g.valid()) throw Error("cannot create the group " + name + " in " + path_);
}

void Hdf5File::remove(const std::string& name) {
    if (!exists(name) || H5Ldelete(file_, objectPath(name).c_str(), H5P_DEFAULT) < 0)
        throw Error("cannot remove '" + name + "' from " + path_);
}

Dims Hdf5File::dims(const std::string& dataset) const {
    if (!exists(dataset)) throw Error(path_ + " has no dataset '" + dataset + "'");
    Handle d(H5Dopen2(file_, objectPath(dataset).c_str(), H5P_DEFAULT));
    if (!d.valid()) throw Error("'" + dataset + "' in " + path_ + " is not a dataset");
    Handle space(H5Dget_space(d.get()));
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) throw Error("cannot read the shape of '" + dataset + "' in " + path_);
    std::vector<hsize_t> h(static_cast<std::size_t>(rank));
    if (rank > 0 && H5Sget_simple_extent_dims(space.get(), h.data(), nullptr) != rank)
        throw Error("cannot read the shape of '" + dataset + "' in " + path_);
    return Dims(h.begin(), h.end());
}

ElementType Hdf5File::elementType(const std::string& dataset) const {
    if (!exists(dataset)) throw Error(path_ + " has no dataset '" + dataset + "'");
    Handle d(H5Dopen2(file_, objectPath(dataset).c_str(), H5P_DEFAULT));
    Handle t(H5Dget_type(d.get()));
    const H5T_class_t cls = H5Tget_class(t.get());
    const std::size_t size = H5Tget_size(t.get());
    if (cls == H5T_FLOAT) return size == 4 ? ElementType::Float32 : size == 8 ? ElementType::Float64 : ElementType::Other;
    if (cls == H5T_INTEGER && size == 8)
        return H5Tget_sign(t.get()) == H5T_SGN_NONE ? ElementType::UInt64 : ElementType::Int64;
    return ElementType::Other;
}

void Hdf5File::readDataset(const std::string& dataset, long long memType, void* data, std::uint64_t expected,
                           std::size_t count) const {
    if (expected && count != expected)
        throw Error("dataset '" + dataset + "' in " + path_ + " has " + std::to_string(count) +
                    " elements where " + std::to_string(expected) + " are expected");
    Handle d(H5Dopen2(file_, objectPath(dataset).c_str(), H5P_DEFAULT));
    Handle t(H5Dget_type(d.get()));
    const H5T_class_t cls = H5Tget_class(t.get());
    if (cls != H5T_FLOAT && cls != H5T_INTEGER)
        throw Error("dataset '" + dataset + "' in " + path_ + " does not hold numbers");
    if (count && H5Dread(d.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        throw Error("cannot read dataset '" + dataset + "' from " + path_);
}

std::uint64_t Hdf5File::checkedCount(const std::string& dataset, std::uint64_t expected, std::size_t memoryElementBytes) const {
    const auto n = elementCount(dims(dataset));
    if (expected && n != expected)
        throw Error("dataset '" + dataset + "' in " + path_ + " has " + std::to_string(n) + " elements where " +
                    std::to_string(expected) + " are expected");
    Handle d(H5Dopen2(file_, objectPath(dataset).c_str(), H5P_DEFAULT));
    if (!d.valid()) throw Error("'" + dataset + "' in " + path_ + " is not a dataset");
    detail::checkHdf5Storage(d.get(), n, memoryElementBytes, "dataset '" + dataset + "' in " + path_);
    return n;
}

std::vector<float> Hdf5File::readFloat(const std::string& dataset, std::uint64_t expectedCount) const {
    const auto n = checkedCount(dataset, expectedCount, sizeof(float));
    std::vector<float> v(n);
    readDataset(dataset, H5T_NATIVE_FLOAT, v.data(), expectedCount, n);
    return v;
}

std::vector<double> Hdf5File::readDouble(const std::string& dataset, std::uint64_t expectedCount) const {
    const auto n = checkedCount(dataset, expectedCount, sizeof(double));
    std::vector<double> v(n);
    readDataset(dataset, H5T_NATIVE_DOUBLE, v.data(), expectedCount, n);
    return v;
}

std::vector<std::uint64_t> Hdf5File::readUInt64(const std::string& dataset, std::uint64_t expectedCount) const {
    const auto n = checkedCount(dataset, expectedCount, sizeof(std::uint64_t));
    std::vector<std::uint64_t> v(n);
    readDataset(dataset, H5T_NATIVE_UINT64, v.data(), expectedCount, n);
    return v;
}

std::vector<float> Hdf5File::readFloatRange(const std::string& dataset, std::uint64_t first, std::uint64_t count) const {
    const Dims shape = dims(dataset);
    const std::string where = "dataset '" + dataset + "' in " + path_;
    const auto n = elementCount(shape);
    checkElementRange(where, n, first, count);
    Handle d(H5Dopen2(file_, objectPath(dataset).c_str(), H5P_DEFAULT));
    if (!d.valid()) throw Error("'" + dataset + "' in " + path_ + " is not a dataset");
    detail::checkHdf5Storage(d.get(), n, 0, where);
    checkHostAllocation(checkedMul(count, sizeof(float), where), where);
    Handle t(H5Dget_type(d.get()));
    const H5T_class_t cls = H5Tget_class(t.get());
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) throw Error(where + " does not hold numbers");
    std::vector<float> v(count);
    if (!count) return v;
    Handle space(H5Dget_space(d.get()));
    selectRange(space.get(), shape, first, count, where);
    const hsize_t memCount = count;
    Handle mem(H5Screate_simple(1, &memCount, nullptr));
    if (H5Dread(d.get(), H5T_NATIVE_FLOAT, mem.get(), space.get(), H5P_DEFAULT, v.data()) < 0)
        throw Error("cannot read " + where);
    return v;
}

double Hdf5File::readScalar(const std::string& dataset) const {
    if (elementCount(dims(dataset)) != 1)
        throw Error("dataset '" + dataset + "' in " + path_ + " should be a scalar but has shape " + dimsText(dims(dataset)));
    const auto v = readDouble(dataset);
    if (v.size() != 1)
        throw Error("dataset '" + dataset + "' in " + path_ + " should be a scalar but has shape " + dimsText(dims(dataset)));
    return v[0];
}

std::uint64_t Hdf5File::readScalarUInt64(const std::string& dataset) const {
    if (elementCount(dims(dataset)) != 1)
        throw Error("dataset '" + dataset + "' in " + path_ + " should be a scalar but has shape " + dimsText(dims(dataset)));
    const auto v = readUInt64(dataset);
    if (v.size() != 1)
        throw Error("dataset '" + dataset + "' in " + path_ + " should be a scalar but has shape " + dimsText(dims(dataset)));
    return v[0];
}

void Hdf5File::writeDataset(const std::string& dataset, const Dims& dims, long long memType, long long fileType,
                            const void* data, int compression) {
    std::vector<hsize_t> h(dims.begin(), dims.end());
    Handle space(H5Screate_simple(static_cast<int>(h.size()), h.data(), nullptr));
    Handle plist(datasetCreation(dims, compression));
    const auto n = elementCount(dims);
    Handle d(H5Dcreate2(file_, objectPath(dataset).c_str(), fileType, space.get(), H5P_DEFAULT, plist.get(),
                        H5P_DEFAULT));
    if (!d.valid()) throw Error("cannot create dataset '" + dataset + "' in " + path_);
    if (n && H5Dwrite(d.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        throw Error("cannot write dataset '" + dataset + "' to " + path_ + " (disk full?)");
    // Closing flushes the dataset's buffered data: a failure here is a failed write too.
    if (H5Dclose(d.release()) < 0) throw Error("cannot write dataset '" + dataset + "' to " + path_ + " (disk full?)");
}

void Hdf5File::createFloat(const std::string& dataset, const Dims& dims, int compression) {
    std::vector<hsize_t> h(dims.begin(), dims.end());
    Handle space(H5Screate_simple(static_cast<int>(h.size()), h.data(), nullptr));
    Handle plist(datasetCreation(dims, compression));
    Handle d(H5Dcreate2(file_, objectPath(dataset).c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT));
    if (!d.valid()) throw Error("cannot create dataset '" + dataset + "' in " + path_);
    if (H5Dclose(d.release()) < 0) throw Error("cannot write dataset '" + dataset + "' to " + path_ + " (disk full?)");
}

void Hdf5File::writeFloatRange(const std::string& dataset, std::uint64_t first, std::uint64_t count, const float* data) {
    const Dims shape = dims(dataset);
    const std::string where = "dataset '" + dataset + "' in " + path_;
    const auto n = elementCount(shape);
    checkElementRange(where, n, first, count);
    if (!count) return;
    Handle d(H5Dopen2(file_, objectPath(dataset).c_str(), H5P_DEFAULT));
    if (!d.valid()) throw Error("'" + dataset + "' in " + path_ + " is not a dataset");
    Handle space(H5Dget_space(d.get()));
    selectRange(space.get(), shape, first, count, where);
    const hsize_t memCount = count;
    Handle mem(H5Screate_simple(1, &memCount, nullptr));
    if (H5Dwrite(d.get(), H5T_NATIVE_FLOAT, mem.get(), space.get(), H5P_DEFAULT, data) < 0)
        throw Error("cannot write " + where + " (disk full?)");
    if (H5Dclose(d.release()) < 0) throw Error("cannot write " + where + " (disk full?)");
}

void Hdf5File::writeFloat(const std::string& dataset, const Dims& dims, const float* data, int compression) {
    writeDataset(dataset, dims, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, data, compression);
}
void Hdf5File::writeDouble(const std::string& dataset, const Dims& dims, const double* data, int compression) {
    writeDataset(dataset, dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, data, compression);
}
void Hdf5File::writeUInt64(const std::string& dataset, const Dims& dims, const std::uint64_t* data, int compression) {
    writeDataset(dataset, dims, H5T_NATIVE_UINT64, H5T_STD_U64LE, data, compression);
}

void Hdf5File::writeUInt32(const std::string& dataset, const Dims& dims, const std::uint32_t* data, int compression) {
    writeDataset(dataset, dims, H5T_NATIVE_UINT32, H5T_STD_U32LE, data, compression);
}
void Hdf5File::writeInt64(const std::string& dataset, const Dims& dims, const std::int64_t* data, int compression) {
    writeDataset(dataset, dims, H5T_NATIVE_INT64, H5T_STD_I64LE, data, compression);
}

bool Hdf5File::hasAttribute(const std::string& object, const std::string& attribute) const {
    if (!exists(object)) return false;
    return H5Aexists_by_name(file_, objectPath(object).c_str(), attribute.c_str(), H5P_DEFAULT) > 0;
}

std::string Hdf5File::readStringAttribute(const std::string& object, const std::string& attribute) const {
    if (!hasAttribute(object, attribute))
        throw Error(path_ + " has no attribute '" + attribute + "'" + (object == "/" ? "" : " on '" + object + "'"));
    Handle a(H5Aopen_by_name(file_, objectPath(object).c_str(), attribute.c_str(), H5P_DEFAULT, H5P_DEFAULT));
    Handle t(H5Aget_type(a.get()));
    if (H5Tget_class(t.get()) != H5T_STRING)
        throw Error("attribute '" + attribute + "' in " + path_ + " is not a string");
    // One string is read: an attribute holding several would overrun the buffer for it.
    Handle space(H5Aget_space(a.get()));
    if (H5Sget_simple_extent_npoints(space.get()) != 1)
        throw Error("attribute '" + attribute + "' in " + path_ + " holds " + std::to_string(H5Sget_simple_extent_npoints(space.get())) +
                    " strings, not one");
    std::string value;
    if (H5Tis_variable_str(t.get()) > 0) {
        Handle mem(H5Tcopy(H5T_C_S1));
        H5Tset_size(mem.get(), H5T_VARIABLE);
        char* s = nullptr;
        if (H5Aread(a.get(), mem.get(), &s) < 0) throw Error("cannot read attribute '" + attribute + "' in " + path_);
        if (s) value = s;
        H5free_memory(s);
    } else {
        const std::size_t size = H5Tget_size(t.get());
        std::vector<char> buf(size + 1, '\0');
        Handle mem(H5Tcopy(H5T_C_S1));
        H5Tset_size(mem.get(), size);
        H5Tset_strpad(mem.get(), H5Tget_strpad(t.get()));
        if (H5Aread(a.get(), mem.get(), buf.data()) < 0)
            throw Error("cannot read attribute '" + attribute + "' in " + path_);
        value.assign(buf.data(), strnlen(buf.data(), size));
    }
    return value;
}

void Hdf5File::writeStringAttribute(const std::string& object, const std::string& attribute, const std::string& value) {
    const std::string obj = objectPath(object);
    if (H5Aexists_by_name(file_, obj.c_str(), attribute.c_str(), H5P_DEFAULT) > 0)
        H5Adelete_by_name(file_, obj.c_str(), attribute.c_str(), H5P_DEFAULT);
    // The layout of H5LTset_attribute_string: fixed length len+1, NUL-terminated, ASCII, scalar space.
    Handle t(H5Tcopy(H5T_C_S1));
    H5Tset_size(t.get(), value.size() + 1);
    H5Tset_strpad(t.get(), H5T_STR_NULLTERM);
    H5Tset_cset(t.get(), H5T_CSET_ASCII);
    Handle space(H5Screate(H5S_SCALAR));
    Handle a(H5Acreate_by_name(file_, obj.c_str(), attribute.c_str(), t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT));
    if (!a.valid() || H5Awrite(a.get(), t.get(), value.c_str()) < 0)
        throw Error("cannot write attribute '" + attribute + "' to " + path_);
}

namespace {

// A scalar numeric attribute: `fileType` on disk, `memType` in memory; replaces one of the same name.
void writeNumberAttribute(hid_t file, const std::string& path, const std::string& object, const std::string& attribute,
                          hid_t memType, hid_t fileType, const void* value) {
    const std::string obj = objectPath(object);
    if (H5Aexists_by_name(file, obj.c_str(), attribute.c_str(), H5P_DEFAULT) > 0)
        H5Adelete_by_name(file, obj.c_str(), attribute.c_str(), H5P_DEFAULT);
    Handle space(H5Screate(H5S_SCALAR));
    Handle a(H5Acreate_by_name(file, obj.c_str(), attribute.c_str(), fileType, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT));
    if (!a.valid() || H5Awrite(a.get(), memType, value) < 0)
        throw Error("cannot write attribute '" + attribute + "' to " + path);
}

void readNumberAttribute(hid_t file, const std::string& path, const std::string& object, const std::string& attribute,
                         hid_t memType, void* value) {
    Handle a(H5Aopen_by_name(file, objectPath(object).c_str(), attribute.c_str(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a.valid()) throw Error(path + " has no attribute '" + attribute + "'" + (object == "/" ? "" : " on '" + object + "'"));
    Handle t(H5Aget_type(a.get()));
    Handle space(H5Aget_space(a.get()));
    const H5T_class_t cls = H5Tget_class(t.get());
    if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || H5Sget_simple_extent_npoints(space.get()) != 1)
        throw Error("attribute '" + attribute + "' in " + path + " is not a single number");
    if (H5Aread(a.get(), memType, value) < 0) throw Error("cannot read attribute '" + attribute + "' in " + path);
}

}  // namespace

void Hdf5File::writeDoubleAttribute(const std::string& object, const std::string& attribute, double value) {
    writeNumberAttribute(file_, path_, object, attribute, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &value);
}
void Hdf5File::writeInt64Attribute(const std::string& object, const std::string& attribute, std::int64_t value) {
    writeNumberAttribute(file_, path_, object, attribute, H5T_NATIVE_INT64, H5T_STD_I64LE, &value);
}
double Hdf5File::readDoubleAttribute(const std::string& object, const std::string& attribute) const {
    double v = 0;
    readNumberAttribute(file_, path_, object, attribute, H5T_NATIVE_DOUBLE, &v);
    return v;
}
std::int64_t Hdf5File::readInt64Attribute(const std::string& object, const std::string& attribute) const {
    std::int64_t v = 0;
    readNumberAttribute(file_, path_, object, attribute, H5T_NATIVE_INT64, &v);
    return v;
}

}  // namespace portacl::io
