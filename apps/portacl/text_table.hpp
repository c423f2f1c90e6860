// A plain-text table whose column widths come from its content: every cell is printed whole, and
// columns are separated by two spaces, so that no two values ever run together.
#pragma once

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace portacl::cli {

class TextTable {
public:
    // `rightAligned[i]` for numeric columns.
    TextTable(std::vector<std::string> header, std::vector<bool> rightAligned)
        : header_(std::move(header)), right_(std::move(rightAligned)) {
        right_.resize(header_.size(), false);
    }
    void add(std::vector<std::string> row) {
        row.resize(header_.size());
        rows_.push_back(std::move(row));
    }
    void print(std::ostream& os) const {
        std::vector<std::size_t> width(header_.size(), 0);
        auto measure = [&](const std::vector<std::string>& r) {
            for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], displayWidth(r[i]));
        };
        measure(header_);
        for (const auto& r : rows_) measure(r);
        auto line = [&](const std::vector<std::string>& r) {
            std::string out;
            for (std::size_t i = 0; i < r.size(); ++i) {
                const std::string pad(width[i] - displayWidth(r[i]), ' ');
                const bool last = i + 1 == r.size();
                out += right_[i] ? pad + r[i] : (last ? r[i] : r[i] + pad);
                if (!last) out += "  ";
            }
            while (!out.empty() && out.back() == ' ') out.pop_back();
            os << out << "\n";
        };
        line(header_);
        for (const auto& r : rows_) line(r);
    }

private:
    // Columns count characters, not bytes (sizes such as "4096³" hold UTF-8).
    static std::size_t displayWidth(const std::string& s) {
        return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    }
    std::vector<std::string> header_;
    std::vector<bool> right_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace portacl::cli
