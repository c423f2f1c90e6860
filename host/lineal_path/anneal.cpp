// Simulated annealing over pixel swaps (see reconstruct.hpp): targets, the random start, the cooling
// schedule, candidate choice from a counter-based generator, the batched Metropolis walk, history and
// checkpoints.
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "portacl/io/volume.hpp"
#include "portacl/lineal_path/reconstruct.hpp"
#include "portacl/runtime/checked_size.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::lineal {
namespace {

std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
// The r-th random word of chain step `step`: independent of batching.
std::uint64_t draw(std::uint64_t seed, std::uint64_t step, std::uint64_t r) {
    return splitmix(splitmix(seed ^ 0x6a09e667f3bcc909ULL) ^ splitmix(step * 64 + r));
}
double uniform(std::uint64_t w) { return double(w >> 11) * (1.0 / 9007199254740992.0); }

std::uint64_t fnv(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ULL) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

void checkCell(const Target& t) {
    const int smallest = t.nz > 1 ? std::min({t.nz, t.ny, t.nx}) : std::min(t.ny, t.nx);
    if (t.maxLength < 1 || t.maxLength >= smallest)
        throw Error("the reconstruction needs 1 <= ML < the cell's smallest side (" + std::to_string(smallest) + "), got " +
                    std::to_string(t.maxLength));
    const std::uint64_t n = std::uint64_t(t.nz) * t.ny * t.nx;
    if (t.phasePixels == 0 || t.phasePixels >= n) throw Error("the target's phase fills none or all of the cell");
}

// A pixel is on the phase boundary when one of its 8 (2-D) or 26 (3-D) periodic neighbours differs;
// an isolated pixel is such a pixel too.
bool onBoundary(const PhaseImage& img, std::uint32_t i) {
    const int z = int(i / std::uint32_t(img.ny * img.nx)), y = int((i / img.nx) % img.ny), x = int(i % img.nx);
    const std::uint8_t v = img.mask[i];
    const int rz = img.nz > 1 ? 1 : 0;
    for (int dz = -rz; dz <= rz; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (img.at((z + dz + img.nz) % img.nz, (y + dy + img.ny) % img.ny, (x + dx + img.nx) % img.nx) != v) return true;
    return false;
}

// Pixel lists of the two phases with O(1) swap updates.
struct PhaseLists {
    std::vector<std::uint32_t> in, out;
    std::vector<std::uint32_t> where;  // position of each pixel in its list
    explicit PhaseLists(const PhaseImage& img) : where(img.size()) {
        for (std::uint32_t i = 0; i < img.size(); ++i) {
            auto& l = img.mask[i] ? in : out;
            where[i] = std::uint32_t(l.size());
            l.push_back(i);
        }
    }
    void swap(std::uint32_t a, std::uint32_t b) {  // a leaves the phase, b joins it
        const std::uint32_t ia = where[a], ib = where[b];
        in[ia] = b;
        out[ib] = a;
        where[b] = ia;
        where[a] = ib;
    }
};

// Candidate of chain step `step`: a phase pixel and a non-phase pixel, uniformly or (biased) among
// the boundary pixels by rejection (up to 32 draws each, then the last draw).
std::pair<std::uint32_t, std::uint32_t> candidate(const PhaseImage& img, const PhaseLists& lists, const AnnealOptions& opt,
                                                  std::uint64_t step) {
    auto pick = [&](const std::vector<std::uint32_t>& list, std::uint64_t stream) {
        std::uint32_t p = 0;
        for (int k = 0; k < 32; ++k) {
            p = list[draw(opt.seed, step, stream + k) % list.size()];
            if (!opt.biased || onBoundary(img, p)) break;
        }
        return p;
    };
    return {pick(lists.in, 1), pick(lists.out, 33)};
}

}  // namespace

std::string Target::fingerprint() const {
    std::uint64_t h = fnv(L.data(), L.size() * sizeof(double));
    if (!S2.empty()) {
        h = fnv(S2.data(), S2.size() * sizeof(double), h);
        h = fnv(&s2Weight, sizeof(s2Weight), h);
    }
    const int shape[4] = {nz, ny, nx, maxLength};
    h = fnv(shape, sizeof(shape), h);
    std::ostringstream os;
    os << std::hex << h;
    return os.str();
}

std::vector<std::uint64_t> twoPointCounts(const PhaseImage& img, int maxLength) {
    const int mlz = img.is3d() ? maxLength : 0;
    std::vector<std::uint64_t> out;
    for (int dz = -mlz; dz <= mlz; ++dz)
        for (int dy = -maxLength; dy <= maxLength; ++dy)
            for (int dx = -maxLength; dx <= maxLength; ++dx) {
                std::uint64_t both = 0;
                for (int z = 0; z < img.nz; ++z)
                    for (int y = 0; y < img.ny; ++y) {
                        const int z2 = ((z + dz) % img.nz + img.nz) % img.nz, y2 = ((y + dy) % img.ny + img.ny) % img.ny;
                        for (int x = 0; x < img.nx; ++x)
                            both += img.at(z, y, x) & img.at(z2, y2, ((x + dx) % img.nx + img.nx) % img.nx);
                    }
                out.push_back(both);
            }
    return out;
}

Target targetFromImage(Context& ctx, const PhaseImage& img, int maxLength, double s2Weight) {
    const Result r = linealPath(ctx, img, {maxLength, true});
    Target t;
    t.nz = img.nz;
    t.ny = img.ny;
    t.nx = img.nx;
    t.maxLength = maxLength;
    t.L = r.map();
    t.phasePixels = img.phaseCount();
    checkCell(t);
    if (s2Weight > 0) {
        t.s2Weight = s2Weight;
        for (auto c : twoPointCounts(img, maxLength)) t.S2.push_back(double(c) / double(img.size()));
    }
    return t;
}

Target targetFromFile(const std::string& path, double s2Weight) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const io::Volume L = io::readHdf5Dataset(path, "L");
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    // Attributes as text: one string (fixed or variable length) as it is, numbers (and integer arrays
    // of up to 3, joined by 'x') as written by lineal::writeHdf5; a flag reads "true" or "false".
    // Anything else (an array of strings, a float) is refused by name before it is read.
    auto attr = [&](const char* name) {
        std::string v;
        if (H5Aexists(f, name) <= 0) return v;
        const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
        if (a < 0) return v;
        const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
        const H5T_class_t cls = H5Tget_class(type);
        const hssize_t n = H5Sget_simple_extent_npoints(space);
        if (!((cls == H5T_STRING && n == 1) || (cls == H5T_INTEGER && n >= 1 && n <= 3))) {
            H5Sclose(space);
            H5Tclose(type);
            H5Aclose(a);
            H5Fclose(f);
            throw Error(path + ": its attribute '" + std::string(name) + "' is neither one string nor up to 3 integers");
        }
        if (cls == H5T_INTEGER) {
            std::vector<long long> values(std::size_t(n), 0);
            if (H5Aread(a, H5T_NATIVE_LLONG, values.data()) >= 0) {
                for (std::size_t i = 0; i < values.size(); ++i) v += (i ? "x" : "") + std::to_string(values[i]);
                if (std::string(name) == "periodic") v = values[0] ? "true" : "false";
            }
        } else if (H5Tis_variable_str(type) > 0) {
            char* s = nullptr;
            const hid_t mem = H5Tcopy(H5T_C_S1);
            H5Tset_size(mem, H5T_VARIABLE);
            if (H5Aread(a, mem, &s) >= 0 && s) v = s;
            H5Tclose(mem);
            if (s) H5free_memory(s);
        } else {
            const std::size_t size = H5Tget_size(type);
            if (size > 0 && size <= 4096) {
                std::vector<char> buf(size + 1, '\0');
                if (H5Aread(a, type, buf.data()) >= 0) v.assign(buf.data(), strnlen(buf.data(), size));
            }
        }
        H5Sclose(space);
        H5Tclose(type);
        H5Aclose(a);
        return v;
    };
    if (f < 0) throw Error("cannot open " + path + " as an HDF5 file");
    const std::string periodic = attr("periodic"), shape = attr("shape"), ml = attr("max_length");
    H5Fclose(f);
    if (shape.empty() || ml.empty())
        throw Error(path + " is not a descriptor file of portacl lineal-path (no shape or max_length attribute)");
    if (periodic != "true") throw Error(path + " describes a non-periodic image; the reconstruction needs a periodic target");
    Target t;
    // Sides of at most 2^20 and a cell of fewer than 2^31 pixels (the swaps index pixels in 32 bits).
    auto whole = [&](const std::string& text, long max, const char* what) {
        char* end = nullptr;
        const long v = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || end == text.c_str() || *end != '\0' || v < 1 || v > max)
            throw Error(path + " has " + what + " '" + text + "'; it must be a whole number from 1 to " + std::to_string(max));
        return int(v);
    };
    std::vector<int> dims;
    std::stringstream ss(shape);
    for (std::string part; std::getline(ss, part, 'x');) dims.push_back(whole(part, 1L << 20, "a shape side"));
    if (dims.size() == 3) {
        t.nz = dims[0];
        t.ny = dims[1];
        t.nx = dims[2];
    } else if (dims.size() == 2) {
        t.ny = dims[0];
        t.nx = dims[1];
    } else {
        throw Error(path + " has a shape attribute this reader does not understand: " + shape);
    }
    if (std::uint64_t(t.nz) * std::uint64_t(t.ny) * std::uint64_t(t.nx) >= (1ULL << 31))
        throw Error(path + " describes a cell of " + shape + ", more than the 2^31 - 1 pixels a reconstruction handles");
    t.maxLength = whole(ml, 1L << 20, "a max_length");
    t.L = L.data;
    const std::size_t expect = std::size_t(t.nz > 1 ? 2 * t.maxLength + 1 : 1) * (2 * t.maxLength + 1) * (2 * t.maxLength + 1);
    if (t.L.size() != expect) throw Error(path + ": /L does not have the size its max_length attribute implies");
    for (double x : t.L)
        if (!(x >= 0 && x <= 1)) throw Error(path + ": /L holds " + std::to_string(x) + "; a lineal path value lies in [0, 1]");
    const double n = double(t.nz) * t.ny * t.nx;
    const std::size_t centre = t.L.size() / 2;
    t.phasePixels = std::uint64_t(std::llround(t.L[centre] * n));
    checkCell(t);
    if (s2Weight > 0) {
        const hid_t g = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        const bool has = g >= 0 && H5Lexists(g, "S2", H5P_DEFAULT) > 0;
        if (g >= 0) H5Fclose(g);
        if (!has) throw Error(path + " has no /S2 (the two-point function) to match");
        t.S2 = io::readHdf5Dataset(path, "S2").data;
        t.s2Weight = s2Weight;
    }
    return t;
}

