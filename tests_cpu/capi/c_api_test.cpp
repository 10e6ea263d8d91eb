// The C API: values through it, and every kind of bad input returning a
// status and a message without touching the caller's arrays.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <string>
#include <vector>

#include "libops/c_api.h"

namespace {

struct Arr {
  ops_array_t* h = nullptr;
  ~Arr() { ops_array_free(h); }
};

ops_array_t* from(ops_dtype_t t, std::vector<int64_t> shape, const void* data, size_t bytes) {
  ops_array_t* a = nullptr;
  EXPECT_EQ(ops_array_create_from(t, static_cast<int>(shape.size()), shape.data(), data, bytes, &a), OPS_OK)
      << ops_last_error();
  return a;
}

std::vector<float> read_f32(const ops_array_t* a) {
  int64_t n = 0;
  EXPECT_EQ(ops_array_length(a, &n), OPS_OK);
  std::vector<float> v(static_cast<size_t>(n));
  EXPECT_EQ(ops_array_copy_to(a, v.data(), v.size() * sizeof(float)), OPS_OK) << ops_last_error();
  return v;
}

bool error_mentions(const char* what) { return std::strstr(ops_last_error(), what) != nullptr; }

}  // namespace

TEST(CApi, ArrayRoundTripAndMetadata) {
  const float xs[6] = {1, 2, 3, 4, 5, 6};
  Arr x{from(OPS_DTYPE_FLOAT32, {2, 3}, xs, sizeof xs)};
  int rank = 0;
  int64_t shape[2], strides[2];
  ops_dtype_t t;
  ASSERT_EQ(ops_array_rank(x.h, &rank), OPS_OK);
  ASSERT_EQ(ops_array_shape(x.h, shape), OPS_OK);
  ASSERT_EQ(ops_array_strides(x.h, strides), OPS_OK);
  ASSERT_EQ(ops_array_dtype(x.h, &t), OPS_OK);
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 3);
  EXPECT_EQ(strides[0], 3);
  EXPECT_EQ(t, OPS_DTYPE_FLOAT32);
  EXPECT_EQ(read_f32(x.h), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Arr p;
  const int64_t axes[2] = {1, 0};
  ASSERT_EQ(ops_array_permute(x.h, axes, 2, &p.h), OPS_OK);
  EXPECT_EQ(read_f32(p.h), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(CApi, ExecWithPreallocatedOutputAndByHandle) {
  const float xs[3] = {1, 2, 3}, ys[3] = {0.5f, -1, 4};
  Arr x{from(OPS_DTYPE_FLOAT32, {3}, xs, sizeof xs)}, y{from(OPS_DTYPE_FLOAT32, {3}, ys, sizeof ys)}, z;
  const int64_t shape[1] = {3};
  ASSERT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 1, shape, 'c', &z.h), OPS_OK);
  ops_array_t* in[2] = {x.h, y.h};
  ops_array_t* out[1] = {z.h};
  ASSERT_EQ(ops_exec("multiply", in, 2, out, 1, nullptr), OPS_OK) << ops_last_error();
  EXPECT_EQ(read_f32(z.h), (std::vector<float>{0.5f, -2, 12}));
  ops_op_t* op = nullptr;
  ASSERT_EQ(ops_op_find("subtract", &op), OPS_OK);
  ASSERT_EQ(ops_op_exec(op, in, 2, out, 1, nullptr), OPS_OK);
  EXPECT_EQ(read_f32(z.h), (std::vector<float>{0.5f, 3, -1}));
  EXPECT_STREQ(ops_last_error(), "");
}

TEST(CApi, ExecAllocReturnsOutputs) {
  const int32_t xs[4] = {1, 2, 3, 4};
  const double ys[2] = {0.5, 0.25};
  Arr x{from(OPS_DTYPE_INT32, {2, 2}, xs, sizeof xs)}, y{from(OPS_DTYPE_FLOAT64, {2}, ys, sizeof ys)};
  ops_array_t* in[2] = {x.h, y.h};
  ops_array_t** outs = nullptr;
  int n = 0;
  ASSERT_EQ(ops_exec_alloc("add", in, 2, nullptr, &outs, &n), OPS_OK) << ops_last_error();
  ASSERT_EQ(n, 1);
  ops_dtype_t t;
  ASSERT_EQ(ops_array_dtype(outs[0], &t), OPS_OK);
  EXPECT_EQ(t, OPS_DTYPE_FLOAT64);
  double z[4];
  ASSERT_EQ(ops_array_copy_to(outs[0], z, sizeof z), OPS_OK);
  EXPECT_DOUBLE_EQ(z[0], 1.5);
  EXPECT_DOUBLE_EQ(z[3], 4.25);
  ops_array_list_free(outs, n);
}

