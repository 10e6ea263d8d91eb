// libops._libops: the Python package's native part, over libops' C API (the
// same stable surface C programs use). Arrays cross without copies: numpy
// (or any DLPack / buffer-protocol array nanobind reads) goes in through
// ops_array_wrap, and an output goes out as a numpy array over the engine's
// memory whose owner is the output's handle. Graph runs release the GIL; a
// Session keeps a pool of C sessions so that Python threads run one model at
// once, each on its own.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <libops/c_api.h>
#include <libops/c_graph.h>

// numpy's C API for the run fast path (Note [Run fast path]).
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL libops_numpy_api
#include <numpy/arrayobject.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

// ---- errors: libops.errors sets the function that raises the right class ----

nb::handle& raiser() {
  static nb::handle h;  // a strong reference kept for the process (set once)
  return h;
}

[[noreturn]] void raise_status(ops_status_t code, const std::string& message) {
  if (raiser().is_valid()) raiser()(static_cast<int>(code), message);  // raises: nanobind rethrows it
  throw std::runtime_error(message);
}

void check(ops_status_t s) {
  if (s != OPS_OK) raise_status(s, ops_last_error());
}

// ---- arrays ----

using AnyArray = nb::ndarray<nb::device::cpu>;

ops_dtype_t dtype_of(const nb::dlpack::dtype& t) {
  using nb::dlpack::dtype_code;
  if (t.lanes != 1) return OPS_DTYPE_INVALID;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Bool: return t.bits == 8 ? OPS_DTYPE_BOOL : OPS_DTYPE_INVALID;
    case dtype_code::Int:
      return t.bits == 8 ? OPS_DTYPE_INT8 : t.bits == 16 ? OPS_DTYPE_INT16 : t.bits == 32 ? OPS_DTYPE_INT32
             : t.bits == 64 ? OPS_DTYPE_INT64 : OPS_DTYPE_INVALID;
    case dtype_code::UInt:
      return t.bits == 8 ? OPS_DTYPE_UINT8 : t.bits == 16 ? OPS_DTYPE_UINT16 : t.bits == 32 ? OPS_DTYPE_UINT32
             : t.bits == 64 ? OPS_DTYPE_UINT64 : OPS_DTYPE_INVALID;
    case dtype_code::Float:
      return t.bits == 16 ? OPS_DTYPE_FLOAT16 : t.bits == 32 ? OPS_DTYPE_FLOAT32 : t.bits == 64 ? OPS_DTYPE_FLOAT64
                                                                                              : OPS_DTYPE_INVALID;
    case dtype_code::Bfloat: return t.bits == 16 ? OPS_DTYPE_BFLOAT16 : OPS_DTYPE_INVALID;
    default: return OPS_DTYPE_INVALID;
  }
}

nb::dlpack::dtype dlpack_of(ops_dtype_t t) {
  using nb::dlpack::dtype_code;
  auto d = [](dtype_code c, int bits) { return nb::dlpack::dtype{static_cast<uint8_t>(c), static_cast<uint8_t>(bits), 1}; };
  switch (t) {
    case OPS_DTYPE_BOOL: return d(dtype_code::Bool, 8);
    case OPS_DTYPE_INT8: return d(dtype_code::Int, 8);
    case OPS_DTYPE_INT16: return d(dtype_code::Int, 16);
    case OPS_DTYPE_INT32: return d(dtype_code::Int, 32);
    case OPS_DTYPE_INT64: return d(dtype_code::Int, 64);
    case OPS_DTYPE_UINT8: return d(dtype_code::UInt, 8);
    case OPS_DTYPE_UINT16: return d(dtype_code::UInt, 16);
    case OPS_DTYPE_UINT32: return d(dtype_code::UInt, 32);
    case OPS_DTYPE_UINT64: return d(dtype_code::UInt, 64);
    case OPS_DTYPE_FLOAT16: return d(dtype_code::Float, 16);
    case OPS_DTYPE_BFLOAT16: return d(dtype_code::UInt, 16);  // its bits; Python views them as bfloat16
    case OPS_DTYPE_FLOAT32: return d(dtype_code::Float, 32);
    case OPS_DTYPE_FLOAT64: return d(dtype_code::Float, 64);
    default: return d(dtype_code::Float, 32);
  }
}

struct ArrayFree {
  void operator()(ops_array_t* a) const { ops_array_free(a); }
};
using Handle = std::unique_ptr<ops_array_t, ArrayFree>;

