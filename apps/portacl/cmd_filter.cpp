// portacl filter IN OUT --op OP [--op OP ...]: image filtering on one device, the image staying on
// the device through the whole pipeline of operations. --list names the operations; --bench prints
// the thesis's speed-up tables (masks 3..9, images 128^2..4096^2) with this device's figures.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "batch.hpp"
#include "command.hpp"
#include "file_batch.hpp"
#include "read_ahead.hpp"
#include "portacl/filter.hpp"
#include "portacl/filter_bench.hpp"
#include "portacl/io/image.hpp"
#include "portacl/io/image_stack.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::cli {
namespace {

// A batch member's filter pipeline (Context::state), kept from one image to the next of a batch.
struct MemberPipeline {
    std::unique_ptr<filter::Pipeline> pipeline;
    std::uint64_t batch = 0;  // the batch it was made for (its operations and options)
};
std::atomic<std::uint64_t> filterBatches{0};

// One image of batch `batchId` into `out` through the member's kept pipeline, or the serial
// reference without a device.
void filterOne(Context* ctx, const io::Image& in, const std::vector<filter::Operation>& ops, const filter::Options& options,
               std::uint64_t batchId, io::Image& out) {
    if (!ctx) {
        out = filter::filterReference(in, ops, options);
        return;
    }
    MemberPipeline& kept = ctx->state<MemberPipeline>();
    if (!kept.pipeline || kept.batch != batchId) {
        kept.pipeline = std::make_unique<filter::Pipeline>(*ctx, ops, options);
        kept.batch = batchId;
    }
    kept.pipeline->run(in, out);
}

// A batch's output images, recycled: a member fills one a writer has finished with (its memory
// reused when the size matches), so that each image's bytes are not allocated and zeroed anew. As
// many are kept as were in flight at once.
class SpareImages {
public:
    // An image to fill; it comes back here when the last holder lets it go.
    std::shared_ptr<io::Image> take() {
        std::unique_ptr<io::Image> img;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!spare_.empty()) {
                img = std::move(spare_.back());
                spare_.pop_back();
            }
        }
        if (!img) img = std::make_unique<io::Image>();
        return std::shared_ptr<io::Image>(img.release(), [this](io::Image* done) { give(done); });
    }

private:
    void give(io::Image* done) noexcept {
        std::unique_ptr<io::Image> img(done);
        try {
            std::lock_guard<std::mutex> lock(mutex_);
            spare_.push_back(std::move(img));
        } catch (...) {
            // not kept: freed
        }
    }
    std::mutex mutex_;
    std::vector<std::unique_ptr<io::Image>> spare_;
};

void printList() {
    std::cout << "Operations (each --op, applied in order; sizes are odd):\n";
    for (const auto& h : filter::operationList()) std::cout << "  " << std::left << std::setw(44) << h.syntax << h.description << "\n";
    std::cout << "Borders (--border): constant (--border-value V), replicate, reflect, reflect101 (default), wrap, as OpenCV's BORDER_*.\n";
}

namespace fs = std::filesystem;

