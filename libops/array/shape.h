// Shape utilities shared by arrays, loops and shape functions.
//
// Note [Broadcasting]
// libops broadcasts like numpy: shapes are aligned at the last dimension;
// two extents are compatible when equal or when one of them is 1; a missing
// leading dimension counts as 1. A 0 extent broadcasts only against 0 or 1.
#pragma once

#include "libops/core/api.h"

#include <string>

#include "libops/array/dims.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

LIBOPS_API_BEGIN

namespace libops {

// What a shape function sees of an array: dtype and extents, no data.
struct TensorShape {
  DataType dtype = DataType::kInvalid;
  Dims dims;
  char order = 'c';

  int rank() const { return dims.size(); }
  int64_t length() const { return dims.product(); }
  std::string str() const;  // "float32[2,3]"
};

// Strides (in elements) of a dense array with the given extents and order.
Dims dense_strides(const Dims& shape, char order);

// Note [Broadcasting]. `what` names the op for the message, e.g.
// "add: cannot broadcast shapes [2,3] and [4,3]: dim 0 must be equal or 1".
Status broadcast_shapes(const char* what, const Dims& a, const Dims& b, Dims& out);

// Normalizes axes against `rank` (negative counts from the end), sorts them
// and rejects out-of-range or repeated axes with a message naming `what`.
// An empty `axes` means "all axes" when all_if_empty is set.
Status normalize_axes(const char* what, const int64_t* axes, int n, int rank, bool all_if_empty,
                      Dims& out);

// Shape of a reduction of `in` over normalized `axes`.
Dims reduced_shape(const Dims& in, const Dims& axes, bool keep_dims);

// Checked product of extents: false when negative or overflowing int64.
bool checked_length(const Dims& shape, int64_t& length);

// True when every dense stride of `shape` fits int64: the product of its
// extents, each taken as at least 1, does (a zero extent does not make
// [0, 2^62, 2^62] addressable). Unknown (-1) extents count as 1.
bool strides_fit(const Dims& shape);

// True when `a` broadcasts to exactly `target` (Note [Broadcasting]).
bool broadcasts_to_shape(const Dims& a, const Dims& target);

}  // namespace libops

LIBOPS_API_END