// A view of `a` (no copy): it must stay alive while the handle is used.
// `code`, when not 0, is the libops dtype its bytes hold (bfloat16 comes
// from Python as uint16: numpy has no bfloat16 of its own).
Handle wrap(const AnyArray& a, size_t index, int code = 0) {
  const ops_dtype_t t = code != 0 ? static_cast<ops_dtype_t>(code) : dtype_of(a.dtype());
  if (t == OPS_DTYPE_INVALID)
    raise_status(OPS_ERR_DTYPE, "input " + std::to_string(index) + ": its dtype has no libops dtype (bool, int8-64, "
                                "uint8-64, float16, bfloat16, float32, float64)");
  const int rank = static_cast<int>(a.ndim());
  if (rank > OPS_MAX_RANK)
    raise_status(OPS_ERR_INVALID_ARGUMENT, "input " + std::to_string(index) + " has rank " + std::to_string(rank) +
                                               "; libops arrays have at most " + std::to_string(OPS_MAX_RANK));
  int64_t shape[OPS_MAX_RANK], strides[OPS_MAX_RANK];
  int64_t last = 0;  // the furthest element, for the memory block's size
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    shape[d] = static_cast<int64_t>(a.shape(static_cast<size_t>(d)));
    strides[d] = static_cast<int64_t>(a.stride(static_cast<size_t>(d)));
    if (shape[d] == 0) empty = true;
    if (strides[d] < 0)
      raise_status(OPS_ERR_INVALID_ARGUMENT, "input " + std::to_string(index) + " has a negative stride");
    last += (shape[d] - 1) * strides[d];
  }
  const size_t item = ops_dtype_size(t);
  if (item * 8 != a.dtype().bits)
    raise_status(OPS_ERR_DTYPE, "input " + std::to_string(index) + ": its elements are not " + ops_dtype_name(t));
  const size_t bytes = empty ? 0 : static_cast<size_t>(last + 1) * item;
  ops_array_t* h = nullptr;
  check(ops_array_wrap(const_cast<void*>(a.data()), bytes, t, rank, shape, strides, &h));
  return Handle(h);
}

// The memory the caller's arrays occupy: an output that views any of it (an
// identity graph, a view op) is copied, because the engine viewed those
// arrays without owning them and the output must not outlive them.
struct Span {
  const char* begin;
  const char* end;
};
using Spans = std::vector<Span>;

Spans spans_of(const std::vector<AnyArray>& arrays) {
  Spans out;
  for (const AnyArray& a : arrays) {
    int64_t last = 0;
    bool empty = false;
    for (size_t d = 0; d < a.ndim(); ++d) {
      if (a.shape(d) == 0) empty = true;
      last += (static_cast<int64_t>(a.shape(d)) - 1) * a.stride(d);
    }
    if (empty) continue;
    const char* p = static_cast<const char*>(a.data());
    out.push_back({p, p + (last + 1) * static_cast<int64_t>(a.dtype().bits / 8)});
  }
  return out;
}

// The output handle as (numpy array, libops dtype code): over the engine's
// memory, which the array now owns, unless it lies in `inputs` (copied).
nb::object to_numpy(ops_array_t* raw, const Spans& inputs = {}) {
  Handle h(raw);
  ops_dtype_t t = OPS_DTYPE_INVALID;
  int rank = 0;
  void* data = nullptr;
  check(ops_array_dtype(h.get(), &t));
  check(ops_array_rank(h.get(), &rank));
  std::vector<int64_t> shape(static_cast<size_t>(rank)), strides(static_cast<size_t>(rank));
  if (rank > 0) {
    check(ops_array_shape(h.get(), shape.data()));
    check(ops_array_strides(h.get(), strides.data()));
  }
  check(ops_array_data(h.get(), &data));
  std::vector<size_t> ushape(shape.begin(), shape.end());
  bool aliased = false;
  for (const Span& in : inputs)
    if (static_cast<const char*>(data) >= in.begin && static_cast<const char*>(data) < in.end) aliased = true;
  if (aliased) {
    int64_t n = 0;
    check(ops_array_length(h.get(), &n));
    const size_t bytes = static_cast<size_t>(n) * ops_dtype_size(t);
    void* copy = ::operator new(bytes > 0 ? bytes : 1);
    nb::capsule copy_owner(copy, [](void* p) noexcept { ::operator delete(p); });
    check(ops_array_copy_to(h.get(), copy, bytes));
    nb::ndarray<nb::numpy> out(copy, static_cast<size_t>(rank), ushape.data(), copy_owner, nullptr, dlpack_of(t));
    return nb::make_tuple(out.cast(), static_cast<int>(t));
  }
  nb::capsule owner(h.get(), [](void* p) noexcept { ops_array_free(static_cast<ops_array_t*>(p)); });
  h.release();
  nb::ndarray<nb::numpy> out(data, static_cast<size_t>(rank), ushape.data(), owner, strides.data(), dlpack_of(t));
  return nb::make_tuple(out.cast(), static_cast<int>(t));
}

