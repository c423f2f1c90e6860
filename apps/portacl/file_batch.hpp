// A batch of input files (or of runs) for the commands that take one: every item computed on
// whichever device of the set, or rank of mpirun, is free, and its outputs written by the first copy
// to finish it (an idle device may copy a slower one's item, DeviceSet::run). An input that cannot
// be read or computed (an Error) is its own failure, not its device's (a ClError retires the device
// and the item goes to another): the batch goes on, and the command ends with one sentence naming the
// first failed input and how many failed.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "batch.hpp"
#include "command.hpp"

namespace portacl::cli {

std::string lowerCase(std::string s);

// The HDF5 library (as Debian builds it) is not thread-safe: a batch's members take turns for HDF5
// files (.h5, .hdf5) through one lock of the process, and read and write every other format at
// once. The lock, held, when `path` is an HDF5 file (its wait counted as BatchPhase::Lock), else an
// empty one.
std::unique_lock<std::mutex> hdf5TurnFor(const std::string& path);

// The files of a batch: every file of the one folder named whose extension (lower case, with its
// dot: ".png") is one of `extensions`, sorted by name, or the files named. `kinds` says what they are
// in a message ("picture file (.png, .tif, ...)"). Throws in one sentence when none is there.
std::vector<std::string> listBatchInputs(const std::vector<std::string>& named, const std::vector<std::string>& extensions,
                                         const std::string& kinds);

// OUTDIR/<the input's name without its extension (.nii.gz counts as one)>.<ext>.
std::string batchOutputPath(const std::string& outDir, const std::string& input, const std::string& ext);

// Refuses, in one sentence, an output folder that does not exist, an output that is one of the inputs,
// and two inputs that would write one output.
void checkBatchOutputs(const std::string& outDir, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs);

struct FileBatch {
    std::size_t items = 0;
    std::function<std::string(std::size_t)> itemName;  // "image 'a.png'", in messages
    std::string noun = "inputs";                       // "2 of 7 <noun> failed"
    std::string afterFailure = "the other outputs were written";  // the end of that sentence
    Precision precision = Precision::Float;            // the set's fp64 check
    bool serial = false;                               // the serial reference, in this process
    DeviceSet* devices = nullptr;                      // the set to run on (default: --device's)
    std::vector<std::string> outputs;                  // the files it writes (their folders are read once)
    // The line of an item is its data for rank 0 (a TIFF stack's page, which rank 0 writes): under
    // mpirun its commit runs when the call returns, not behind, so that the line travels with it.
    bool lineCarriesData = false;
    // Item i on ctx (nullptr: the serial reference): computes, and returns the function that writes
    // its outputs and gives its line for standard output ("" for none). Only the first copy of an item
    // to finish calls it.
    std::function<std::function<std::string()>(Context* ctx, std::size_t i)> compute;
    // Under mpirun: this rank starts, and is done with, the chunk [begin, end), of at most rankChunk
    // items per device (BatchOptions).
    std::function<void(std::size_t begin, std::size_t end)> chunkStarting, chunkDone;
    std::size_t rankChunk = 0;
};

// Runs the batch and returns each item's line in input order; on the ranks of mpirun other than 0,
// nullopt (rank 0 reports). Prints the batch's report; throws "N of M <noun> failed, the first ..."
// when any item failed, after every other output was written.
std::optional<std::vector<std::string>> runFileBatch(const FileBatch& batch, const CommonOptions& common,
                                                     const BatchCliOptions& batchOptions);

}  // namespace portacl::cli