// A folder or list of images, each filtered on whichever device of the set is free, written to
// OUTDIR under its own name (each file atomically, as one image's output is).
int runFilterBatch(const std::vector<std::string>& named, const std::string& outDir, const std::vector<filter::Operation>& ops,
                   const filter::Options& options, bool serial, const CommonOptions& common, const BatchCliOptions& batch) {
    if (!fs::is_directory(outDir)) throw Error("with several input images, -o names an existing folder for the outputs ('" + outDir + "' is none)");
    std::vector<std::string> pictures;
    for (const auto& e : io::writableImageExtensions()) pictures.push_back("." + e);
    const std::vector<std::string> inputs = listBatchInputs(named, pictures, "picture file (.png, .tif, .bmp, .pgm, .ppm)");
    std::vector<std::string> outputs;
    for (const auto& in : inputs) {
        const std::string out = (fs::path(outDir) / fs::path(in).filename()).string();
        checkOutputExtension(out, io::writableImageExtensions(), "the output image");
        checkOutputPath(out, inputs, "the output image");
        outputs.push_back(out);
    }
    // The image readers and writers may run on many threads at once (libnetpbm's process-wide
    // state is guarded inside image_io_pnm.cpp, around its header calls only).
    auto readInput = [&](std::size_t i) { return io::readImage(inputs[i]); };
    // Host threads of their own read and decode the images ahead of the members (a quarter of the
    // cores: decoding costs a fraction of encoding, which the writers do): in one process every image
    // in order, under mpirun the images of each chunk as this rank is handed it.
    std::unique_ptr<ReadAhead<io::Image>> ahead;
    SpareImages spare;  // before the batch, whose writers hand its images back
    FileBatch fb;
    if (!serial) {
        const unsigned readers = std::max(2u, hostCores() / 4);
        ahead = std::make_unique<ReadAhead<io::Image>>(inputs.size(), readInput, readers, 2 * readers);
        if (ranks()) {
            fb.chunkStarting = [&](std::size_t b, std::size_t e) { ahead->expect(b, e); };
            fb.chunkDone = [&](std::size_t b, std::size_t e) { ahead->forget(b, e); };
            fb.rankChunk = 2 * readers;  // chunks that keep the readers a window ahead
        } else {
            ahead->expect(0, inputs.size());
        }
    }
    fb.items = inputs.size();
    fb.itemName = [&](std::size_t i) { return "'" + inputs[i] + "'"; };
    fb.noun = "images";
    fb.precision = options.precision;
    fb.serial = serial;
    fb.outputs = outputs;
    // One pipeline per member, kept over its images: its device buffers are made once, not per image.
    const std::uint64_t batchId = ++filterBatches;
    fb.compute = [&](Context* ctx, std::size_t i) -> std::function<std::string()> {
        io::Image in;
        if (ahead) {
            in = ahead->take(i);
        } else {
            PhaseScope reading(BatchPhase::Read);
            in = readInput(i);
        }
        filter::validate(in, ops);
        auto out = spare.take();
        filterOne(ctx, in, ops, options, batchId, *out);
        return [&, i, out] {
            io::writeImage(outputs[i], *out);
            return std::string();
        };
    };
    runFileBatch(fb, common, batch);
    return 0;
}

// True when the file starts as a TIFF does (the readers go by content, not by extension).
bool isTiffFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && (std::memcmp(magic, "II*\0", 4) == 0 || std::memcmp(magic, "MM\0*", 4) == 0);
}

// A filtered page on its way from the rank that computed it to rank 0, which writes the stack.
std::string encodePage(const io::Image& img) {
    const std::int32_t head[4] = {img.width, img.height, img.channels, static_cast<std::int32_t>(img.type)};
    std::string bytes(reinterpret_cast<const char*>(head), sizeof head);
    bytes.append(reinterpret_cast<const char*>(img.data.data()), img.data.size());
    return bytes;
}

io::Image decodePage(const std::string& bytes) {
    std::int32_t head[4] = {};
    if (bytes.size() < sizeof head) throw Error("a filtered page sent between ranks arrived truncated");
    std::memcpy(head, bytes.data(), sizeof head);
    io::Image img = io::makeImage(head[0], head[1], head[2], static_cast<io::PixelType>(head[3]));
    if (bytes.size() != sizeof head + img.data.size()) throw Error("a filtered page sent between ranks arrived truncated");
    std::memcpy(img.data.data(), bytes.data() + sizeof head, img.data.size());
    return img;
}

