// .xrpm metadata parts: the byte layout of the SECT, TYPE, TFIN, TTRT, RORG, CAPT and ASIT blobs
// (docs/FORMAT.md). Encoders append to a BlobWriter; decoders fill the Snapshot and throw
// std::out_of_range or std::runtime_error with the offset inside the blob, which the reader reports
// with the part.
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <string>
#include <string_view>

#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

std::string EncodeSections(const Snapshot& s);
std::string EncodeTypes(const Snapshot& s);
// TFIN (optional, 1.3): the types with a finalizer; "" when none has one (no part written).
std::string EncodeTypeFinalizers(const Snapshot& s);
// TTRT (optional, 1.4): each type's traits; "" when no type's kind is known (no part written).
std::string EncodeTypeTraits(const Snapshot& s);
std::string EncodeOrigins(const Snapshot& s);
std::string EncodeCapture(const CaptureInfo& c);
std::string EncodeAllocSites(const AllocationOrigins& o);

void DecodeSections(std::string_view blob, Snapshot& s);
void DecodeTypes(std::string_view blob, Snapshot& s);           // after DecodeSections
void DecodeTypeFinalizers(std::string_view blob, Snapshot& s);  // after DecodeTypes
void DecodeTypeTraits(std::string_view blob, Snapshot& s);      // after DecodeTypes
void DecodeOrigins(std::string_view blob, Snapshot& s);
CaptureInfo DecodeCapture(std::string_view blob);
AllocationOrigins DecodeAllocSites(std::string_view blob);

}  // namespace xrpm::formats
