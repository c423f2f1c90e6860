// A small streaming JSON writer for --json outputs (objects, arrays, scalars, escaped strings).
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace portacl::cli {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& os) : os_(os) {}
    void beginObject() { open('{'); }
    void endObject() { close('}'); }
    void beginArray() { open('['); }
    void endArray() { close(']'); }
    void key(const std::string& k) {
        comma();
        string(k);
        os_ << ':';
        afterKey_ = true;
    }
    void value(const std::string& v) { comma(); string(v); }
    void value(const char* v) { value(std::string(v)); }
    void value(bool v) { comma(); os_ << (v ? "true" : "false"); }
    void value(double v) {
        comma();
        if (std::isfinite(v)) os_ << v; else os_ << "null";
    }
    void value(std::uint64_t v) { comma(); os_ << v; }
    void value(unsigned v) { value(static_cast<std::uint64_t>(v)); }
    void value(int v) { comma(); os_ << v; }
    template <typename T>
    void field(const std::string& k, const T& v) {
        key(k);
        value(v);
    }

private:
    void open(char c) {
        comma();
        os_ << c;
        first_.push_back(true);
    }
    void close(char c) {
        os_ << c;
        first_.pop_back();
    }
    void comma() {
        if (afterKey_) {
            afterKey_ = false;
            return;
        }
        if (!first_.empty()) {
            if (!first_.back()) os_ << ',';
            first_.back() = false;
        }
    }
    void string(const std::string& s) {
        os_ << '"';
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') os_ << '\\' << c;
            else if (c == '\n') os_ << "\\n";
            else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); os_ << buf; }
            else os_ << c;
        }
        os_ << '"';
    }
    std::ostream& os_;
    std::vector<bool> first_;
    bool afterKey_ = false;
};

}  // namespace portacl::cli