// The pages of a multi-page TIFF, each filtered on whichever device of the set is free, written in
// page order to one multi-page TIFF: each page as soon as the pages before it are written, the file
// renamed into place when the last is (nothing is left at OUT when a page fails). Under mpirun the
// pages travel to rank 0, which writes the file.
int runFilterStack(const std::string& in, std::size_t pages, const std::string& out, const std::vector<filter::Operation>& ops,
                   const filter::Options& options, bool serial, const CommonOptions& common, const BatchCliOptions& batch) {
    checkOutputExtension(out, {"tif", "tiff"}, "the output stack (the pages of a multi-page TIFF go to one)");
    checkOutputPath(out, {in}, "the output image");
    cluster::World* world = ranks();
    std::unique_ptr<io::TiffStackWriter> writer;
    if (!world || world->isRoot()) writer = std::make_unique<io::TiffStackWriter>(out);
    // Each page is compressed on the thread that writes it behind the devices; only the append of
    // compressed pages, in page order, takes turns.
    std::mutex writing;
    std::map<std::size_t, io::TiffStackPage> waiting;  // compressed, but a page before is not
    std::size_t next = 0;
    FileBatch fb;
    fb.items = pages;
    fb.itemName = [&](std::size_t i) { return "page " + std::to_string(i + 1) + " of '" + in + "'"; };
    fb.noun = "pages";
    fb.afterFailure = "nothing was written";
    fb.lineCarriesData = true;  // under mpirun, a page's line is its pixels, for rank 0
    fb.precision = options.precision;
    fb.serial = serial;
    const std::uint64_t batchId = ++filterBatches;
    fb.compute = [&](Context* ctx, std::size_t i) -> std::function<std::string()> {
        io::Image page;
        {
            PhaseScope reading(BatchPhase::Read);
            page = io::readTiffPage(in, i);
        }
        filter::validate(page, ops);
        auto done = std::make_shared<io::Image>();
        filterOne(ctx, page, ops, options, batchId, *done);
        return [&, i, done]() -> std::string {
            if (world) return encodePage(*done);
            io::TiffStackPage page = io::TiffStackWriter::encode(*done);
            std::unique_lock<std::mutex> lock(writing, std::defer_lock);
            {
                PhaseScope waitingForLock(BatchPhase::Lock);
                lock.lock();
            }
            waiting.emplace(i, std::move(page));
            for (auto it = waiting.begin(); it != waiting.end() && it->first == next; it = waiting.erase(it), ++next)
                writer->append(it->second);
            return std::string();
        };
    };
    auto lines = runFileBatch(fb, common, batch);
    if (!lines) return 0;  // a rank other than 0
    if (world) {
        // The ranks' pages, compressed a window at a time on every core, appended in order.
        const std::size_t window = writerThreads();
        for (std::size_t b = 0; b < pages; b += window) {
            const std::size_t e = std::min(pages, b + window);
            std::vector<io::TiffStackPage> encoded(e - b);
            std::vector<std::string> failures(e - b);
            std::vector<std::thread> threads;
            for (std::size_t i = b; i < e; ++i)
                threads.emplace_back([&, i] {
                    try {
                        encoded[i - b] = io::TiffStackWriter::encode(decodePage((*lines)[i]));
                    } catch (const std::exception& ex) {
                        failures[i - b] = ex.what();
                    }
                    (*lines)[i] = std::string();
                });
            for (auto& t : threads) t.join();
            for (std::size_t i = b; i < e; ++i) {
                if (!failures[i - b].empty()) throw Error(failures[i - b]);
                writer->append(encoded[i - b]);
            }
        }
    }
    if (writer->pages() != pages) throw Error("internal: " + std::to_string(writer->pages()) + " of " + std::to_string(pages) + " pages were written");
    writer->commit();
    return 0;
}

