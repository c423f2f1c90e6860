// The input of the volume commands (box-count, skeleton): a volume file, an HDF5 dataset, and how
// it becomes a binary object (--threshold, --label, or its non-zero voxels).
#pragma once

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "portacl/io/binary_volume.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::cli {

struct VolumeInputOptions {
    std::string path, dataset;
    std::vector<std::string> paths;  // every input named: several, or a folder, make a batch
    double threshold = 0, label = 0;

    void add(po::options_description& desc) {
        desc.add_options()("input", po::value(&paths)->composing(), "volume: multi-page TIFF, .npy, NIfTI (.nii, .nii.gz) or HDF5 (.h5) dataset; several, or a folder, with -o OUTDIR: a batch over the devices")(
            "dataset", po::value(&dataset), "HDF5 dataset to read (default: the file's only dataset)")(
            "threshold", po::value(&threshold), "the object: voxels >= this value")(
            "label", po::value(&label), "the object: voxels equal to this label (default: every non-zero voxel)");
    }
    io::Binarisation binarisation(const po::variables_map& vm) const {
        if (vm.count("threshold") && vm.count("label")) throw Error("choose the object with at most one of --threshold and --label");
        io::Binarisation b;
        if (vm.count("threshold")) b = {io::Binarisation::Rule::Threshold, threshold};
        if (vm.count("label")) b = {io::Binarisation::Rule::Label, label};
        return b;
    }
    // After parsing: `path` is the one input (the first of several).
    void resolve() { path = paths.empty() ? "" : paths.front(); }
    // Several inputs, or a folder of them.
    bool isBatch() const { return paths.size() > 1 || (paths.size() == 1 && std::filesystem::is_directory(paths[0])); }
    // The volume files of a batch: the files named, or those of the folder (sorted).
    static const std::vector<std::string>& volumeExtensions() {
        static const std::vector<std::string> e = {".tif", ".tiff", ".npy", ".nii", ".gz", ".h5", ".hdf5"};
        return e;
    }
    std::string describe(const po::variables_map& vm) const { return binarisation(vm).describe(); }
    // "voxel size (z, y, x) 2.5 x 0.5 x 0.5 micron", or "" for unit voxels of no named unit.
    static std::string voxelSize(const io::BinaryVolume& v) {
        if (v.spacing == std::array<double, 3>{1.0, 1.0, 1.0} && v.unit.empty()) return "";
        std::ostringstream s;
        s << "voxel size (z, y, x) " << v.spacing[0] << " x " << v.spacing[1] << " x " << v.spacing[2];
        if (!v.unit.empty()) s << " " << v.unit;
        return s.str();
    }
    // Reads and binarises, refusing a 2-D image and a selection that is empty (or, unless allowFull, everything).
    io::BinaryVolume read(const po::variables_map& vm, bool allowFull) const {
        if (path.empty()) throw Error("name the input volume");
        return readFile(path, vm, allowFull);
    }
    io::BinaryVolume readFile(const std::string& file, const po::variables_map& vm, bool allowFull) const {
        const io::Binarisation b = binarisation(vm);
        return io::binarise(io::readVolume(file, dataset), b, allowFull);
    }
};

}  // namespace portacl::cli
