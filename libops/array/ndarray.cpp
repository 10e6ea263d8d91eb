#include "libops/array/ndarray.h"

#include <algorithm>
#include <cstring>

#include "libops/loops/convert.h"
#include "libops/loops/copy.h"

namespace libops {

namespace {

Status check_new_shape(const char* what, DataType dtype, const Dims& shape, size_t& bytes) {
  if (!dtype_is_valid(dtype))
    return Status::error(StatusCode::kDtype, "%s: invalid dtype %d", what, static_cast<int>(dtype));
  int64_t n = 0;
  if (!checked_length(shape, n))
    return Status::error(StatusCode::kShape, "%s: invalid shape %s (negative extent or overflow)", what,
                         shape.str().c_str());
  size_t es = dtype_size(dtype);
  if (n > 0 && static_cast<uint64_t>(n) > SIZE_MAX / es)
    return Status::error(StatusCode::kShape, "%s: shape %s is too large", what, shape.str().c_str());
  bytes = static_cast<size_t>(n) * es;
  return Status::ok();
}

}  // namespace

Status NDArray::create(DataType dtype, const Dims& shape, char order, NDArray& out) {
  size_t bytes = 0;
  RETURN_IF_ERROR(check_new_shape("create", dtype, shape, bytes));
  if (order != 'c' && order != 'f')
    return Status::error(StatusCode::kInvalidArgument, "create: order must be 'c' or 'f', got '%c'", order);
  auto buf = DataBuffer::allocate(bytes);
  if (!buf)
    return Status::error(StatusCode::kOutOfMemory, "create: cannot allocate %zu bytes for %s%s", bytes,
                         dtype_name(dtype), shape.str().c_str());
  NDArray a;
  a.dtype_ = dtype;
  a.shape_ = shape;
  a.strides_ = dense_strides(shape, order);
  a.buffer_ = std::move(buf);
  out = std::move(a);
  return Status::ok();
}

Status NDArray::zeros(DataType dtype, const Dims& shape, char order, NDArray& out) {
  RETURN_IF_ERROR(create(dtype, shape, order, out));
  if (out.buffer_->bytes() > 0) std::memset(out.buffer_->host(), 0, out.buffer_->bytes());
  return Status::ok();
}

Status NDArray::wrap(void* data, size_t bytes, DataType dtype, const Dims& shape, const Dims* strides,
                     NDArray& out, DataBuffer::Deleter deleter) {
  size_t dense_bytes = 0;
  RETURN_IF_ERROR(check_new_shape("wrap", dtype, shape, dense_bytes));
  if (data == nullptr && dense_bytes > 0)
    return Status::error(StatusCode::kNullPointer, "wrap: data pointer is null for shape %s",
                         shape.str().c_str());
  Dims st = strides ? *strides : dense_strides(shape, 'c');
  if (st.size() != shape.size())
    return Status::error(StatusCode::kShape, "wrap: %d strides given for rank %d", st.size(), shape.size());
  // The view must stay inside [data, data + bytes).
  // Every step in checked arithmetic: huge strides must not wrap around
  // into a range that looks inside the buffer.
  int64_t lo = 0, hi = 0;
  bool overflow = false;
  if (shape.product() > 0) {
    for (int d = 0; d < shape.size(); ++d) {
      int64_t span = 0;
      overflow = overflow || __builtin_mul_overflow(shape[d] - 1, st[d], &span);
      if (span < 0) overflow = overflow || __builtin_add_overflow(lo, span, &lo);
      else overflow = overflow || __builtin_add_overflow(hi, span, &hi);
    }
  }
  const int64_t es = static_cast<int64_t>(dtype_size(dtype));
  int64_t need = 0;
  overflow = overflow || __builtin_add_overflow(hi, int64_t{1}, &need) || __builtin_mul_overflow(need, es, &need);
  if (shape.product() > 0 && overflow)
    return Status::error(StatusCode::kShape,
                         "wrap: a view of shape %s with strides %s reaches past any buffer (its extent overflows "
                         "64 bits); the buffer holds %zu bytes",
                         shape.str().c_str(), st.str().c_str(), bytes);
  if (shape.product() > 0 && (lo < 0 || static_cast<uint64_t>(need) > bytes))
    return Status::error(StatusCode::kShape,
                         "wrap: a view of shape %s with strides %s needs elements %lld..%lld but the "
                         "buffer holds %zu bytes",
                         shape.str().c_str(), st.str().c_str(), static_cast<long long>(lo),
                         static_cast<long long>(hi), bytes);
  auto buf = DataBuffer::wrap(data, bytes, std::move(deleter));
  if (!buf) return Status::error(StatusCode::kOutOfMemory, "wrap: out of memory");
  NDArray a;
  a.dtype_ = dtype;
  a.shape_ = shape;
  a.strides_ = st;
  a.buffer_ = std::move(buf);
  out = std::move(a);
  return Status::ok();
}

NDArray NDArray::shape_only(const TensorShape& s) {
  NDArray a;
  a.dtype_ = s.dtype;
  a.shape_ = s.dims;
  a.strides_ = dense_strides(s.dims, s.order == 'f' ? 'f' : 'c');
  return a;
}

Status NDArray::scalar(DataType dtype, double value, NDArray& out) {
  RETURN_IF_ERROR(create(dtype, Dims{}, 'c', out));
  store_double(out.data(), dtype, value);
  return Status::ok();
}

bool NDArray::is_c_contiguous() const {
  int64_t expect = 1;
  for (int d = rank() - 1; d >= 0; --d) {
    if (shape_[d] == 0) return true;
    if (shape_[d] != 1 && strides_[d] != expect) return false;
    expect *= shape_[d];
  }
  return true;
}

bool NDArray::is_f_contiguous() const {
  int64_t expect = 1;
  for (int d = 0; d < rank(); ++d) {
    if (shape_[d] == 0) return true;
    if (shape_[d] != 1 && strides_[d] != expect) return false;
    expect *= shape_[d];
  }
  return true;
}

namespace {
// Byte range [lo, hi) an array touches inside its buffer.
void byte_extent(const NDArray& a, int64_t& lo, int64_t& hi) {
  int64_t es = static_cast<int64_t>(a.element_size());
  int64_t l = a.offset(), h = a.offset();
  for (int d = 0; d < a.rank(); ++d) {
    int64_t span = (a.dim(d) - 1) * a.strides()[d];
    if (span < 0) l += span;
    else h += span;
  }
  lo = l * es;
  hi = (h + 1) * es;
}
}  // namespace

bool NDArray::may_overlap(const NDArray& other) const {
  if (!buffer_ || buffer_ != other.buffer_ || length() == 0 || other.length() == 0) return false;
  int64_t a0, a1, b0, b1;
  byte_extent(*this, a0, a1);
  byte_extent(other, b0, b1);
  return a0 < b1 && b0 < a1;
}

bool NDArray::same_view(const NDArray& other) const {
  return buffer_ == other.buffer_ && offset_ == other.offset_ && dtype_ == other.dtype_ &&
         shape_ == other.shape_ && strides_ == other.strides_;
}

int NDArray::repeated_dim() const {
  for (int d = 0; d < rank(); ++d)
    if (strides_[d] == 0 && shape_[d] > 1) return d;
  return -1;
}

bool NDArray::covers_buffer() const {
  return buffer_ && offset_ == 0 && is_contiguous() &&
         static_cast<size_t>(length()) * element_size() == buffer_->bytes();
}

Status NDArray::reshape(const Dims& requested, NDArray& out) const {
  // Resolve one -1 extent.
  Dims shape = requested;
  int infer = -1;
  int64_t known = 1;
  for (int d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (infer >= 0)
        return Status::error(StatusCode::kShape, "reshape: more than one -1 in %s", requested.str().c_str());
      infer = d;
    } else if (shape[d] < 0) {
      return Status::error(StatusCode::kShape, "reshape: negative extent in %s", requested.str().c_str());
    } else {
      known *= shape[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || length() % known != 0)
      return Status::error(StatusCode::kShape, "reshape: cannot infer -1 in %s from %lld elements",
                           requested.str().c_str(), static_cast<long long>(length()));
    shape[infer] = length() / known;
  }
  int64_t n = 0;
  if (!checked_length(shape, n) || n != length())
    return Status::error(StatusCode::kShape, "reshape: cannot reshape %s (%lld elements) into %s",
                         shape_.str().c_str(), static_cast<long long>(length()), requested.str().c_str());
  NDArray r = *this;
  r.shape_ = shape;
  if (n == 0 || is_c_contiguous()) {
    r.strides_ = dense_strides(shape, 'c');
    out = std::move(r);
    return Status::ok();
  }
  // Strided source: match groups of old and new extents with equal products;
  // each old group must be internally contiguous (numpy's no-copy rule).
  Dims old_s, old_st;
  for (int d = 0; d < rank(); ++d)
    if (shape_[d] != 1) {
      old_s.push_back(shape_[d]);
      old_st.push_back(strides_[d]);
    }
  Dims new_st;
  new_st.resize(shape.size());
  int oi = 0, ni = 0;
  const int on = old_s.size(), nn = shape.size();
  while (ni < nn) {
    if (shape[ni] == 1) {
      new_st[ni] = 1;
      ++ni;
      continue;
    }
    if (oi >= on) break;
    int oj = oi + 1, nj = ni + 1;
    int64_t op = old_s[oi], np = shape[ni];
    while (op != np) {
      if (op < np) op *= old_s[oj++];
      else np *= shape[nj++];
    }
    for (int k = oi; k < oj - 1; ++k)
      if (old_st[k] != old_st[k + 1] * old_s[k + 1])
        return Status::error(StatusCode::kShape,
                             "reshape: a view of shape %s with strides %s cannot be reshaped to %s "
                             "without a copy",
                             shape_.str().c_str(), strides_.str().c_str(), shape.str().c_str());
    int64_t st = old_st[oj - 1];
    for (int k = nj - 1; k >= ni; --k) {
      new_st[k] = st;
      st *= shape[k];
    }
    oi = oj;
    ni = nj;
  }
  r.strides_ = new_st;
  out = std::move(r);
  return Status::ok();
}

Status NDArray::reshape_copy(const Dims& new_shape, NDArray& out) const {
  Status s = reshape(new_shape, out);
  if (s.is_ok() || s.message().find("without a copy") == std::string::npos) return s;
  NDArray dense;
  RETURN_IF_ERROR(dup('c', dense));
  return dense.reshape(new_shape, out);
}

Status NDArray::permute(const Dims& axes, NDArray& out) const {
  if (axes.size() != rank())
    return Status::error(StatusCode::kInvalidArgument, "permute: %d axes given for rank %d (%s)", axes.size(),
                         rank(), shape_.str().c_str());
  bool seen[kMaxRank] = {};
  NDArray r = *this;
  for (int d = 0; d < rank(); ++d) {
    int64_t a = axes[d] < 0 ? axes[d] + rank() : axes[d];
    if (a < 0 || a >= rank() || seen[a])
      return Status::error(StatusCode::kInvalidArgument, "permute: axes %s are not a permutation of 0..%d",
                           axes.str().c_str(), rank() - 1);
    seen[a] = true;
    r.shape_[d] = shape_[a];
    r.strides_[d] = strides_[a];
  }
  out = std::move(r);
  return Status::ok();
}

NDArray NDArray::transpose() const {
  NDArray r = *this;
  for (int d = 0; d < rank(); ++d) {
    r.shape_[d] = shape_[rank() - 1 - d];
    r.strides_[d] = strides_[rank() - 1 - d];
  }
  return r;
}

Status NDArray::slice(int axis, int64_t start, int64_t stop, int64_t step, NDArray& out) const {
  if (axis < 0) axis += rank();
  if (axis < 0 || axis >= rank())
    return Status::error(StatusCode::kInvalidArgument, "slice: axis %d out of range for rank %d", axis, rank());
  if (step == 0) return Status::error(StatusCode::kInvalidArgument, "slice: step must not be 0");
  const int64_t n = shape_[axis];
  // Python's slice.indices() rules.
  auto clamp = [&](int64_t v, bool is_start) {
    if (v < 0) v += n;
    if (step > 0) return std::clamp<int64_t>(v, 0, n);
    (void)is_start;
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  int64_t b = clamp(start, true), e = clamp(stop, false);
  int64_t count = step > 0 ? (e > b ? (e - b + step - 1) / step : 0) : (b > e ? (b - e - step - 1) / -step : 0);
  NDArray r = *this;
  if (count > 0) r.offset_ += b * strides_[axis];
  r.shape_[axis] = count;
  r.strides_[axis] = strides_[axis] * step;
  out = std::move(r);
  return Status::ok();
}

Status NDArray::broadcast_to(const Dims& shape, NDArray& out) const {
  if (!broadcasts_to_shape(shape_, shape))
    return Status::error(StatusCode::kShape, "broadcast_to: cannot broadcast %s to %s", shape_.str().c_str(),
                         shape.str().c_str());
  NDArray r = *this;
  r.shape_ = shape;
  r.strides_.resize(shape.size());
  int off = shape.size() - rank();
  for (int d = 0; d < shape.size(); ++d) {
    int ad = d - off;
    r.strides_[d] = (ad >= 0 && shape_[ad] != 1) ? strides_[ad] : 0;
  }
  out = std::move(r);
  return Status::ok();
}

Status NDArray::flip(int axis, NDArray& out) const {
  if (axis < 0) axis += rank();
  if (axis < 0 || axis >= rank())
    return Status::error(StatusCode::kInvalidArgument, "flip: axis %d out of range for rank %d", axis, rank());
  NDArray r = *this;
  if (shape_[axis] > 0) r.offset_ += (shape_[axis] - 1) * strides_[axis];
  r.strides_[axis] = -strides_[axis];
  out = std::move(r);
  return Status::ok();
}

Status NDArray::expand_dims(int axis, NDArray& out) const {
  if (axis < 0) axis += rank() + 1;
  if (axis < 0 || axis > rank())
    return Status::error(StatusCode::kInvalidArgument, "expand_dims: axis %d out of range for rank %d", axis,
                         rank());
  if (rank() >= kMaxRank)
    return Status::error(StatusCode::kShape, "expand_dims: rank %d would exceed the maximum %d", rank(), kMaxRank);
  NDArray r = *this;
  r.shape_.clear();
  r.strides_.clear();
  for (int d = 0; d <= rank(); ++d) {
    if (d == axis) {
      r.shape_.push_back(1);
      r.strides_.push_back(d < rank() ? strides_[d] * shape_[d] : 1);
    }
    if (d < rank()) {
      r.shape_.push_back(shape_[d]);
      r.strides_.push_back(strides_[d]);
    }
  }
  out = std::move(r);
  return Status::ok();
}

Status NDArray::bitcast(DataType to, NDArray& out) const {
  const size_t from_size = element_size(), to_size = dtype_size(to);
  if (is_null() || to_size == 0)
    return Status::error(StatusCode::kDtype, "bitcast: %s to %s: both must be dtypes with a size",
                         is_null() ? "(null)" : dtype_name(dtype_), dtype_name(to));
  if (!is_c_contiguous())
    return Status::error(StatusCode::kShape, "bitcast: x%s is not C-contiguous", shape_.str().c_str());
  Dims shape = shape_;
  if (to_size < from_size) {
    if (from_size % to_size != 0 || rank() >= kMaxRank)
      return Status::error(StatusCode::kShape, "bitcast: %s x%s cannot be read as %s", dtype_name(dtype_),
                           shape_.str().c_str(), dtype_name(to));
    shape.push_back(static_cast<int64_t>(from_size / to_size));
  } else if (to_size > from_size) {
    const int64_t ratio = static_cast<int64_t>(to_size / from_size);
    if (to_size % from_size != 0 || rank() == 0 || shape_[rank() - 1] != ratio)
      return Status::error(StatusCode::kShape, "bitcast: %s x%s to %s needs a last dim of %lld", dtype_name(dtype_),
                           shape_.str().c_str(), dtype_name(to), static_cast<long long>(ratio));
    shape.resize(shape.size() - 1);
  }
  const int64_t offset_bytes = offset_ * static_cast<int64_t>(from_size);
  if (offset_bytes % static_cast<int64_t>(to_size) != 0)
    return Status::error(StatusCode::kShape, "bitcast: the view starts %lld bytes in, not at a %s element",
                         static_cast<long long>(offset_bytes), dtype_name(to));
  NDArray r = *this;
  r.dtype_ = to;
  r.shape_ = shape;
  r.strides_ = dense_strides(shape, 'c');
  r.offset_ = offset_bytes / static_cast<int64_t>(to_size);
  out = std::move(r);
  return Status::ok();
}

Status NDArray::squeeze(NDArray& out) const {
  NDArray r = *this;
  r.shape_.clear();
  r.strides_.clear();
  for (int d = 0; d < rank(); ++d)
    if (shape_[d] != 1) {
      r.shape_.push_back(shape_[d]);
      r.strides_.push_back(strides_[d]);
    }
  out = std::move(r);
  return Status::ok();
}

Status NDArray::dup(char order, NDArray& out) const {
  if (!has_data()) return Status::error(StatusCode::kInvalidArgument, "dup: array has no data");
  RETURN_IF_ERROR(buffer_->sync_to_host());
  NDArray r;
  RETURN_IF_ERROR(create(dtype_, shape_, order, r));
  copy_into(*this, r);
  out = std::move(r);
  return Status::ok();
}

Status NDArray::assign(const NDArray& src) {
  if (!has_data() || !src.has_data())
    return Status::error(StatusCode::kInvalidArgument, "assign: array has no data");
  if (!broadcasts_to_shape(src.shape_, shape_))
    return Status::error(StatusCode::kShape, "assign: cannot broadcast %s to %s", src.shape_.str().c_str(),
                         shape_.str().c_str());
  RETURN_IF_ERROR(src.buffer_->sync_to_host());
  if (!covers_buffer()) RETURN_IF_ERROR(buffer_->sync_to_host());  // the bytes not written stay
  if (may_overlap(src) && !same_view(src)) {
    NDArray tmp;
    RETURN_IF_ERROR(src.dup('c', tmp));
    copy_into(tmp, *this);
  } else {
    copy_into(src, *this);
  }
  buffer_->mark_host_written();
  return Status::ok();
}

Status NDArray::assign_scalar(double value) {
  NDArray s;
  RETURN_IF_ERROR(scalar(DataType::kFloat64, value, s));
  return assign(s);
}

namespace {
int64_t element_offset(const NDArray& a, int64_t linear) {
  int64_t off = a.offset();
  for (int d = a.rank() - 1; d >= 0; --d) {
    int64_t n = a.dim(d);
    off += (linear % n) * a.strides()[d];
    linear /= n;
  }
  return off;
}
}  // namespace

double NDArray::get_double(int64_t i) const {
  const char* base = static_cast<const char*>(buffer_->host());
  return load_double(base + element_offset(*this, i) * int64_t(element_size()), dtype_);
}

int64_t NDArray::get_int64(int64_t i) const {
  const char* base = static_cast<const char*>(buffer_->host());
  return load_int64(base + element_offset(*this, i) * int64_t(element_size()), dtype_);
}

void NDArray::set_double(int64_t i, double v) {
  char* base = static_cast<char*>(buffer_->host());
  store_double(base + element_offset(*this, i) * int64_t(element_size()), dtype_, v);
  buffer_->mark_host_written();
}

Status sync_for_device_kernel(Device d, std::initializer_list<const NDArray*> inputs, NDArray& z) {
  for (const NDArray* a : inputs)
    if (a != nullptr) RETURN_IF_ERROR(a->buffer()->sync_to_device(d));
  return z.buffer()->sync_to_device(d, z.covers_buffer());
}

}  // namespace libops