std::vector<Handle> wrap_all(const std::vector<AnyArray>& arrays, const std::vector<int>& codes) {
  if (codes.size() != arrays.size())
    raise_status(OPS_ERR_INVALID_ARGUMENT, "dtype codes for " + std::to_string(codes.size()) + " of " +
                                               std::to_string(arrays.size()) + " arrays");
  std::vector<Handle> handles;
  handles.reserve(arrays.size());
  for (size_t k = 0; k < arrays.size(); ++k) handles.push_back(wrap(arrays[k], k, codes[k]));
  return handles;
}

// ---- the run fast path ----
//
// Note [Run fast path]
//  A run's fixed cost from Python is what users of a small model pay on
//  every call, so the common case skips nanobind's array conversions
//  (DLPack capsules both ways, some microseconds a run): feeds that are
//  numpy arrays of a libops dtype with non-negative strides are read
//  through numpy's C API, and the outputs are made with it, each with its
//  handle as base. Anything else (bfloat16, other array types) returns
//  None and takes the general path.

ops_dtype_t npy_to_ops(int t) {
  switch (t) {
    case NPY_BOOL: return OPS_DTYPE_BOOL;
    case NPY_INT8: return OPS_DTYPE_INT8;
    case NPY_INT16: return OPS_DTYPE_INT16;
    case NPY_INT32: return OPS_DTYPE_INT32;
    case NPY_INT64: return OPS_DTYPE_INT64;
    case NPY_UINT8: return OPS_DTYPE_UINT8;
    case NPY_UINT16: return OPS_DTYPE_UINT16;
    case NPY_UINT32: return OPS_DTYPE_UINT32;
    case NPY_UINT64: return OPS_DTYPE_UINT64;
    case NPY_FLOAT16: return OPS_DTYPE_FLOAT16;
    case NPY_FLOAT32: return OPS_DTYPE_FLOAT32;
    case NPY_FLOAT64: return OPS_DTYPE_FLOAT64;
    default: return OPS_DTYPE_INVALID;  // NPY_LONGLONG etc. alias the above on Linux x86-64
  }
}

int ops_to_npy(ops_dtype_t t) {
  switch (t) {
    case OPS_DTYPE_BOOL: return NPY_BOOL;
    case OPS_DTYPE_INT8: return NPY_INT8;
    case OPS_DTYPE_INT16: return NPY_INT16;
    case OPS_DTYPE_INT32: return NPY_INT32;
    case OPS_DTYPE_INT64: return NPY_INT64;
    case OPS_DTYPE_UINT8: return NPY_UINT8;
    case OPS_DTYPE_UINT16: return NPY_UINT16;
    case OPS_DTYPE_UINT32: return NPY_UINT32;
    case OPS_DTYPE_UINT64: return NPY_UINT64;
    case OPS_DTYPE_FLOAT16: return NPY_FLOAT16;
    case OPS_DTYPE_BFLOAT16: return NPY_UINT16;  // its bits
    case OPS_DTYPE_FLOAT32: return NPY_FLOAT32;
    case OPS_DTYPE_FLOAT64: return NPY_FLOAT64;
    default: return -1;
  }
}

// A view of numpy array `a`, or null (the general path takes it).
Handle wrap_numpy(PyObject* obj, Span& span) {
  if (!PyArray_Check(obj)) return nullptr;
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(obj);
  const ops_dtype_t t = npy_to_ops(PyArray_TYPE(a));
  const int rank = PyArray_NDIM(a);
  if (t == OPS_DTYPE_INVALID || rank > OPS_MAX_RANK || !PyArray_ISNOTSWAPPED(a)) return nullptr;
  const int64_t item = static_cast<int64_t>(PyArray_ITEMSIZE(a));
  int64_t shape[OPS_MAX_RANK], strides[OPS_MAX_RANK], last = 0;
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    shape[d] = PyArray_DIM(a, d);
    const int64_t sb = PyArray_STRIDE(a, d);
    if (sb < 0 || sb % item != 0) return nullptr;
    strides[d] = sb / item;
    if (shape[d] == 0) empty = true;
    last += (shape[d] - 1) * strides[d];
  }
  const size_t bytes = empty ? 0 : static_cast<size_t>((last + 1) * item);
  char* data = static_cast<char*>(PyArray_DATA(a));
  span = {data, data + bytes};
  ops_array_t* h = nullptr;
  check(ops_array_wrap(data, bytes, t, rank, shape, strides, &h));
  return Handle(h);
}

