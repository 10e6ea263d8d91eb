// NDArray: a strided view over a shared DataBuffer.
//
// shape and strides are in elements; `offset` is the element index of the
// first element in the buffer. Views (reshape where strides allow, permute,
// slice with step, broadcast with stride 0, flip with a negative stride) share
// the buffer and copy nothing. An array with a 0 extent is valid everywhere
// and has length 0. A default-constructed NDArray is "null" (no dtype); an
// array made by shape_only() has a dtype and shape but no buffer, which is
// what shape inference works on.
#pragma once

#include "libops/core/api.h"

#include <initializer_list>
#include <memory>

#include "libops/array/data_buffer.h"
#include "libops/array/dims.h"
#include "libops/array/shape.h"
#include "libops/core/dtype.h"
#include "libops/core/status.h"

LIBOPS_API_BEGIN

namespace libops {

class NDArray {
 public:
  NDArray() = default;

  // Dense array, uninitialized (create) or zero-filled (zeros).
  static Status create(DataType dtype, const Dims& shape, char order, NDArray& out);
  static Status zeros(DataType dtype, const Dims& shape, char order, NDArray& out);
  // A view of caller memory. `strides` in elements, or nullptr for dense C order.
  // `bytes` is the size of the memory block, checked against the view's extent.
  static Status wrap(void* data, size_t bytes, DataType dtype, const Dims& shape,
                     const Dims* strides, NDArray& out, DataBuffer::Deleter deleter = {});
  // Dtype and shape only, no data: for shape inference.
  static NDArray shape_only(const TensorShape& s);
  // A rank-0 array holding `value` converted to `dtype`.
  static Status scalar(DataType dtype, double value, NDArray& out);

  bool is_null() const { return dtype_ == DataType::kInvalid; }
  bool has_data() const { return buffer_ != nullptr; }
  DataType dtype() const { return dtype_; }
  int rank() const { return shape_.size(); }
  const Dims& shape() const { return shape_; }
  int64_t dim(int i) const { return shape_[i]; }
  const Dims& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int64_t length() const { return shape_.product(); }
  bool is_empty() const { return length() == 0; }
  bool is_scalar() const { return rank() == 0; }
  size_t element_size() const { return dtype_size(dtype_); }
  TensorShape desc() const { return TensorShape{dtype_, shape_, is_f_contiguous() && !is_c_contiguous() ? 'f' : 'c'}; }
  const std::shared_ptr<DataBuffer>& buffer() const { return buffer_; }

  bool is_c_contiguous() const;
  bool is_f_contiguous() const;
  bool is_contiguous() const { return is_c_contiguous() || is_f_contiguous(); }
  // True when two arrays view overlapping bytes of the same buffer.
  bool may_overlap(const NDArray& other) const;
  bool same_view(const NDArray& other) const;
  // The dim along which the view repeats elements (stride 0, extent > 1), or
  // -1. Such a view (a broadcast) cannot be an output.
  int repeated_dim() const;
  // True when writing every element overwrites the whole buffer, so an
  // output's old contents need not be synced before a kernel writes it.
  bool covers_buffer() const;

  // Address of the first element (buffer + offset); nullptr for shape-only.
  void* data() const {
    return buffer_ ? static_cast<char*>(buffer_->host()) + offset_ * static_cast<int64_t>(element_size())
                   : nullptr;
  }
  template <typename T> T* data_as() const { return static_cast<T*>(data()); }
  // The same element in the buffer's device copy (Note [Host and device
  // copies] in data_buffer.h): valid after buffer()->sync_to_device().
  void* device_data() const {
    return buffer_ && buffer_->device_data()
               ? static_cast<char*>(buffer_->device_data()) + offset_ * static_cast<int64_t>(element_size())
               : nullptr;
  }

  // ---- zero-copy views ----
  // C-order reshape; one extent may be -1. Fails with kShape when the strides
  // do not allow a view (use reshape_copy then).
  Status reshape(const Dims& new_shape, NDArray& out) const;
  Status reshape_copy(const Dims& new_shape, NDArray& out) const;  // view if possible, else dense copy
  Status permute(const Dims& axes, NDArray& out) const;
  NDArray transpose() const;  // reverses all axes
  // Python-style slice of one axis: negative start/stop count from the end and
  // are clamped; step may be negative, never 0.
  Status slice(int axis, int64_t start, int64_t stop, int64_t step, NDArray& out) const;
  Status broadcast_to(const Dims& shape, NDArray& out) const;  // Note [Broadcasting]
  Status flip(int axis, NDArray& out) const;
  Status expand_dims(int axis, NDArray& out) const;
  Status squeeze(NDArray& out) const;  // drops every extent-1 axis
  // The same bytes read as dtype `to` (C-contiguous arrays): a narrower
  // dtype adds a last dim of size ratio, a wider one takes a last dim of
  // that ratio away (TensorFlow's bitcast); the same size keeps the shape.
  Status bitcast(DataType to, NDArray& out) const;

  // ---- copies ----
  // Host-side copies: they first bring the host copies they read (and, for
  // a partial write, the one they write) up to date, and mark what they
  // wrote (Note [Host and device copies]), so they are right after device
  // ops too.
  Status dup(char order, NDArray& out) const;  // dense copy, same dtype
  // Copies `src` into this array, broadcasting and converting dtype.
  Status assign(const NDArray& src);
  Status assign_scalar(double value);

  // Element access by logical C-order index through double, for tests, tools
  // and scalar arguments (not kernels): the host copy as it is (sync it first
  // if a device wrote last). set_double marks the host copy written.
  double get_double(int64_t linear_index) const;
  void set_double(int64_t linear_index, double value);
  int64_t get_int64(int64_t linear_index) const;

 private:
  DataType dtype_ = DataType::kInvalid;
  Dims shape_;
  Dims strides_;
  int64_t offset_ = 0;
  std::shared_ptr<DataBuffer> buffer_;
};

// Before a kernel runs on `d` (Note [Host and device copies]): each input's
// newest data copied to `d` where it is stale there, and z's too unless z
// covers its buffer (the kernel overwrites all of it). Null inputs are
// skipped. On the CPU that is one atomic load per array when nothing is
// stale.
Status sync_for_device_kernel(Device d, std::initializer_list<const NDArray*> inputs, NDArray& z);
inline Status sync_for_kernel(Device d, std::initializer_list<const NDArray*> inputs, NDArray& z) {
  if (!d.is_cpu()) return sync_for_device_kernel(d, inputs, z);
  for (const NDArray* a : inputs)
    if (a != nullptr && a->buffer()->host_stale()) RETURN_IF_ERROR(a->buffer()->sync_to_host());
  return z.buffer()->host_stale() ? z.buffer()->sync_to_host() : Status::ok();
}

}  // namespace libops

LIBOPS_API_END