TEST(CApi, LegacyByGroupAndNumber) {
  const float xs[4] = {-1, 2, -3, 4};
  Arr x{from(OPS_DTYPE_FLOAT32, {4}, xs, sizeof xs)}, z, s;
  const int64_t shape[1] = {4};
  ASSERT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 1, shape, 'c', &z.h), OPS_OK);
  int num = -1;
  ASSERT_EQ(ops_legacy_find(OPS_TRANSFORM_SAME, "abs", &num), OPS_OK);
  ASSERT_EQ(ops_exec_legacy(OPS_TRANSFORM_SAME, num, x.h, nullptr, z.h, nullptr, 0, nullptr, 0), OPS_OK)
      << ops_last_error();
  EXPECT_EQ(read_f32(z.h), (std::vector<float>{1, 2, 3, 4}));
  ASSERT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 0, nullptr, 'c', &s.h), OPS_OK);
  ASSERT_EQ(ops_legacy_find(OPS_REDUCE_SAME, "sum", &num), OPS_OK);
  ASSERT_EQ(ops_exec_legacy(OPS_REDUCE_SAME, num, x.h, nullptr, s.h, nullptr, 0, nullptr, 0), OPS_OK);
  EXPECT_EQ(read_f32(s.h), (std::vector<float>{2}));
  const char* name = nullptr;
  ASSERT_EQ(ops_legacy_op_info(OPS_PAIRWISE, 0, &num, &name), OPS_OK);
  EXPECT_STREQ(name, "add");
  EXPECT_GE(ops_legacy_op_count(OPS_PAIRWISE), 6);
}

TEST(CApi, RegistryListing) {
  int n = ops_registry_size();
  ASSERT_GE(n, 4);
  bool found_add = false;
  for (int i = 0; i < n; ++i) {
    ops_op_info_t info;
    ASSERT_EQ(ops_registry_op_info(i, &info), OPS_OK);
    if (std::strcmp(info.name, "add") == 0) {
      found_add = true;
      EXPECT_EQ(info.num_inputs, 2);
      EXPECT_EQ(info.num_outputs, 1);
      EXPECT_TRUE(info.inplaceable);
      EXPECT_STREQ(info.kind, "custom");
      EXPECT_STREQ(info.input_types, "any");
    }
  }
  EXPECT_TRUE(found_add);
  ops_op_info_t info;
  EXPECT_EQ(ops_registry_op_info(n, &info), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_registry_error_count(), 0);
  EXPECT_GT(std::strlen(ops_version()), 0u);
}

// ---- bad input: status + message, caller's arrays untouched ----

TEST(CApiErrors, UnknownOp) {
  EXPECT_EQ(ops_exec("no_such_op", nullptr, 0, nullptr, 0, nullptr), OPS_ERR_UNKNOWN_OP);
  EXPECT_TRUE(error_mentions("unknown op 'no_such_op'"));
  ops_op_t* op = nullptr;
  EXPECT_EQ(ops_op_find("", &op), OPS_ERR_UNKNOWN_OP);
  EXPECT_EQ(op, nullptr);
  EXPECT_EQ(ops_op_find_hash(42, &op), OPS_ERR_UNKNOWN_OP);
}

TEST(CApiErrors, NullPointers) {
  EXPECT_EQ(ops_exec(nullptr, nullptr, 0, nullptr, 0, nullptr), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 1, nullptr, 'c', nullptr), OPS_ERR_NULL_POINTER);
  ops_array_t* a = nullptr;
  EXPECT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 1, nullptr, 'c', &a), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(a, nullptr);
  EXPECT_EQ(ops_array_rank(nullptr, nullptr), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_exec("add", nullptr, 2, nullptr, 0, nullptr), OPS_ERR_NULL_POINTER);
  ops_array_t* in[2] = {nullptr, nullptr};
  EXPECT_EQ(ops_exec("add", in, 2, nullptr, 0, nullptr), OPS_ERR_NULL_POINTER);
  EXPECT_TRUE(error_mentions("add: input 0 is null"));
  EXPECT_EQ(ops_exec_legacy(OPS_PAIRWISE, 0, nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0), OPS_ERR_NULL_POINTER);
  ops_array_free(nullptr);
  ops_array_list_free(nullptr, 3);
}