// The output as a numpy array over the engine's memory (its handle the
// base), or a copy where it lies in the caller's arrays.
PyObject* numpy_of(ops_array_t* raw, const Spans& inputs, bool& bfloat16) {
  Handle h(raw);
  ops_dtype_t t = OPS_DTYPE_INVALID;
  int rank = 0;
  void* data = nullptr;
  int64_t shape[OPS_MAX_RANK], strides[OPS_MAX_RANK];
  check(ops_array_dtype(h.get(), &t));
  check(ops_array_rank(h.get(), &rank));
  if (rank > 0) {
    check(ops_array_shape(h.get(), shape));
    check(ops_array_strides(h.get(), strides));
  }
  check(ops_array_data(h.get(), &data));
  bfloat16 = t == OPS_DTYPE_BFLOAT16;
  const int npy = ops_to_npy(t);
  npy_intp dims[OPS_MAX_RANK], bstrides[OPS_MAX_RANK];
  const int64_t item = static_cast<int64_t>(ops_dtype_size(t));
  for (int d = 0; d < rank; ++d) {
    dims[d] = static_cast<npy_intp>(shape[d]);
    bstrides[d] = static_cast<npy_intp>(strides[d] * item);
  }
  bool aliased = false;
  for (const Span& in : inputs)
    if (static_cast<const char*>(data) >= in.begin && static_cast<const char*>(data) < in.end) aliased = true;
  if (aliased) {
    PyObject* copy = PyArray_SimpleNew(rank, dims, npy);
    if (copy == nullptr) throw nb::python_error();
    int64_t n = 0;
    check(ops_array_length(h.get(), &n));
    check(ops_array_copy_to(h.get(), PyArray_DATA(reinterpret_cast<PyArrayObject*>(copy)), static_cast<size_t>(n * item)));
    return copy;
  }
  PyObject* arr = PyArray_New(&PyArray_Type, rank, dims, npy, bstrides, data, 0, NPY_ARRAY_WRITEABLE, nullptr);
  if (arr == nullptr) throw nb::python_error();
  PyObject* owner = PyCapsule_New(h.get(), nullptr, [](PyObject* c) { ops_array_free(static_cast<ops_array_t*>(PyCapsule_GetPointer(c, nullptr))); });
  if (owner == nullptr) {
    Py_DECREF(arr);
    throw nb::python_error();
  }
  h.release();
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), owner) < 0) {  // steals owner
    Py_DECREF(arr);
    throw nb::python_error();
  }
  return arr;
}

// ---- graphs and sessions ----

struct GraphFree {
  void operator()(ops_graph_t* g) const { ops_graph_free(g); }
};
struct SessionFree {
  void operator()(ops_graph_session_t* s) const { ops_graph_session_free(s); }
};

class Graph {
 public:
  static Graph from_file(const std::string& path) {
    ops_graph_t* g = nullptr;
    check(ops_graph_load_file(path.c_str(), &g));
    return Graph(g);
  }
  static Graph from_bytes(nb::bytes data) {
    ops_graph_t* g = nullptr;
    check(ops_graph_load_buffer(data.c_str(), data.size(), 0, &g));
    return Graph(g);
  }
  ops_graph_t* get() const { return graph_.get(); }

  // (name, dtype code, shape or None, dim names) per input / output.
  nb::list values(bool inputs) const {
    nb::list out;
    const int n = inputs ? ops_graph_input_count(get()) : ops_graph_output_count(get());
    for (int k = 0; k < n; ++k) {
      ops_value_info_t info{};
      check(inputs ? ops_graph_input_info(get(), k, &info) : ops_graph_output_info(get(), k, &info));
      nb::object shape = nb::none();
      nb::list names;
      if (info.rank >= 0) {
        nb::list dims;
        for (int d = 0; d < info.rank; ++d) {
          dims.append(info.shape[d]);
          const char* dim_name = "";
          if (inputs) check(ops_graph_input_dim_name(get(), k, d, &dim_name));
          names.append(nb::str(dim_name));
        }
        shape = nb::tuple(dims);
      }
      out.append(nb::make_tuple(nb::str(info.name), static_cast<int>(info.dtype), shape, nb::tuple(names)));
    }
    return out;
  }
  // ops_value_kind_t per input / output (0 tensor, 1 sequence, 2 optional
  // tensor, 3 optional sequence).
  std::vector<int> kinds(bool inputs) const {
    std::vector<int> out;
    const int n = inputs ? ops_graph_input_count(get()) : ops_graph_output_count(get());
    for (int k = 0; k < n; ++k) {
      ops_value_kind_t kind = OPS_VALUE_TENSOR;
      check(inputs ? ops_graph_input_kind(get(), k, &kind) : ops_graph_output_kind(get(), k, &kind));
      out.push_back(static_cast<int>(kind));
    }
    return out;
  }
  std::vector<std::string> rewrites() const {
    std::vector<std::string> out;
    for (int k = 0; k < ops_graph_rewrite_count(get()); ++k) {
      const char* line = nullptr;
      check(ops_graph_rewrite(get(), k, &line));
      out.emplace_back(line);
    }
    return out;
  }

