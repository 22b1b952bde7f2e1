// .xrpm parts for object contents (format 1.2): the byte layout of the FLAY (type
// layouts) and RLBL (root labels) blobs (docs/FORMAT.md). The per-reference slots (RSLT), per-root
// label indices (RTLB) and the per-object values (OVAL ends + VDAT bytes) are plain columns and a
// blob written straight from Snapshot::fields. Decoders throw std::out_of_range or
// std::runtime_error with the offset inside the blob, which the reader reports with the part.
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <string>
#include <string_view>

#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

std::string EncodeFieldLayouts(const HeapFields& f);
// Fills f.layouts (one per type: `type_count` must match the blob's), f.enums, the cap and the
// values flag; recomputes the packed value offsets.
void DecodeFieldLayouts(std::string_view blob, size_t type_count, HeapFields& f);

std::string EncodeRootLabels(const HeapFields& f);
void DecodeRootLabels(std::string_view blob, HeapFields& f);

}  // namespace xrpm::formats
