// libFuzzer target for op calls through the C API: the bytes choose an op
// (any registered custom op, or a legacy group and number), its inputs
// (count, dtype, rank, extents, values, sometimes a strided view) and its
// t/i/b/d args, and the call runs with outputs the op allocates. Whatever
// comes in, the call returns a status (an error names the op): no crash,
// no sanitizer report, no leak. Sizes stay small (at most 4096 elements
// per input, int args in [-4, 40]) so runs are fast. Args can still ask
// for a large output (random_uniform of shape [40, 40, 40, 40, 40] is 400
// MB), so host allocations over 256 KiB fail: such a call must report
// out-of-memory cleanly, which is worth fuzzing too. The cap bounds the
// work a call can ask for: under ASan and the fuzzer's instrumentation one
// threefry draw costs about 17 us, and random_uniform of shape [20, 22,
// 26, 26, 12] (14 MB, under an earlier 16 MiB cap) ran 31 s, past the 10 s
// timeout. 256 KiB is eight times the largest input (4096 float64 values).
//
// Replaying one input with LIBOPS_FUZZ_TRACE=1 in the environment prints the
// call it makes (op, input dtypes and shapes, args) to stderr.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "libops/array/data_buffer.h"
#include "libops/c_api.h"

namespace {

// Reads the fuzzer's bytes front to back; past the end, zeros.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  uint8_t byte() { return p_ < end_ ? *p_++ : 0; }
  int small(int n) { return n > 0 ? byte() % n : 0; }
  double number() {
    static const double kValues[] = {0, 1, -1, 2, 0.5, -0.25, 3, 1e-5, 100, -7, 0.1, 1e30, -1e30, 4, 8, 16};
    const uint8_t b = byte();
    if (b == 255) return 0.0 / 0.0 * (p_ < end_ ? 1 : -1);  // NaN now and then
    if (b == 254) return 1.0 / 0.0;
    return kValues[b % 16];
  }
  bool done() const { return p_ >= end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

constexpr int kMaxElements = 4096;

const bool kTrace = std::getenv("LIBOPS_FUZZ_TRACE") != nullptr;

void trace_call(const char* what, const std::vector<ops_array_t*>& inputs, const std::vector<double>& t,
                const std::vector<int64_t>& i, const bool* b, int n_b, const int32_t* d, int n_d) {
  std::fprintf(stderr, "call %s\n", what);
  for (size_t k = 0; k < inputs.size(); ++k) {
    int rank = 0;
    int64_t shape[8] = {};
    ops_dtype_t dt = OPS_DTYPE_FLOAT32;
    (void)ops_array_rank(inputs[k], &rank);
    (void)ops_array_shape(inputs[k], shape);
    (void)ops_array_dtype(inputs[k], &dt);
    std::fprintf(stderr, "  input %zu: dtype %d, shape [", k, static_cast<int>(dt));
    for (int r = 0; r < rank; ++r) std::fprintf(stderr, r ? ", %lld" : "%lld", static_cast<long long>(shape[r]));
    std::fprintf(stderr, "]\n");
  }
  std::fprintf(stderr, "  t:");
  for (double v : t) std::fprintf(stderr, " %g", v);
  std::fprintf(stderr, "\n  i:");
  for (int64_t v : i) std::fprintf(stderr, " %lld", static_cast<long long>(v));
  std::fprintf(stderr, "\n  b:");
  for (int k = 0; k < n_b; ++k) std::fprintf(stderr, " %d", b[k] ? 1 : 0);
  std::fprintf(stderr, "\n  d:");
  for (int k = 0; k < n_d; ++k) std::fprintf(stderr, " %d", d[k]);
  std::fprintf(stderr, "\n");
}

ops_array_t* make_input(Bytes& in) {
  const ops_dtype_t dtype = static_cast<ops_dtype_t>(1 + in.small(13));
  const int rank = in.small(5);
  int64_t shape[4] = {1, 1, 1, 1};
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    shape[d] = in.small(7);  // 0 .. 6: empty dims too
    n *= shape[d];
  }
  if (n > kMaxElements) return nullptr;
  std::vector<double> values(static_cast<size_t>(n));
  for (double& v : values) v = in.number();
  ops_array_t* a = nullptr;
  if (ops_array_create(dtype, rank, shape, 'c', &a) != OPS_OK) return nullptr;
  // Values through a float64 array and the cast op, so every dtype gets them.
  ops_array_t* f = nullptr;
  if (ops_array_create_from(OPS_DTYPE_FLOAT64, rank, shape, values.data(), values.size() * sizeof(double), &f) ==
      OPS_OK) {
    ops_array_t* ins[] = {f};
    const ops_dtype_t d = dtype;
    ops_args_t args = {};
    args.d_args = &d;
    args.n_d_args = 1;
    ops_array_t** cast = nullptr;
    int n_cast = 0;
    if (ops_exec_alloc("cast", ins, 1, &args, &cast, &n_cast) == OPS_OK && n_cast == 1) {
      ops_array_free(a);
      a = cast[0];
      cast[0] = nullptr;
      ops_array_list_free(cast, n_cast);
    }
    ops_array_free(f);
  }
  // Sometimes a strided view instead: reversed dims, or every other row.
  const int view = in.small(4);
  ops_array_t* v = nullptr;
  if (view == 1 && rank >= 2) {
    int64_t axes[4];
    for (int d = 0; d < rank; ++d) axes[d] = rank - 1 - d;
    if (ops_array_permute(a, axes, rank, &v) == OPS_OK) {
      ops_array_free(a);
      return v;
    }
  } else if (view == 2 && rank >= 1 && shape[0] > 1) {
    if (ops_array_slice(a, 0, 0, shape[0], 2, &v) == OPS_OK) {
      ops_array_free(a);
      return v;
    }
  }
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  libops::fault_injection::fail_host_allocations_over(size_t{256} << 10);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const bool legacy = in.byte() % 4 == 0;
  std::vector<ops_array_t*> inputs;
  const int n_inputs = in.small(5);
  for (int k = 0; k < n_inputs; ++k) inputs.push_back(make_input(in));
  for (ops_array_t* a : inputs)
    if (a == nullptr) {
      for (ops_array_t* b : inputs) ops_array_free(b);
      return 0;
    }

  std::vector<double> t(static_cast<size_t>(in.small(4)));
  for (double& v : t) v = in.number();
  std::vector<int64_t> i(static_cast<size_t>(in.small(9)));
  for (int64_t& v : i) v = static_cast<int64_t>(in.small(45)) - 4;
  bool b[4];
  const int n_b = in.small(4);
  for (int k = 0; k < n_b; ++k) b[k] = in.byte() & 1;
  int32_t d_raw[2];
  const int n_d = in.small(3);
  for (int k = 0; k < n_d; ++k) d_raw[k] = static_cast<int32_t>(in.small(16)) - 1;  // -1 and 14: invalid
  ops_dtype_t d[2];
  std::memcpy(d, d_raw, sizeof(d));

  if (legacy) {
    const ops_legacy_group_t group = static_cast<ops_legacy_group_t>(in.small(20));
    const int num = in.small(64);
    if (kTrace) {
      char what[64];
      std::snprintf(what, sizeof what, "legacy group %d, num %d (i: the first %zu)", static_cast<int>(group), num,
                    i.size() % 3);
      trace_call(what, inputs, t, i, b, 0, d_raw, 0);
    }
    ops_array_t* z = nullptr;
    if (!inputs.empty()) {
      int rank = 0;
      int64_t shape[8] = {};
      ops_dtype_t dt = OPS_DTYPE_FLOAT32;
      (void)ops_array_rank(inputs[0], &rank);
      (void)ops_array_shape(inputs[0], shape);
      (void)ops_array_dtype(inputs[0], &dt);
      const ops_dtype_t zdt = in.byte() % 2 ? dt : static_cast<ops_dtype_t>(1 + in.small(13));
      (void)ops_array_create(zdt, in.byte() % 3 ? rank : 0, shape, 'c', &z);
    }
    (void)ops_exec_legacy(group, num, inputs.empty() ? nullptr : inputs[0], inputs.size() > 1 ? inputs[1] : nullptr,
                          z, i.data(), static_cast<int>(i.size() % 3), t.data(), static_cast<int>(t.size()));
    ops_array_free(z);
  } else {
    const int count = ops_registry_size();
    ops_op_info_t info;
    if (count > 0 && ops_registry_op_info((in.byte() | in.byte() << 8) % count, &info) == OPS_OK) {
      ops_args_t args = {};
      args.t_args = t.data();
      args.n_t_args = static_cast<int>(t.size());
      args.i_args = i.data();
      args.n_i_args = static_cast<int>(i.size());
      args.b_args = b;
      args.n_b_args = n_b;
      args.d_args = d;
      args.n_d_args = n_d;
      args.inplace = in.byte() == 7;
      if (kTrace) {
        char what[160];
        std::snprintf(what, sizeof what, "%s%s", info.name, args.inplace ? " (in place)" : "");
        trace_call(what, inputs, t, i, b, n_b, d_raw, n_d);
      }
      ops_array_t** outs = nullptr;
      int n_outs = 0;
      if (ops_exec_alloc(info.name, inputs.data(), static_cast<int>(inputs.size()), &args, &outs, &n_outs) == OPS_OK)
        ops_array_list_free(outs, n_outs);
    }
  }
  for (ops_array_t* a : inputs) ops_array_free(a);
  return 0;
}