 private:
  explicit Graph(ops_graph_t* g) : graph_(g, GraphFree{}) {}
  std::shared_ptr<ops_graph_t> graph_;
};

// Note [Sessions from many threads]
//  A C session serves one thread at a time. This one keeps a pool: a run
//  takes a free C session (or makes one with the settings), runs with the
//  GIL released, and puts it back, so Python threads that share a Session
//  run at once. The profile is the last finished run's.
class Session {
 public:
  Session(const Graph& graph, int threads, const std::string& device, bool profiling)
      : graph_(graph), threads_(threads), device_(device), profiling_(profiling) {
    put(make());  // the first one now, so that a bad device fails here
  }

  nb::list run(const std::vector<std::string>& names, const std::vector<AnyArray>& arrays,
               const std::vector<int>& codes) {
    if (names.size() != arrays.size())
      raise_status(OPS_ERR_INVALID_ARGUMENT, "run: " + std::to_string(names.size()) + " names for " +
                                                 std::to_string(arrays.size()) + " arrays");
    std::vector<Handle> handles = wrap_all(arrays, codes);
    std::vector<const char*> name_ptrs;
    std::vector<const ops_array_t*> inputs;
    for (size_t k = 0; k < names.size(); ++k) {
      name_ptrs.push_back(names[k].c_str());
      inputs.push_back(handles[k].get());
    }
    std::unique_ptr<ops_graph_session_t, SessionFree> s = take();
    const int n_out = ops_graph_output_count(graph_.get());
    std::vector<ops_array_t*> outs(static_cast<size_t>(n_out), nullptr);
    ops_status_t status = OPS_OK;
    std::string error;
    std::string table;
    int64_t run_ns = 0, peak = 0;
    {
      nb::gil_scoped_release release;
      status = ops_graph_run(s.get(), name_ptrs.data(), inputs.data(), static_cast<int>(inputs.size()));
      if (status == OPS_OK) ops_graph_session_last_run(s.get(), &run_ns, &peak);
      if (status == OPS_OK) {
        for (int k = 0; k < n_out && status == OPS_OK; ++k) status = ops_graph_session_output_at(s.get(), k, &outs[static_cast<size_t>(k)]);
        const char* text = nullptr;
        if (status == OPS_OK && profiling_ && ops_graph_session_profile_table(s.get(), &text) == OPS_OK) table = text;
      }
      if (status != OPS_OK) error = ops_last_error();
    }
    put(std::move(s));
    nb::list result;
    std::vector<Handle> owned;
    for (ops_array_t* o : outs) owned.emplace_back(o);
    if (status != OPS_OK) raise_status(status, error);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (profiling_) last_profile_ = table;
      last_run_ns_ = run_ns;
    }
    const Spans spans = spans_of(arrays);
    for (Handle& h : owned) result.append(to_numpy(h.release(), spans));
    return result;
  }

  // A run of a graph with sequence or optional inputs or outputs: tensors
  // fed as in run; lists[j] feeds the sequence or optional list_names[j]
  // (present[j] false: none). Outputs: an array, a list of arrays, or None
  // for an empty optional.
  nb::list run_values(const std::vector<std::string>& names, const std::vector<AnyArray>& arrays,
                      const std::vector<int>& codes, const std::vector<std::string>& list_names,
                      const std::vector<std::vector<AnyArray>>& lists, const std::vector<std::vector<int>>& list_codes,
                      const std::vector<bool>& present) {
    if (names.size() != arrays.size() || list_names.size() != lists.size() || lists.size() != list_codes.size() ||
        lists.size() != present.size())
      raise_status(OPS_ERR_INVALID_ARGUMENT, "run_values: the name and value lists differ in length");
    std::vector<Handle> handles = wrap_all(arrays, codes);
    std::vector<std::vector<Handle>> list_handles;
    for (size_t j = 0; j < lists.size(); ++j) list_handles.push_back(wrap_all(lists[j], list_codes[j]));
    std::vector<const char*> name_ptrs;
    std::vector<const ops_array_t*> inputs;
    for (size_t k = 0; k < names.size(); ++k) {
      name_ptrs.push_back(names[k].c_str());
      inputs.push_back(handles[k].get());
    }
    std::unique_ptr<ops_graph_session_t, SessionFree> s = take();
    const int n_out = ops_graph_output_count(graph_.get());
    // Per output: its arrays (one for a tensor), or none for an empty optional.
    std::vector<std::vector<ops_array_t*>> outs(static_cast<size_t>(n_out));
    std::vector<uint8_t> out_list(static_cast<size_t>(n_out), 0), out_present(static_cast<size_t>(n_out), 1);
    ops_status_t status = OPS_OK;
    std::string error;
    {
      nb::gil_scoped_release release;
      for (size_t j = 0; j < lists.size() && status == OPS_OK; ++j) {
        std::vector<const ops_array_t*> e;
        for (const Handle& h : list_handles[j]) e.push_back(h.get());
        status = ops_graph_session_set_input_list(s.get(), list_names[j].c_str(), e.data(), static_cast<int>(e.size()),
                                                  present[j]);
      }
      if (status == OPS_OK)
        status = ops_graph_run(s.get(), name_ptrs.data(), inputs.data(), static_cast<int>(inputs.size()));
      for (int k = 0; k < n_out && status == OPS_OK; ++k) {
        ops_value_kind_t kind = OPS_VALUE_TENSOR;
        bool has = true;
        status = ops_graph_output_kind(graph_.get(), k, &kind);
        if (status == OPS_OK) status = ops_graph_session_output_present(s.get(), k, &has);
        auto& o = outs[static_cast<size_t>(k)];
        out_present[static_cast<size_t>(k)] = has;
        out_list[static_cast<size_t>(k)] = kind == OPS_VALUE_SEQUENCE || kind == OPS_VALUE_OPTIONAL_SEQUENCE;
        if (status != OPS_OK || !has) continue;
        if (!out_list[static_cast<size_t>(k)]) {
          o.push_back(nullptr);
          status = ops_graph_session_output_at(s.get(), k, &o.back());
          continue;
        }
        int64_t size = 0;
        status = ops_graph_session_output_list_size(s.get(), k, &size);
        for (int64_t i = 0; i < size && status == OPS_OK; ++i) {
          o.push_back(nullptr);
          status = ops_graph_session_output_list_item(s.get(), k, i, &o.back());
        }
      }
      if (status != OPS_OK) error = ops_last_error();
    }
    put(std::move(s));
    std::vector<std::vector<Handle>> owned(static_cast<size_t>(n_out));
    for (int k = 0; k < n_out; ++k)
      for (ops_array_t* a : outs[static_cast<size_t>(k)]) owned[static_cast<size_t>(k)].emplace_back(a);
    if (status != OPS_OK) raise_status(status, error);
    std::vector<AnyArray> all = arrays;
    for (const auto& l : lists) all.insert(all.end(), l.begin(), l.end());
    const Spans spans = spans_of(all);
    nb::list result;
    for (int k = 0; k < n_out; ++k) {
      auto& o = owned[static_cast<size_t>(k)];
      if (!out_present[static_cast<size_t>(k)]) {
        result.append(nb::none());
      } else if (!out_list[static_cast<size_t>(k)]) {
        result.append(to_numpy(o[0].release(), spans));
      } else {
        nb::list items;
        for (Handle& h : o) items.append(to_numpy(h.release(), spans));
        result.append(items);
      }
    }
    return result;
  }

  // Note [Run fast path]: (outputs, bfloat16 mask) or None.
  nb::object run_dict(nb::dict feeds) {
    const size_t n = feeds.size();
    std::vector<Handle> handles;
    std::vector<const char*> names;
    std::vector<const ops_array_t*> inputs;
    Spans spans;
    // Held for the run: with the GIL released, another thread may drop the
    // dict's keys and arrays while the engine reads them.
    std::vector<nb::object> held;
    held.reserve(2 * n);
    handles.reserve(n);
    for (auto [key, value] : feeds) {
      held.push_back(nb::borrow(key));
      held.push_back(nb::borrow(value));
      Span span{};
      Handle h = wrap_numpy(value.ptr(), span);
      if (!h) return nb::none();
      const char* name = PyUnicode_AsUTF8(key.ptr());
      if (name == nullptr) throw nb::python_error();
      names.push_back(name);
      inputs.push_back(h.get());
      handles.push_back(std::move(h));
      if (span.end != span.begin) spans.push_back(span);
    }
    std::unique_ptr<ops_graph_session_t, SessionFree> s = take();
    const int n_out = ops_graph_output_count(graph_.get());
    ops_array_t* outs[64];
    std::vector<ops_array_t*> many;
    ops_array_t** out = n_out <= 64 ? outs : (many.resize(static_cast<size_t>(n_out)), many.data());
    for (int k = 0; k < n_out; ++k) out[k] = nullptr;
    ops_status_t status = OPS_OK;
    std::string error, table;
    int64_t run_ns = 0, peak = 0;
    {
      nb::gil_scoped_release release;
      status = ops_graph_run(s.get(), names.data(), inputs.data(), static_cast<int>(inputs.size()));
      if (status == OPS_OK) ops_graph_session_last_run(s.get(), &run_ns, &peak);
      for (int k = 0; k < n_out && status == OPS_OK; ++k) status = ops_graph_session_output_at(s.get(), k, &out[k]);
      const char* text = nullptr;
      if (status == OPS_OK && profiling_ && ops_graph_session_profile_table(s.get(), &text) == OPS_OK) table = text;
      if (status != OPS_OK) error = ops_last_error();
    }
    put(std::move(s));
    std::vector<Handle> owned;
    owned.reserve(static_cast<size_t>(n_out));
    for (int k = 0; k < n_out; ++k) owned.emplace_back(out[k]);
    if (status != OPS_OK) raise_status(status, error);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (profiling_) last_profile_ = table;
      last_run_ns_ = run_ns;
    }
    PyObject* list = PyList_New(n_out);
    if (list == nullptr) throw nb::python_error();
    nb::object result = nb::steal(list);
    long mask = 0;
    for (int k = 0; k < n_out; ++k) {
      bool bf16 = false;
      PyList_SET_ITEM(list, k, numpy_of(owned[static_cast<size_t>(k)].release(), spans, bf16));
      if (bf16) mask |= 1L << (k < 62 ? k : 62);
    }
    return nb::make_tuple(result, mask);
  }

  std::string profile() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_profile_;
  }
  // The engine's own time of the last finished run (ops_graph_run, inside).
  int64_t last_run_ns() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_run_ns_;
  }

 private:
  std::unique_ptr<ops_graph_session_t, SessionFree> make() {
    ops_graph_session_t* raw = nullptr;
    check(ops_graph_session_create(graph_.get(), &raw));
    std::unique_ptr<ops_graph_session_t, SessionFree> s(raw);
    check(ops_graph_session_set_threads(s.get(), threads_));
    check(ops_graph_session_set_profiling(s.get(), profiling_));
    if (!device_.empty()) check(ops_graph_session_set_device(s.get(), device_.c_str()));
    return s;
  }
  std::unique_ptr<ops_graph_session_t, SessionFree> take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        auto s = std::move(free_.back());
        free_.pop_back();
        return s;
      }
    }
    return make();
  }
  void put(std::unique_ptr<ops_graph_session_t, SessionFree> s) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(s));
  }

  Graph graph_;
  int threads_;
  std::string device_;
  bool profiling_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ops_graph_session_t, SessionFree>> free_;
  std::string last_profile_;
  int64_t last_run_ns_ = 0;
};

