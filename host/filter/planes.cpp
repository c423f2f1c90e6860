// Interleaved image <-> channel planes for the serial reference.
#include "filter/planes.hpp"

namespace portacl::filter {

std::vector<Plane> splitPlanes(const io::Image& img, int& colourPlanes) {
    colourPlanes = img.channels == 2 || img.channels == 4 ? img.channels - 1 : img.channels;
    std::vector<Plane> planes(img.channels, makePlane(img.width, img.height, img.type));
    const std::size_t n = img.pixelCount();
    for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < img.channels; ++c) {
            const std::size_t s = i * img.channels + c;
            double v = 0;
            switch (img.type) {
                case io::PixelType::U8: v = img.data[s]; break;
                case io::PixelType::U16: v = img.samples<unsigned short>()[s]; break;
                case io::PixelType::F32: v = img.samples<float>()[s]; break;
            }
            planes[c].values[i] = v;
        }
    return planes;
}

io::Image joinPlanes(const std::vector<Plane>& planes) {
    io::Image img = io::makeImage(planes[0].width, planes[0].height, static_cast<int>(planes.size()), planes[0].type);
    const std::size_t n = img.pixelCount();
    for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < img.channels; ++c) {
            const std::size_t s = i * img.channels + c;
            const double v = planes[c].values[i];
            switch (img.type) {
                case io::PixelType::U8: img.data[s] = static_cast<unsigned char>(v); break;
                case io::PixelType::U16: img.samples<unsigned short>()[s] = static_cast<unsigned short>(v); break;
                case io::PixelType::F32: img.samples<float>()[s] = static_cast<float>(v); break;
            }
        }
    return img;
}

}  // namespace portacl::filter
