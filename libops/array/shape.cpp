#include "libops/array/shape.h"

#include <algorithm>

namespace libops {

std::string Dims::str() const {
  std::string s = "[";
  for (int i = 0; i < size_; ++i) {
    if (i) s += ",";
    s += std::to_string(v_[i]);
  }
  return s + "]";
}

std::string TensorShape::str() const { return std::string(dtype_name(dtype)) + dims.str(); }

Dims dense_strides(const Dims& shape, char order) {
  Dims s;
  s.resize(shape.size());
  int64_t acc = 1;
  if (order == 'f') {
    for (int i = 0; i < shape.size(); ++i) {
      s[i] = acc;
      acc *= std::max<int64_t>(shape[i], 1);
    }
  } else {
    for (int i = shape.size() - 1; i >= 0; --i) {
      s[i] = acc;
      acc *= std::max<int64_t>(shape[i], 1);
    }
  }
  return s;
}

Status broadcast_shapes(const char* what, const Dims& a, const Dims& b, Dims& out) {
  int rank = std::max(a.size(), b.size());
  out.clear();
  out.resize(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.size() - rank + i, ib = b.size() - rank + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return Status::error(StatusCode::kShape,
                           "%s: cannot broadcast shapes %s and %s: dim %d must be equal or 1", what,
                           a.str().c_str(), b.str().c_str(), i);
    }
  }
  return Status::ok();
}

Status normalize_axes(const char* what, const int64_t* axes, int n, int rank, bool all_if_empty,
                      Dims& out) {
  out.clear();
  if (n == 0 && all_if_empty) {
    for (int i = 0; i < rank; ++i) out.push_back(i);
    return Status::ok();
  }
  if (n > 0 && axes == nullptr)
    return Status::error(StatusCode::kNullPointer, "%s: axes pointer is null but count is %d", what, n);
  if (n > kMaxRank)
    return Status::error(StatusCode::kInvalidArgument, "%s: %d axes given, at most %d allowed", what, n,
                         kMaxRank);
  for (int i = 0; i < n; ++i) {
    int64_t a = axes[i];
    if (a < -rank || a >= rank)
      return Status::error(StatusCode::kInvalidArgument,
                           "%s: axis %lld is out of range for rank %d (allowed %d..%d)", what,
                           static_cast<long long>(a), rank, -rank, rank - 1);
    out.push_back(a < 0 ? a + rank : a);
  }
  std::sort(out.data(), out.data() + out.size());
  for (int i = 1; i < out.size(); ++i)
    if (out[i] == out[i - 1])
      return Status::error(StatusCode::kInvalidArgument, "%s: axis %lld is repeated", what,
                           static_cast<long long>(out[i]));
  return Status::ok();
}

Dims reduced_shape(const Dims& in, const Dims& axes, bool keep_dims) {
  Dims out;
  int k = 0;
  for (int i = 0; i < in.size(); ++i) {
    bool reduced = k < axes.size() && axes[k] == i;
    if (reduced) ++k;
    if (!reduced) out.push_back(in[i]);
    else if (keep_dims) out.push_back(1);
  }
  return out;
}

bool strides_fit(const Dims& shape) {
  int64_t p = 1;
  for (int64_t d : shape) {
    const int64_t e = d > 1 ? d : 1;
    if (p > INT64_MAX / e) return false;
    p *= e;
  }
  return true;
}

bool checked_length(const Dims& shape, int64_t& length) {
  int64_t p = 1;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d != 0 && p > INT64_MAX / d) return false;
    p *= d;
  }
  length = p;
  return true;
}

}  // namespace libops

namespace libops {
bool broadcasts_to_shape(const Dims& a, const Dims& target) {
  if (a.size() > target.size()) return false;
  int off = target.size() - a.size();
  for (int d = 0; d < a.size(); ++d)
    if (a[d] != 1 && a[d] != target[d + off]) return false;
  return true;
}
}  // namespace libops