// ---- op calls ----

nb::list op_call(const std::string& name, const std::vector<AnyArray>& arrays, const std::vector<int>& codes,
                 const std::vector<double>& t, const std::vector<int64_t>& i, const std::vector<bool>& b,
                 const std::vector<int>& d) {
  std::vector<Handle> handles = wrap_all(arrays, codes);
  std::vector<ops_array_t*> inputs;
  for (Handle& h : handles) inputs.push_back(h.get());
  std::unique_ptr<bool[]> bs(new bool[b.size() + 1]);
  for (size_t k = 0; k < b.size(); ++k) bs[k] = b[k];
  std::vector<ops_dtype_t> ds;
  for (int v : d) ds.push_back(static_cast<ops_dtype_t>(v));
  ops_args_t args{};
  args.t_args = t.data();
  args.n_t_args = static_cast<int>(t.size());
  args.i_args = i.data();
  args.n_i_args = static_cast<int>(i.size());
  args.b_args = bs.get();
  args.n_b_args = static_cast<int>(b.size());
  args.d_args = ds.data();
  args.n_d_args = static_cast<int>(ds.size());
  ops_array_t** outs = nullptr;
  int n_out = 0;
  ops_status_t status;
  std::string error;
  {
    nb::gil_scoped_release release;
    status = ops_exec_alloc(name.c_str(), inputs.data(), static_cast<int>(inputs.size()), &args, &outs, &n_out);
    if (status != OPS_OK) error = ops_last_error();
  }
  if (status != OPS_OK) raise_status(status, error);
  std::vector<Handle> owned;
  for (int k = 0; k < n_out; ++k) owned.emplace_back(outs[k]);
  std::free(outs);  // the list itself (ops_array_list_free would free the handles too)
  nb::list result;
  const Spans spans = spans_of(arrays);
  for (Handle& h : owned) result.append(to_numpy(h.release(), spans));
  return result;
}

