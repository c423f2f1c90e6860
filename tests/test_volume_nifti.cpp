// NIfTI volumes: a NIfTI-1 file written here byte by byte (header fields at the offsets of the
// NIfTI-1 standard) reads back with its values, its scaling and its spacing, also gzipped; a
// 4-D series, a truncated file and a file that is no NIfTI are refused in one sentence.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "portacl/io/binary_volume.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"

namespace {

// A single-file NIfTI-1 (.nii) of int16 values, little-endian; dims {nx, ny, nz[, nt]}.
void writeNifti1(const std::string& path, std::vector<std::int16_t> dims, const std::vector<std::int16_t>& values,
                 float dx, float dy, float dz, float slope, float inter, std::size_t keepBytes = SIZE_MAX) {
    std::vector<char> h(352, 0);
    auto put = [&](std::size_t off, const void* v, std::size_t n) { std::memcpy(h.data() + off, v, n); };
    const std::int32_t sizeofHdr = 348;
    put(0, &sizeofHdr, 4);
    std::int16_t dim[8] = {std::int16_t(dims.size()), 1, 1, 1, 1, 1, 1, 1};
    for (std::size_t i = 0; i < dims.size(); ++i) dim[i + 1] = dims[i];
    put(40, dim, 16);
    const std::int16_t datatype = 4, bitpix = 16;  // DT_INT16
    put(70, &datatype, 2);
    put(72, &bitpix, 2);
    const float pixdim[8] = {1, dx, dy, dz, 1, 1, 1, 1};
    put(76, pixdim, 32);
    const float voxOffset = 352;
    put(108, &voxOffset, 4);
    put(112, &slope, 4);
    put(116, &inter, 4);
    put(344, "n+1\0", 4);
    std::string bytes(h.begin(), h.end());
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * 2);
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(std::min(keepBytes, bytes.size())));
}

struct TempDir {
    std::filesystem::path p = std::filesystem::temp_directory_path() / ("portacl_nifti_" + std::to_string(getpid()));
    TempDir() { std::filesystem::create_directories(p); }
    ~TempDir() { std::filesystem::remove_all(p); }
    std::string at(const std::string& name) const { return (p / name).string(); }
};

}  // namespace

TEST(VolumeNifti, ValuesScalingAndSpacing) {
    TempDir dir;
    std::vector<std::int16_t> values(4 * 3 * 2);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::int16_t(i * 3 - 20);
    writeNifti1(dir.at("v.nii"), {4, 3, 2}, values, 0.5f, 0.25f, 2.0f, 2.0f, 1.0f);
    const auto v = portacl::io::readVolume(dir.at("v.nii"));
    EXPECT_EQ(v.nz, 2);
    EXPECT_EQ(v.ny, 3);
    EXPECT_EQ(v.nx, 4);
    EXPECT_EQ(v.elementType, "int16");
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(v.data[i], 2.0 * values[i] + 1.0);  // x fastest, as C order
    EXPECT_EQ(v.spacing, (std::array<double, 3>{2.0, 0.25, 0.5}));
    const auto b = portacl::io::binarise(v, {portacl::io::Binarisation::Rule::Threshold, 0});
    EXPECT_EQ(b.spacing, v.spacing);

    ASSERT_EQ(std::system(("gzip -k " + dir.at("v.nii")).c_str()), 0);
    const auto g = portacl::io::readVolume(dir.at("v.nii.gz"));
    EXPECT_EQ(g.data, v.data);
}

TEST(VolumeNifti, RefusesWhatIsNotOneVolume) {
    TempDir dir;
    writeNifti1(dir.at("series.nii"), {2, 2, 2, 3}, std::vector<std::int16_t>(24, 1), 1, 1, 1, 0, 0);
    EXPECT_THROW(portacl::io::readVolume(dir.at("series.nii")), portacl::Error);
    writeNifti1(dir.at("short.nii"), {8, 8, 8}, std::vector<std::int16_t>(512, 1), 1, 1, 1, 0, 0, 352 + 100);
    EXPECT_THROW(portacl::io::readVolume(dir.at("short.nii")), portacl::Error);
    std::ofstream(dir.at("text.nii")) << "not a NIfTI file at all";
    EXPECT_THROW(portacl::io::readVolume(dir.at("text.nii")), portacl::Error);
}
