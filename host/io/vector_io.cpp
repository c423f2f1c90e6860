// Line features through OGR's GeoPackage driver, into a temporary that is renamed when complete.
// GDAL's messages are captured, never printed; the last failure is the reason given.
#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

#include <mutex>

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

}  // namespace

const std::vector<std::string>& lineOutputExtensions() {
    static const std::vector<std::string> ext{"gpkg"};
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
    AtomicOutput out(path);
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GPKG"), out.writePath().c_str(), 0, 0, 0, GDT_Unknown, nullptr);
    bool ok = ds != nullptr;
    if (ok) {
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
        ok = layer != nullptr;
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
        ok = ok && OGR_L_CommitTransaction(layer) == OGRERR_NONE;
        GDALClose(ds);
        ok = ok && messages.last.empty();
    }
    if (!ok) throw Error("cannot write " + path + ": " + (messages.last.empty() ? "GDAL could not create the GeoPackage" : messages.last));
    out.commit();
}

}  // namespace portacl::io