nb::object legacy(int group, int op, const AnyArray& x, int x_code, nb::object y, int y_code, int out_dtype,
                  const std::vector<int64_t>& out_shape, const std::vector<int64_t>& axes,
                  const std::vector<double>& extra) {
  Handle xh = wrap(x, 0, x_code), yh;
  if (!y.is_none()) yh = wrap(nb::cast<AnyArray>(y), 1, y_code);
  ops_array_t* z = nullptr;
  check(ops_array_create(static_cast<ops_dtype_t>(out_dtype), static_cast<int>(out_shape.size()), out_shape.data(), 'c',
                         &z));
  Handle zh(z);
  ops_status_t status;
  std::string error;
  {
    nb::gil_scoped_release release;
    status = ops_exec_legacy(static_cast<ops_legacy_group_t>(group), op, xh.get(), yh.get(), zh.get(), axes.data(),
                             static_cast<int>(axes.size()), extra.data(), static_cast<int>(extra.size()));
    if (status != OPS_OK) error = ops_last_error();
  }
  if (status != OPS_OK) raise_status(status, error);
  return to_numpy(zh.release());
}

nb::bytes convert_onnx(const std::string& path) {
  void* data = nullptr;
  size_t size = 0;
  check(ops_onnx_convert_file(path.c_str(), &data, &size));
  nb::bytes out(static_cast<const char*>(data), size);
  ops_onnx_free(data);
  return out;
}

