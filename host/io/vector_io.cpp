// Line features through OGR: a GeoPackage into a temporary that is renamed when complete; a
// Shapefile (its .shp, .shx, .dbf and .prj, and whatever else the driver writes) first in GDAL's
// memory files, then each file into a temporary beside its target, renamed together as one group.
// GDAL's messages are captured, never printed; the last failure is the reason given.
#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <mutex>
#include <unistd.h>

#include "portacl/io/vector_lines.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::io {
namespace {

struct Messages {
    std::string last;
    static void CPL_STDCALL handle(CPLErr level, CPLErrorNum, const char* message) {
        auto* self = static_cast<Messages*>(CPLGetErrorHandlerUserData());
        if (self && level >= CE_Failure && message) self->last = message;
    }
};

std::string lowerExtension(const std::string& path) {
    const auto slash = path.find_last_of('/'), dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = path.substr(dot + 1);
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}

// Fills `ds` with one line layer; false on the first failure (the reason in GDAL's messages).
bool fillLayer(GDALDatasetH ds, const std::string& crsWkt, const std::string& layerName, const std::vector<std::string>& integerFields,
               const std::vector<std::string>& realFields, const std::vector<LineFeature>& features) {
    OGRSpatialReferenceH srs = nullptr;
    if (!crsWkt.empty()) {
        srs = OSRNewSpatialReference(nullptr);
        if (OSRSetFromUserInput(srs, crsWkt.c_str()) != OGRERR_NONE) {
            OSRDestroySpatialReference(srs);
            srs = nullptr;
        }
    }
    OGRLayerH layer = GDALDatasetCreateLayer(ds, layerName.c_str(), srs, wkbLineString, nullptr);
    if (srs) OSRDestroySpatialReference(srs);
    bool ok = layer != nullptr;
    for (std::size_t k = 0; ok && k < integerFields.size(); ++k) {
        OGRFieldDefnH f = OGR_Fld_Create(integerFields[k].c_str(), OFTInteger64);
        ok = OGR_L_CreateField(layer, f, TRUE) == OGRERR_NONE;
        OGR_Fld_Destroy(f);
    }
    for (std::size_t k = 0; ok && k < realFields.size(); ++k) {
        OGRFieldDefnH f = OGR_Fld_Create(realFields[k].c_str(), OFTReal);
        ok = OGR_L_CreateField(layer, f, TRUE) == OGRERR_NONE;
        OGR_Fld_Destroy(f);
    }
    ok = ok && OGR_L_StartTransaction(layer) == OGRERR_NONE;
    for (std::size_t i = 0; ok && i < features.size(); ++i) {
        OGRFeatureH feature = OGR_F_Create(OGR_L_GetLayerDefn(layer));
        for (std::size_t k = 0; k < integerFields.size(); ++k) OGR_F_SetFieldInteger64(feature, int(k), features[i].integers[k]);
        for (std::size_t k = 0; k < realFields.size(); ++k)
            OGR_F_SetFieldDouble(feature, int(integerFields.size() + k), features[i].reals[k]);
        OGRGeometryH line = OGR_G_CreateGeometry(wkbLineString);
        for (const auto& [x, y] : features[i].points) OGR_G_AddPoint_2D(line, x, y);
        OGR_F_SetGeometryDirectly(feature, line);
        ok = OGR_L_CreateFeature(layer, feature) == OGRERR_NONE;
        OGR_F_Destroy(feature);
    }
    return ok && OGR_L_CommitTransaction(layer) == OGRERR_NONE;
}

// A Shapefile's files, made in GDAL's memory files (a folder of its own) and copied into one output
// group: "x.shp" gives x.shp, x.shx, x.dbf, x.prj (and x.cpg); each target keeps the path's stem.
void writeShapefile(const std::string& path, const std::string& crsWkt, const std::vector<std::string>& integerFields,
                    const std::vector<std::string>& realFields, const std::vector<LineFeature>& features, Messages& messages) {
    static std::atomic<unsigned> serial{0};
    const std::string folder = "/vsimem/portacl_lines_" + std::to_string(::getpid()) + "_" + std::to_string(serial++);
    const std::string prefix = path.substr(0, path.size() - 4);  // the path less ".shp"
    VSIMkdir(folder.c_str(), 0755);
    struct Clean {
        std::string folder;
        ~Clean() { VSIRmdirRecursive(folder.c_str()); }
    } clean{folder};
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("ESRI Shapefile"), (folder + "/lines.shp").c_str(), 0, 0, 0, GDT_Unknown, nullptr);
    bool ok = ds != nullptr;
    if (ok) {
        ok = fillLayer(ds, crsWkt, "lines", integerFields, realFields, features);
        GDALClose(ds);
        ok = ok && messages.last.empty();
    }
    if (!ok) throw Error("cannot write " + path + ": " + (messages.last.empty() ? "GDAL could not create the Shapefile" : messages.last));
    char** names = VSIReadDir(folder.c_str());
    OutputGroup group;
    bool written = true;
    for (char** n = names; n && *n && written; ++n) {
        const std::string name = *n;  // lines.shp, lines.shx, ...
        vsi_l_offset length = 0;
        GByte* bytes = VSIGetMemFileBuffer((folder + "/" + name).c_str(), &length, FALSE);
        if (!bytes || name.rfind("lines.", 0) != 0) continue;
        const std::string ext = name.substr(5);  // ".shp"
        AtomicOutput& out = group.add(ext == ".shp" ? path : prefix + ext);
        std::ofstream f(out.writePath(), std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(bytes), std::streamsize(length));
        f.close();
        written = bool(f);
    }
    CSLDestroy(names);
    if (!written) throw Error("cannot write " + path + ": a write failed (is the disk full?)");
    group.commit();
}

}  // namespace

const std::vector<std::string>& lineOutputExtensions() {
    static const std::vector<std::string> ext{"gpkg", "shp"};
    return ext;
}

void writeLines(const std::string& path, const std::string& crsWkt, const std::string& layerName,
                const std::vector<std::string>& integerFields, const std::vector<std::string>& realFields,
                const std::vector<LineFeature>& features) {
    static std::once_flag once;
    std::call_once(once, [] { GDALAllRegister(); });
    Messages messages;
    CPLPushErrorHandlerEx(&Messages::handle, &messages);
    struct Pop {
        ~Pop() { CPLPopErrorHandler(); }
    } pop;
    if (lowerExtension(path) == "shp") {
        writeShapefile(path, crsWkt, integerFields, realFields, features, messages);
        return;
    }
    AtomicOutput out(path);
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GPKG"), out.writePath().c_str(), 0, 0, 0, GDT_Unknown, nullptr);
    bool ok = ds != nullptr;
    if (ok) {
        ok = fillLayer(ds, crsWkt, layerName, integerFields, realFields, features);
        GDALClose(ds);
        ok = ok && messages.last.empty();
    }
    if (!ok) throw Error("cannot write " + path + ": " + (messages.last.empty() ? "GDAL could not create the GeoPackage" : messages.last));
    out.commit();
}

}  // namespace portacl::io
