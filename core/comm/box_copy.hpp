#pragma once
// Copies between boxes of a field and one contiguous buffer (each box x
// fastest, boxes one after another): the pack/unpack step of halo exchange and
// of output, in terms of boxes of one layout. Each call is one call of the
// pack layer (comm/region_copy.hpp): it runs where the field lives, all boxes
// of a call in one launch.
#include <cstdint>

#include "core/base/backend.hpp"
#include "core/mesh/box.hpp"
#include "core/mesh/field_layout.hpp"

namespace mpsfw {

// Up to six boxes and where each starts in the buffer (in doubles).
struct BoxList {
  static constexpr int kMax = 6;
  Box box[kMax];
  std::int64_t offset[kMax] = {};
  int count = 0;
  std::int64_t cells = 0;  // total, = the buffer length

  // Appends `b` after the boxes already listed; empty boxes are skipped.
  void add(const Box& b);
};

void pack_boxes(Backend space, const double* field, const FieldLayout& layout, const BoxList& boxes,
                double* buffer);
void unpack_boxes(Backend space, double* field, const FieldLayout& layout, const BoxList& boxes,
                  const double* buffer);

// One box.
void pack_box(Backend space, const double* field, const FieldLayout& layout, const Box& box,
              double* buffer);

// A box of another field (a neighbour's, mapped into this process) and the box
// of this rank's field it is copied to; both boxes have the same shape.
struct PeerBox {
  const double* src = nullptr;
  FieldLayout src_layout;
  Box src_box, dst_box;
};
struct PeerBoxList {
  static constexpr int kMax = 6;
  PeerBox item[kMax];
  int count = 0;

  void add(const PeerBox& b);  // empty boxes are skipped
};

// All boxes of the list in one launch (device) or loop (host).
void copy_from_peers(Backend space, double* field, const FieldLayout& layout,
                     const PeerBoxList& boxes);

}  // namespace mpsfw