int runFilter(const std::vector<std::string>& args) {
    po::options_description desc("portacl filter options");
    CommonOptions common;
    common.add(desc);
    BatchCliOptions batch;
    batch.membersPerGpu = 4;  // an image on a GPU is mostly host work (its copies through the pinned chunks, decoding, encoding)
    batch.add(desc);
    std::vector<std::string> opSpecs, files;
    std::string border = "reflect101", depth = "same", sizes, masks, output;
    double borderValue = 0;
    bool list = false, bench = false, serial = false, quick = false;
    desc.add_options()("op", po::value(&opSpecs)->composing(), "an operation (repeat for a pipeline; see --list)")(
        "output,o", po::value(&output), "the output image (or give it after the input)")(
        "border,b", po::value(&border)->default_value("reflect101"), "constant, replicate, reflect, reflect101 or wrap (OpenCV's BORDER_* names too)")(
        "border-value", po::value(&borderValue)->default_value(0), "the constant border's value")(
        "depth", po::value(&depth)->default_value("same"), "same, or f32: convert to float first (signed gradients, no saturation)")(
        "serial", po::bool_switch(&serial), "run the serial C++ reference instead of the device")(
        "list", po::bool_switch(&list), "name every operation and its parameters")(
        "bench", po::bool_switch(&bench), "the thesis's tables: speed-up over the serial reference, masks 3..9, images 128^2..4096^2; with --op: those operations alone, device ms, GB/s and % of copy bandwidth")(
        "quick", po::bool_switch(&quick), "with --bench: small images only")(
        "bench-sizes", po::value(&sizes)->default_value(""), "with --bench: image sides, e.g. 128,512,4096")(
        "files", po::value(&files)->composing(), "IN [OUT], or several images or a folder with -o OUTDIR");
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    const std::string usage =
        "usage: portacl filter IN -o OUT --op OP [--op OP ...] [--border MODE] [--device SPEC]\n"
        "       portacl filter IN1 IN2 ... | INDIR -o OUTDIR --op OP ... [--device all]   (a batch over the devices)\n"
        "       portacl filter STACK.tif -o OUT.tif --op OP ... [--device all]   (the pages of a multi-page TIFF, a batch)\n"
        "       portacl filter --list | --bench [--quick] | --bench --op OP [--op OP ...] [--bench-sizes 4096]\n"
        "e.g.   portacl filter in.png -o out.png --op median:5 --op sobel --border reflect101";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;
    if (list) {
        printList();
        return 0;
    }
    if (bench && !opSpecs.empty()) {
        // The given operations alone (tuning sweeps): 4096^2 unless --bench-sizes says otherwise.
        for (const auto& s : opSpecs) (void)filter::parseOperation(s);
        Context ctx(selectDevice(common.device), common.contextOptions());
        filter::printOperationTimes(ctx, opSpecs, sizes.empty() ? std::vector<int>{4096} : filter::parseSizeList(sizes), std::cout);
        printProfile(ctx, common);
        return 0;
    }
    if (bench) {
        Context ctx(selectDevice(common.device), common.contextOptions());
        filter::ThesisBenchOptions bo;
        bo.quick = quick;
        if (!sizes.empty()) bo.sizes = filter::parseSizeList(sizes);
        filter::printThesisTables(ctx, bo, std::cout);
        printProfile(ctx, common);
        return 0;
    }
    // A batch: -o names a folder, or the inputs are several images or a folder.
    const bool isBatch = (!output.empty() && fs::is_directory(output)) || (!output.empty() && files.size() > 1) ||
                         (files.size() == 1 && fs::is_directory(files[0]));
    if (!isBatch) {
        if (!output.empty()) files.push_back(output);
        if (files.size() != 2) throw Error("give one input and one output image (portacl filter IN -o OUT --op OP).");
    }
    if (isBatch && output.empty()) throw Error("a batch of images needs -o OUTDIR, the folder for the outputs.");
    if (opSpecs.empty()) throw Error("give at least one --op (portacl filter --list names them).");
    if (depth != "same" && depth != "f32") throw Error("--depth must be same or f32, not '" + depth + "'.");
    if (!isBatch) {
        checkOutputExtension(files[1], io::writableImageExtensions(), "the output image");
        checkOutputPath(files[1], {files[0]}, "the output image");
    }

    filter::Options options;
    options.border = filter::parseBorder(border);
    options.borderValue = borderValue;
    options.precision = common.parsedPrecision() == Precision::Double ? Precision::Double : Precision::Float;
    std::vector<filter::Operation> ops;
    if (depth == "f32") ops.push_back(filter::parseOperation("float"));
    for (const auto& s : opSpecs) ops.push_back(filter::parseOperation(s));

    if (isBatch) return runFilterBatch(files, output, ops, options, serial, common, batch);
    // A multi-page TIFF: its pages are the batch.
    if (isTiffFile(files[0]))
        if (const std::size_t pages = io::tiffPageCount(files[0]); pages > 1)
            return runFilterStack(files[0], pages, files[1], ops, options, serial, common, batch);
    if (ranks()) throw Error("one image runs in one process; give a folder or several images to spread over the ranks of mpirun");

    const io::Image in = io::readImage(files[0]);
    filter::validate(in, ops);
    io::Image out;
    if (serial) {
        out = filter::filterReference(in, ops, options);
    } else {
        Context ctx(selectDevice(common.device), common.contextOptions());
        filter::Pipeline pipeline(ctx, ops, options);
        out = pipeline.run(in);
        printProfile(ctx, common);
    }
    io::writeImage(files[1], out);
    return 0;
}

}  // namespace

PORTACL_OVER_RANKS("filter", filter);
PORTACL_COMMAND("filter", "image filtering: convolution, smoothing, median, rotating mask, gradients (thesis 003)", runFilter);

}  // namespace portacl::cli