std::string text_of(ops_status_t (*fn)(const char*, const char**), const std::string& arg) {
  const char* text = nullptr;
  check(fn(arg.c_str(), &text));
  return text;
}

}  // namespace

NB_MODULE(_libops, m) {
  m.doc() = "libops' native part (the C API); use the libops package.";
  if (_import_array() < 0) throw nb::python_error();
  m.def("_set_raiser", [](nb::object f) { raiser() = f.release(); });
  m.def("version", &ops_version);
  m.def("set_num_threads", &ops_set_num_threads);
  m.def("get_num_threads", &ops_get_num_threads);
  m.def("set_device", [](const std::string& d) { check(ops_set_device(d.c_str())); });
  m.def("load_op_library", [](const std::string& path) { check(ops_load_op_library(path.c_str())); });
  m.def("registry_json", [] {
    const char* text = nullptr;
    check(ops_registry_reference("json", &text));
    return std::string(text);
  });
  m.def("dtype_size", [](int t) { return ops_dtype_size(static_cast<ops_dtype_t>(t)); });
  m.def("op_call", &op_call, nb::arg("name"), nb::arg("inputs"), nb::arg("codes"), nb::arg("t"), nb::arg("i"),
        nb::arg("b"), nb::arg("d"));
  m.def("legacy", &legacy, nb::arg("group"), nb::arg("op"), nb::arg("x"), nb::arg("x_code"), nb::arg("y").none(),
        nb::arg("y_code"), nb::arg("dtype"), nb::arg("shape"), nb::arg("axes"), nb::arg("extra"));
  m.def("legacy_find", [](int group, const std::string& name) {
    int num = -1;
    check(ops_legacy_find(static_cast<ops_legacy_group_t>(group), name.c_str(), &num));
    return num;
  });
  m.def("convert_onnx", &convert_onnx);
  m.def("onnx_list_unsupported", [](const std::string& p) { return text_of(&ops_onnx_list_unsupported, p); });
  m.def("onnx_describe", [](const std::string& p) { return text_of(&ops_onnx_describe, p); });

  nb::class_<Graph>(m, "Graph")
      .def_static("from_file", &Graph::from_file)
      .def_static("from_bytes", &Graph::from_bytes)
      .def("values", &Graph::values)
      .def("kinds", &Graph::kinds)
      .def("rewrites", &Graph::rewrites);
  nb::class_<Session>(m, "Session")
      .def(nb::init<const Graph&, int, const std::string&, bool>())
      .def("run", &Session::run)
      .def("run_dict", &Session::run_dict)
      .def("run_values", &Session::run_values)
      .def("profile", &Session::profile)
      .def("last_run_ns", &Session::last_run_ns);
}
