// Dims: a fixed-capacity list of extents or strides (at most OPS_MAX_RANK).
// Inline storage keeps shape handling free of heap allocation, which is what
// lets a custom op on tiny arrays run in a fraction of a microsecond.
#pragma once

#include "libops/core/api.h"

#include <cstdint>
#include <initializer_list>
#include <string>

#include "libops/c_types.h"

LIBOPS_API_BEGIN

namespace libops {

inline constexpr int kMaxRank = OPS_MAX_RANK;

class Dims {
 public:
  Dims() = default;
  Dims(std::initializer_list<int64_t> v) {
    for (int64_t d : v) push_back(d);
  }
  // Copies `n` values; the caller checks n <= kMaxRank (see dims_from).
  Dims(const int64_t* v, int n) {
    for (int i = 0; i < n && i < kMaxRank; ++i) push_back(v[i]);
  }

  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](int i) { return v_[i]; }
  int64_t operator[](int i) const { return v_[i]; }
  int64_t* data() { return v_; }
  const int64_t* data() const { return v_; }
  const int64_t* begin() const { return v_; }
  const int64_t* end() const { return v_ + size_; }
  int64_t back() const { return v_[size_ - 1]; }

  // Returns false when full; callers check rank before building (RETURN_IF_NOT).
  bool push_back(int64_t d) {
    if (size_ >= kMaxRank) return false;
    v_[size_++] = d;
    return true;
  }
  void resize(int n, int64_t fill = 0) {
    for (int i = size_; i < n; ++i) v_[i] = fill;
    size_ = n;
  }
  void clear() { size_ = 0; }

  // Product of all entries (1 for an empty list).
  int64_t product() const {
    int64_t p = 1;
    for (int i = 0; i < size_; ++i) p *= v_[i];
    return p;
  }

  friend bool operator==(const Dims& a, const Dims& b) {
    if (a.size_ != b.size_) return false;
    for (int i = 0; i < a.size_; ++i)
      if (a.v_[i] != b.v_[i]) return false;
    return true;
  }
  friend bool operator!=(const Dims& a, const Dims& b) { return !(a == b); }

  std::string str() const;  // "[2,3,4]"

 private:
  int64_t v_[kMaxRank] = {};
  int size_ = 0;
};

}  // namespace libops

LIBOPS_API_END