TEST(CApiErrors, WrongCountsShapesAndDtypesLeaveOutputsUntouched) {
  const float xs[6] = {1, 2, 3, 4, 5, 6}, ys[4] = {1, 2, 3, 4};
  Arr x{from(OPS_DTYPE_FLOAT32, {2, 3}, xs, sizeof xs)}, y{from(OPS_DTYPE_FLOAT32, {4}, ys, sizeof ys)}, z;
  const int64_t shape[2] = {2, 3};
  ASSERT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 2, shape, 'c', &z.h), OPS_OK);
  const float sentinel[6] = {9, 9, 9, 9, 9, 9};
  ops_array_t* tmp = from(OPS_DTYPE_FLOAT32, {2, 3}, sentinel, sizeof sentinel);
  ops_array_t* zc[1] = {z.h};
  ops_array_t* squares[2] = {tmp, tmp};
  ASSERT_EQ(ops_exec("multiply", squares, 2, zc, 1, nullptr), OPS_OK);  // z = 81 everywhere
  ops_array_free(tmp);

  ops_array_t* one[1] = {x.h};
  EXPECT_EQ(ops_exec("add", one, 1, zc, 1, nullptr), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(error_mentions("add: takes 2 inputs (x, y), got 1"));
  ops_array_t* bad[2] = {x.h, y.h};
  EXPECT_EQ(ops_exec("add", bad, 2, zc, 1, nullptr), OPS_ERR_SHAPE);
  EXPECT_TRUE(error_mentions("[2,3] and [4]"));
  // Output of the wrong dtype is refused before computing.
  Arr zi;
  ASSERT_EQ(ops_array_create(OPS_DTYPE_INT32, 2, shape, 'c', &zi.h), OPS_OK);
  ops_array_t* good[2] = {x.h, x.h};
  ops_array_t* zic[1] = {zi.h};
  EXPECT_EQ(ops_exec("add", good, 2, zic, 1, nullptr), OPS_ERR_SHAPE);
  EXPECT_TRUE(error_mentions("int32[2,3]"));
  EXPECT_TRUE(error_mentions("float32[2,3]"));
  EXPECT_EQ(read_f32(z.h), (std::vector<float>{81, 81, 81, 81, 81, 81}));

  ops_args_t args{};
  args.n_i_args = 2;  // count without a pointer
  EXPECT_EQ(ops_exec("add", good, 2, zc, 1, &args), OPS_ERR_NULL_POINTER);
  args.n_i_args = -1;
  EXPECT_EQ(ops_exec("add", good, 2, zc, 1, &args), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(read_f32(z.h), (std::vector<float>{81, 81, 81, 81, 81, 81}));
}

TEST(CApiErrors, LegacyGroupNumberAxes) {
  const float xs[6] = {1, 2, 3, 4, 5, 6};
  Arr x{from(OPS_DTYPE_FLOAT32, {2, 3}, xs, sizeof xs)}, z;
  const int64_t shape[1] = {2};
  ASSERT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 1, shape, 'c', &z.h), OPS_OK);
  EXPECT_EQ(ops_exec_legacy(static_cast<ops_legacy_group_t>(99), 0, x.h, nullptr, z.h, nullptr, 0, nullptr, 0),
            OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_exec_legacy(OPS_REDUCE_SAME, 9999, x.h, nullptr, z.h, nullptr, 0, nullptr, 0), OPS_ERR_UNKNOWN_OP);
  EXPECT_TRUE(error_mentions("no op number 9999"));
  const int64_t bad_axis[1] = {5};
  EXPECT_EQ(ops_exec_legacy(OPS_REDUCE_SAME, 0, x.h, nullptr, z.h, bad_axis, 1, nullptr, 0), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(error_mentions("axis 5 is out of range for rank 2"));
  const int64_t axis1[1] = {1}, axis0[1] = {0};
  EXPECT_EQ(ops_exec_legacy(OPS_REDUCE_SAME, 0, x.h, nullptr, z.h, axis1, 1, nullptr, 0), OPS_OK);
  EXPECT_EQ(read_f32(z.h), (std::vector<float>{6, 15}));
  EXPECT_EQ(ops_exec_legacy(OPS_REDUCE_SAME, 0, x.h, nullptr, z.h, axis0, 1, nullptr, 0), OPS_ERR_SHAPE);
  EXPECT_EQ(read_f32(z.h), (std::vector<float>{6, 15}));
  EXPECT_EQ(ops_exec_legacy(OPS_RANDOM, 0, nullptr, nullptr, z.h, nullptr, 0, nullptr, 0), OPS_ERR_INVALID_ARGUMENT);
  double extra[9] = {};
  EXPECT_EQ(ops_exec_random(0, 1, nullptr, nullptr, z.h, extra, 9), OPS_ERR_INVALID_ARGUMENT);
}

TEST(CApiErrors, BadArrayCreation) {
  ops_array_t* a = nullptr;
  const int64_t shape[2] = {2, 3};
  EXPECT_EQ(ops_array_create(static_cast<ops_dtype_t>(77), 2, shape, 'c', &a), OPS_ERR_DTYPE);
  EXPECT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 11, shape, 'c', &a), OPS_ERR_INVALID_ARGUMENT);
  const int64_t neg[2] = {2, -3};
  EXPECT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 2, neg, 'c', &a), OPS_ERR_SHAPE);
  const float xs[2] = {1, 2};
  EXPECT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape, xs, sizeof xs, &a), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(error_mentions("needs 24 bytes of data, got 8"));
  EXPECT_EQ(a, nullptr);
  float buf[4];
  const int64_t big[1] = {5};
  EXPECT_EQ(ops_array_wrap(buf, sizeof buf, OPS_DTYPE_FLOAT32, 1, big, nullptr, &a), OPS_ERR_SHAPE);
}

