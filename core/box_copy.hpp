#pragma once
// Copies between a box of a field and a contiguous buffer (x fastest): the
// pack/unpack step of halo exchange and of output. Runs where the field lives.
#include "backend.hpp"
#include "box.hpp"
#include "field_layout.hpp"

namespace mpsfw {

void pack_box(Backend space, const double* field, const FieldLayout& layout, const Box& box,
              double* buffer);
void unpack_box(Backend space, double* field, const FieldLayout& layout, const Box& box,
                const double* buffer);

namespace detail {
// Per-backend implementations; the CUDA pair launches kernels on the default stream.
void host_pack_box(const double* field, const FieldLayout& layout, const Box& box, double* buffer);
void host_unpack_box(double* field, const FieldLayout& layout, const Box& box,
                     const double* buffer);
void cuda_pack_box(const double* field, const FieldLayout& layout, const Box& box, double* buffer);
void cuda_unpack_box(double* field, const FieldLayout& layout, const Box& box,
                     const double* buffer);
}  // namespace detail

}  // namespace mpsfw
