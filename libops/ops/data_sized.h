// Note [Outputs sized by data]
//  bincount and the sorted segment ops take their output's extent from the
//  largest value they find in an input, not from a shape or an argument. A
//  single corrupt or hostile id (1e12) would set them allocating and
//  filling terabytes, or, below the machine's memory, spending minutes on
//  it. Such outputs hold at most kMaxDataSizedElements; past that the op
//  fails, naming the value it found and the limit. Outputs sized by an
//  argument are bounded by the allocator alone (an allocation larger than
//  the machine's memory is refused: allocate_host in data_buffer.cpp).
#pragma once

#include <cstdint>

#include "libops/ops/context.h"

namespace libops::ops {

inline constexpr int64_t kMaxDataSizedElements = int64_t{1} << 28;

// OK when an output of `extent` rows of `row` elements each, `extent` read
// from the data as `what` = `found`, stays within kMaxDataSizedElements.
inline Status check_data_sized(const Context& block, const char* what, int64_t found, int64_t extent, int64_t row) {
  const int64_t per_row = row > 0 ? row : 1;
  if (extent <= kMaxDataSizedElements / per_row) return Status::ok();
  return block.error(StatusCode::kShape,
                     "%s is %lld, which would size z at %lld x %lld elements; an output sized by its input's values "
                     "holds at most 2^28 (%lld)",
                     what, static_cast<long long>(found), static_cast<long long>(extent),
                     static_cast<long long>(per_row), static_cast<long long>(kMaxDataSizedElements));
}

}  // namespace libops::ops