PhaseImage randomStart(const Target& t, std::uint64_t seed) {
    PhaseImage img;
    img.nz = t.nz;
    img.ny = t.ny;
    img.nx = t.nx;
    img.mask.assign(img.size(), 0);
    std::vector<std::uint32_t> idx(img.size());
    for (std::uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
    for (std::size_t i = 0; i < t.phasePixels; ++i) {  // partial Fisher-Yates from the seeded stream
        const std::size_t j = i + draw(seed, ~0ULL - i, 0) % (idx.size() - i);
        std::swap(idx[i], idx[j]);
        img.mask[idx[i]] = 1;
    }
    return img;
}

double temperatureAt(const AnnealOptions& opt, std::uint64_t step) {
    if (step >= opt.steps) return opt.tMin;
    const std::uint64_t cycle = std::max<std::uint64_t>(1, opt.steps / std::uint64_t(opt.reheats + 1));
    const double f = double(step % cycle) / double(cycle);
    return opt.tMax * std::pow(opt.tMin / opt.tMax, f);
}

double errorOf(const Target& t, const std::vector<std::uint64_t>& counts, const std::vector<std::uint64_t>& s2Counts) {
    const double n = double(t.nz) * t.ny * t.nx;
    double e = 0;
    for (std::size_t d = 0; d < counts.size(); ++d) {
        const double r = double(counts[d]) / n - t.L[d];
        e += r * r;
    }
    if (!t.S2.empty() && s2Counts.size() == t.S2.size()) {
        double e2 = 0;
        for (std::size_t d = 0; d < s2Counts.size(); ++d) {
            const double r = double(s2Counts[d]) / n - t.S2[d];
            e2 += r * r;
        }
        e += t.s2Weight * e2;
    }
    return e;
}

void validate(const AnnealOptions& opt) {
    checkPositiveFinite(opt.tMax, "the start temperature (--tmax)");
    checkPositiveFinite(opt.tMin, "the end temperature (--tmin)");
    if (opt.tMin > opt.tMax) throw Error("the temperatures need 0 < Tmin <= Tmax");
    if (opt.reheats < 0 || std::uint64_t(opt.reheats) > std::max<std::uint64_t>(opt.steps, 1) - 1)
        throw Error("--reheats is " + std::to_string(opt.reheats) + "; it must lie in [0, steps - 1] (steps " +
                    std::to_string(opt.steps) + ")");
    if (opt.maxBatch < 1 || opt.maxBatch > (1 << 20))
        throw Error("--batch is " + std::to_string(opt.maxBatch) + "; it must lie in [1, 1048576]");
    if (opt.historyEvery < 1) throw Error("the history interval must be at least 1 step");
}

// Long rejection streaks get wider batches; an early acceptance narrows them again.
std::uint64_t SwapEvaluator::nextBatch(std::uint64_t k, std::uint64_t used, std::uint64_t maxBatch) const {
    return used == k ? std::min(k * 2, maxBatch) : std::min(std::max<std::uint64_t>(1, used * 2), maxBatch);
}

void anneal(SwapEvaluator& ev, const Target& t, const AnnealOptions& opt, AnnealState& st) {
    validate(opt);
    PhaseLists lists(ev.image());
    st.error = errorOf(t, ev.counts(), ev.s2Counts());
    double exactScale = std::max(st.error, 1e-300);  // the last exact E
    Progress progress("reconstruct", opt.steps, "steps");
    std::uint64_t batch = 1, lastHistory = st.step, lastCheckpoint = st.step;
    auto record = [&] {
        st.error = errorOf(t, ev.counts(), ev.s2Counts());
        st.history.push_back({st.step, temperatureAt(opt, st.step), st.error, st.accepted});
    };
    if (st.history.empty()) record();
    while (st.step < opt.steps && st.error > 0) {
        const std::uint64_t k = std::min<std::uint64_t>(batch, opt.steps - st.step);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> swaps;
        for (std::uint64_t i = 0; i < k; ++i) swaps.push_back(candidate(ev.image(), lists, opt, st.step + i));
        const auto dE = ev.deltaErrors(swaps);
        std::uint64_t used = k;
        for (std::uint64_t i = 0; i < k; ++i) {
            const std::uint64_t s = st.step + i;
            const double T = temperatureAt(opt, s);
            if (dE[i] <= 0 || uniform(draw(opt.seed, s, 0)) < std::exp(-dE[i] / T)) {
                ev.apply(i);
                lists.swap(swaps[i].first, swaps[i].second);
                // E follows the evaluated changes; the exact E from the integer counts replaces it at
                // every record, every 256 acceptances, and whenever it falls below 1e-4 of the last exact E (it may have reached zero).
                st.error += dE[i];
                ++st.accepted;
                if (st.accepted % 256 == 0 || st.error <= 1e-4 * exactScale) {
                    st.error = errorOf(t, ev.counts(), ev.s2Counts());
                    exactScale = std::max(st.error, 1e-300);
                }
                used = i + 1;
                break;
            }
        }
        st.step += used;
        batch = std::max<std::uint64_t>(1, ev.nextBatch(k, used, std::uint64_t(std::max(1, opt.maxBatch))));
        if (st.step - lastHistory >= opt.historyEvery || st.error <= 0 || st.step >= opt.steps) {
            record();
            lastHistory = st.step;
        }
        if (opt.checkpointEvery && !opt.checkpointPath.empty() && st.step - lastCheckpoint >= opt.checkpointEvery) {
            st.image = ev.image();
            writeCheckpoint(opt.checkpointPath, t, opt, st);
            lastCheckpoint = st.step;
        }
        if (opt.progress) {
            std::ostringstream extra;
            extra << "T=" << temperatureAt(opt, st.step) << " E=" << st.error << " accepted="
                  << (st.step ? 100.0 * double(st.accepted) / double(st.step) : 0.0) << "%";
            progress.update(st.step, extra.str());
        }
        if (opt.afterBatch && opt.afterBatch(st)) break;
    }
    progress.finish();
    st.error = errorOf(t, ev.counts(), ev.s2Counts());
    st.image = ev.image();
}

// Checkpoint layout (little-endian host order): "PCLRECON" magic, u32 version, fingerprint string
// (u32 length + bytes), seed, steps, reheats, tMax, tMin, biased, step, accepted, error, nz, ny, nx,
// image bytes, history count + records, then the FNV-1a checksum of everything before it.
namespace {
struct Writer {
    std::string buf;
    template <typename T> void put(const T& v) { buf.append(reinterpret_cast<const char*>(&v), sizeof(T)); }
    void str(const std::string& s) {
        put(std::uint32_t(s.size()));
        buf += s;
    }
};
struct Reader {
    const std::string& buf;
    std::size_t pos = 0;
    const std::string& path;
    template <typename T> T get() {
        if (pos + sizeof(T) > buf.size()) throw Error("the checkpoint " + path + " is corrupt (truncated)");
        T v;
        std::memcpy(&v, buf.data() + pos, sizeof(T));
        pos += sizeof(T);
        return v;
    }
    std::string str() {
        const auto n = get<std::uint32_t>();
        if (pos + n > buf.size()) throw Error("the checkpoint " + path + " is corrupt (truncated)");
        std::string s = buf.substr(pos, n);
        pos += n;
        return s;
    }
};
}  // namespace

void writeCheckpoint(const std::string& path, const Target& t, const AnnealOptions& opt, const AnnealState& s) {
    Writer w;
    w.buf = "PCLRECON";
    w.put(std::uint32_t(1));
    w.str(t.fingerprint());
    w.put(opt.seed);
    w.put(opt.steps);
    w.put(std::int32_t(opt.reheats));
    w.put(opt.tMax);
    w.put(opt.tMin);
    w.put(std::uint8_t(opt.biased));
    w.put(s.step);
    w.put(s.accepted);
    w.put(s.error);
    w.put(std::int32_t(s.image.nz));
    w.put(std::int32_t(s.image.ny));
    w.put(std::int32_t(s.image.nx));
    w.buf.append(reinterpret_cast<const char*>(s.image.mask.data()), s.image.mask.size());
    w.put(std::uint64_t(s.history.size()));
    for (const auto& r : s.history) {
        w.put(r.step);
        w.put(r.temperature);
        w.put(r.error);
        w.put(r.accepted);
    }
    w.put(fnv(w.buf.data(), w.buf.size()));
    writeFileAtomically(path, [&](std::ostream& os) { os.write(w.buf.data(), std::streamsize(w.buf.size())); }, true);
}

AnnealState readCheckpoint(const std::string& path, const Target& t, AnnealOptions& opt) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open the checkpoint " + path);
    const std::string buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (buf.size() < 16 || buf.compare(0, 8, "PCLRECON") != 0)
        throw Error(path + " is not a reconstruction checkpoint of portacl");
    std::uint64_t sum;
    std::memcpy(&sum, buf.data() + buf.size() - 8, 8);
    if (fnv(buf.data(), buf.size() - 8) != sum) throw Error("the checkpoint " + path + " is corrupt (its checksum does not match)");
    const std::string body = buf.substr(0, buf.size() - 8);
    Reader r{body, 8, path};
    if (r.get<std::uint32_t>() != 1) throw Error("the checkpoint " + path + " has an unknown version");
    if (r.str() != t.fingerprint()) throw Error("the checkpoint " + path + " belongs to another target");
    opt.seed = r.get<std::uint64_t>();
    opt.steps = std::max(opt.steps, r.get<std::uint64_t>());
    opt.reheats = r.get<std::int32_t>();
    opt.tMax = r.get<double>();
    opt.tMin = r.get<double>();
    opt.biased = r.get<std::uint8_t>() != 0;
    AnnealState s;
    s.step = r.get<std::uint64_t>();
    s.accepted = r.get<std::uint64_t>();
    s.error = r.get<double>();
    s.image.nz = r.get<std::int32_t>();
    s.image.ny = r.get<std::int32_t>();
    s.image.nx = r.get<std::int32_t>();
    if (s.image.nz != t.nz || s.image.ny != t.ny || s.image.nx != t.nx) throw Error("the checkpoint " + path + " belongs to another target");
    if (r.pos + s.image.size() > body.size()) throw Error("the checkpoint " + path + " is corrupt (truncated)");
    s.image.mask.assign(body.begin() + std::ptrdiff_t(r.pos), body.begin() + std::ptrdiff_t(r.pos + s.image.size()));
    r.pos += s.image.size();
    if (s.image.phaseCount() != t.phasePixels) throw Error("the checkpoint " + path + " is corrupt (wrong phase fraction)");
    const auto n = r.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < n; ++i) {
        AnnealRecord rec;
        rec.step = r.get<std::uint64_t>();
        rec.temperature = r.get<double>();
        rec.error = r.get<double>();
        rec.accepted = r.get<std::uint64_t>();
        s.history.push_back(rec);
    }
    return s;
}

}  // namespace portacl::lineal
