#include "kwave_datasets.hpp"

namespace portacl::kwave {

namespace {
void markReal(io::Hdf5File& f, const std::string& name, const char* type) {
    f.writeStringAttribute(name, "data_type", type);
    f.writeStringAttribute(name, "domain_type", "real");
}
}  // namespace

void putU64(io::Hdf5File& f, const std::string& name, std::uint64_t v) {
    f.writeUInt64(name, {1, 1, 1}, &v);
    markReal(f, name, "long");
}

void putFloat(io::Hdf5File& f, const std::string& name, double v) {
    const float x = static_cast<float>(v);
    f.writeFloat(name, {1, 1, 1}, &x);
    markReal(f, name, "float");
}

void putFloats(io::Hdf5File& f, const std::string& name, const io::Dims& dims, const std::vector<float>& v,
               int compression) {
    f.writeFloat(name, dims, v, compression);
    markReal(f, name, "float");
}

void putFloats(io::Hdf5File& f, const std::string& name, const io::Dims& dims, const std::vector<double>& v,
               int compression) {
    putFloats(f, name, dims, std::vector<float>(v.begin(), v.end()), compression);
}

void createFloats(io::Hdf5File& f, const std::string& name, const io::Dims& dims, int compression) {
    f.createFloat(name, dims, compression);
    markReal(f, name, "float");
}

void putIndices(io::Hdf5File& f, const std::string& name, const io::Dims& dims, std::vector<std::uint64_t> zeroBased) {
    for (auto& i : zeroBased) ++i;
    f.writeUInt64(name, dims, zeroBased);
    markReal(f, name, "long");
}

}  // namespace portacl::kwave
