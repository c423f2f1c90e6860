// An 8-bit RGB drawing surface for the pictures the commands write (the lineal path's map, the box
// counts' log-log plot): filled rectangles, lines, and text in a 5x7 pixel font of the characters
// the pictures' labels use.
#pragma once

#include <string>

#include "portacl/io/image.hpp"

namespace portacl::io {

struct Rgb {
    unsigned char r, g, b;
};
inline constexpr Rgb kInk = {0, 0, 0};
inline constexpr Rgb kPaper = {255, 255, 255};

class Canvas {
public:
    Canvas(int width, int height);  // white
    int width() const { return img_.width; }
    int height() const { return img_.height; }
    void put(int x, int y, Rgb c);  // pixels outside are ignored
    void fill(int x0, int y0, int w, int h, Rgb c);
    void line(int x0, int y0, int x1, int y1, Rgb c);
    // Text of scale s (glyph cells 6s x 8s); (x, y) is the top left corner. Characters without a
    // glyph are left blank: digits, space and - . , = / ( ) and the letters D L N R d e f g i r s t x y z.
    void text(int x, int y, const std::string& s, int scale = 2, Rgb c = kInk);
    static int textWidth(const std::string& s, int scale = 2) { return static_cast<int>(s.size()) * 6 * scale - scale; }
    Image& image() { return img_; }

private:
    Image img_;
};

}  // namespace portacl::io