TEST(CApi, ErrorMessageIsPerThread) {
  EXPECT_EQ(ops_exec("nope", nullptr, 0, nullptr, 0, nullptr), OPS_ERR_UNKNOWN_OP);
  std::string other;
  std::thread t([&] { other = ops_last_error(); });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_TRUE(error_mentions("nope"));
}

// Calls that broke the header's rules and were accepted (found by a sweep of
// bad calls over every op); each is now an error naming the op.
TEST(CApiErrors, CallsThatBreakTheHeadersRules) {
  const float xs[6] = {1, 2, 3, 4, 5, 6};
  Arr x{from(OPS_DTYPE_FLOAT32, {2, 3}, xs, sizeof xs)};
  ops_array_t* in[2] = {x.h, x.h};
  // No outputs and not in place: the result would be thrown away.
  EXPECT_EQ(ops_exec("add", in, 2, nullptr, 0, nullptr), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(),
               "add: no outputs given: pass arrays of the shapes the op gives, set inplace, or call ops_op_exec_alloc");
  // In place together with caller-given outputs.
  float zs[6] = {0};
  const int64_t shape[2] = {2, 3};
  Arr z;
  ASSERT_EQ(ops_array_wrap(zs, sizeof zs, OPS_DTYPE_FLOAT32, 2, shape, nullptr, &z.h), OPS_OK);
  ops_array_t* out[1] = {z.h};
  ops_args_t inplace{};
  inplace.inplace = true;
  EXPECT_EQ(ops_exec("add", in, 2, out, 1, &inplace), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(), "add: in place was asked for and 1 outputs were given: in place, output 0 is input 0");
  EXPECT_EQ(zs[0], 0.0f);
  // A broadcast output (stride 0) for a custom op.
  const int64_t repeat[2] = {0, 1};
  Arr b;
  ASSERT_EQ(ops_array_wrap(zs, 3 * sizeof(float), OPS_DTYPE_FLOAT32, 2, shape, repeat, &b.h), OPS_OK);
  ops_array_t* bout[1] = {b.h};
  EXPECT_EQ(ops_exec("add", in, 2, bout, 1, nullptr), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(),
               "add: output 0 [2,3] is a broadcast view (stride 0 on dim 0); outputs must not repeat elements");
  EXPECT_EQ(zs[0], 0.0f);
  // A stride whose extent overflows 64 bits.
  float small[4] = {0};
  const int64_t two[1] = {2};
  const int64_t huge[1] = {int64_t{1} << 62};
  Arr w;
  EXPECT_EQ(ops_array_wrap(small, sizeof small, OPS_DTYPE_FLOAT32, 1, two, huge, &w.h), OPS_ERR_SHAPE);
  EXPECT_TRUE(error_mentions("reaches past any buffer")) << ops_last_error();
  EXPECT_EQ(w.h, nullptr);
  // A d arg outside the dtype enum is read as an integer and refused.
  for (int32_t raw : {99, -1}) {
    ops_dtype_t d;
    std::memcpy(&d, &raw, sizeof raw);
    ops_args_t args{};
    args.d_args = &d;
    args.n_d_args = 1;
    ops_array_t** outs = nullptr;
    int n = 0;
    EXPECT_EQ(ops_exec_alloc("cast", in, 1, &args, &outs, &n), OPS_ERR_DTYPE);
    EXPECT_EQ(std::string(ops_last_error()),
              "cast: d arg 0 is " + std::to_string(raw) + ", which is not a dtype (ops_dtype_t 1..13)");
  }
  // Errors at the legacy entry points name the op.
  EXPECT_EQ(ops_exec_legacy(OPS_PAIRWISE, 0, x.h, x.h, z.h, nullptr, -1, nullptr, 0), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(), "add: negative count (axes -1, extra 0)");
  EXPECT_EQ(ops_exec_legacy(OPS_TRANSFORM_STRICT, 0, x.h, nullptr, z.h, nullptr, 0, nullptr, 3), OPS_ERR_NULL_POINTER);
  EXPECT_STREQ(ops_last_error(), "exp: extra is null but n_extra is 3");
  EXPECT_EQ(ops_exec_random(0, 1, nullptr, nullptr, z.h, nullptr, 9), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(error_mentions(": 9 extra params (0..8 allowed)")) << ops_last_error();
}
