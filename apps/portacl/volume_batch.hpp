// A batch of the volume commands (skeleton, box-count): the volume files of a folder (sorted) or
// those named, each with its output OUTDIR/<name>.<ext>, all checked before any work; HDF5 volumes
// read one at a time (the HDF5 library is not thread-safe), the others at once.
#pragma once

#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "file_batch.hpp"
#include "volume_input.hpp"

namespace portacl::cli {

class VolumeBatch {
public:
    VolumeBatch(const VolumeInputOptions& in, const po::variables_map& vm, const std::string& outDir, const std::string& ext)
        : in_(in), vm_(vm) {
        inputs = listBatchInputs(in.paths, VolumeInputOptions::volumeExtensions(), "volume file (.tif .npy .nii .nii.gz .h5)");
        for (const auto& f : inputs) outputs.push_back(batchOutputPath(outDir, f, ext));
        checkBatchOutputs(outDir, inputs, outputs);
        (void)in.binarisation(vm);  // --threshold and --label together: refused before any work
    }

    std::vector<std::string> inputs, outputs;

    // The batch of `inputs` for runFileBatch, its compute still to set.
    FileBatch fileBatch(bool serial) const {
        FileBatch fb;
        fb.items = inputs.size();
        fb.itemName = [this](std::size_t i) { return "'" + inputs[i] + "'"; };
        fb.noun = "volumes";
        fb.serial = serial;
        fb.outputs = outputs;
        return fb;
    }
    // Runs the batch and prints each volume's line, in input order (on rank 0 under mpirun).
    static void run(const FileBatch& fb, const CommonOptions& common, const BatchCliOptions& batch) {
        if (const auto lines = runFileBatch(fb, common, batch))
            for (const auto& l : *lines) std::cout << l;
    }
    io::BinaryVolume read(std::size_t i) {
        const auto turn = hdf5TurnFor(inputs[i]);
        PhaseScope reading(BatchPhase::Read);
        return in_.readFile(inputs[i], vm_, false);
    }

private:
    const VolumeInputOptions& in_;
    const po::variables_map& vm_;
};

}  // namespace portacl::cli
