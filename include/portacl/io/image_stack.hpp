// Multi-page TIFF stacks as pages of images: how many pages a file has, one page read alone (so that
// pages can be read on several threads at once), and a writer that appends pages in order to a file
// that appears, complete, only when it commits.
#pragma once

#include "portacl/export.hpp"
#include "portacl/io/image.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace portacl::io {

// The pages (directories) of a TIFF file. Throws portacl::Error with one sentence when it cannot be
// read as TIFF.
PORTACL_API std::size_t tiffPageCount(const std::string& path);

// Page `page` (0-based) of a TIFF file, read as readImage reads a one-page TIFF.
PORTACL_API Image readTiffPage(const std::string& path, std::size_t page);

class TiffStackWriter;

// A page compressed as a stack stores it (TiffStackWriter::encode), on any thread: the compression
// is a page's whole cost, so pages are encoded at once on several threads and only appended in order.
class PORTACL_API TiffStackPage {
public:
    TiffStackPage() = default;

private:
    friend class TiffStackWriter;
    struct Data;
    std::shared_ptr<const Data> data_;
};

// Appends pages to a TIFF file written as a temporary beside `path`; commit() renames it over `path`.
// Destroyed uncommitted (a failed page, an exception), it leaves no file. Each page is stored as
// writeImage stores a one-page TIFF.
class PORTACL_API TiffStackWriter {
public:
    explicit TiffStackWriter(const std::string& path);
    ~TiffStackWriter();
    TiffStackWriter(const TiffStackWriter&) = delete;
    TiffStackWriter& operator=(const TiffStackWriter&) = delete;

    void append(const Image& page);
    // The page compressed, on any thread (nothing of a writer is used); throws portacl::Error.
    static TiffStackPage encode(const Image& page);
    // An encoded page appended: its bytes copied, the same file as append(Image) of it.
    void append(const TiffStackPage& page);
    std::size_t pages() const;
    void commit();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace portacl::io
