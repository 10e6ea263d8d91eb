// NDArray: creation, zero-copy views (checked by reading elements back and
// by sharing the buffer), copies with broadcast and cast, empty arrays.
#include "test_util.h"

using namespace libops;
using namespace libops::test;

TEST(NDArray, CreateDenseStridesAndAlignment) {
  NDArray c, f;
  ASSERT_OK(NDArray::create(DataType::kFloat32, {2, 3, 4}, 'c', c));
  ASSERT_OK(NDArray::create(DataType::kFloat32, {2, 3, 4}, 'f', f));
  EXPECT_EQ(c.strides(), (Dims{12, 4, 1}));
  EXPECT_EQ(f.strides(), (Dims{1, 2, 6}));
  EXPECT_TRUE(c.is_c_contiguous());
  EXPECT_TRUE(f.is_f_contiguous());
  EXPECT_FALSE(f.is_c_contiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % 64, 0u);
  EXPECT_EQ(c.length(), 24);
}

TEST(NDArray, CreateRejectsBadInput) {
  NDArray a;
  EXPECT_EQ(NDArray::create(DataType::kInvalid, {2}, 'c', a).code(), StatusCode::kDtype);
  EXPECT_EQ(NDArray::create(DataType::kFloat32, {2, -1}, 'c', a).code(), StatusCode::kShape);
  EXPECT_EQ(NDArray::create(DataType::kFloat32, {INT64_MAX, 4}, 'c', a).code(), StatusCode::kShape);
  EXPECT_EQ(NDArray::create(DataType::kFloat32, {2}, 'x', a).code(), StatusCode::kInvalidArgument);
}

TEST(NDArray, ReshapeViewSharesBuffer) {
  NDArray a = make(DataType::kInt32, {2, 6}, iota(12));
  NDArray r;
  ASSERT_OK(a.reshape({3, -1}, r));
  EXPECT_EQ(r.shape(), (Dims{3, 4}));
  EXPECT_EQ(r.buffer(), a.buffer());
  EXPECT_TRUE(all_close(r, iota(12)));
  EXPECT_EQ(a.reshape({5, -1}, r).code(), StatusCode::kShape);
  EXPECT_EQ(a.reshape({-1, -1}, r).code(), StatusCode::kShape);
}

// The bytes of 1.0f (0x3F800000, little endian) as other dtypes, sharing
// the buffer; a view that does not start on a target element, a strided
// view and a mismatched last dim are refused.
TEST(NDArray, BitcastViewsTheSameBytes) {
  NDArray a = make(DataType::kFloat32, {2, 2}, {1.0, 1.0, 1.0, 1.0});
  NDArray i, b, back;
  ASSERT_OK(a.bitcast(DataType::kInt32, i));
  EXPECT_EQ(i.shape(), (Dims{2, 2}));
  EXPECT_EQ(i.buffer(), a.buffer());
  EXPECT_EQ(i.get_int64(3), 0x3F800000);
  ASSERT_OK(a.bitcast(DataType::kUInt8, b));
  EXPECT_EQ(b.shape(), (Dims{2, 2, 4}));
  EXPECT_EQ(b.get_int64(0), 0x00);
  EXPECT_EQ(b.get_int64(3), 0x3F);
  ASSERT_OK(b.bitcast(DataType::kFloat32, back));
  EXPECT_EQ(back.shape(), (Dims{2, 2}));
  EXPECT_EQ(back.get_double(2), 1.0);
  NDArray wide;
  ASSERT_OK(i.bitcast(DataType::kInt64, wide));  // [2, 2] int32: a last dim of 2 becomes one int64
  EXPECT_EQ(wide.shape(), (Dims{2}));
  NDArray flat, odd, col, bad;
  ASSERT_OK(b.reshape({16}, flat));
  ASSERT_OK(flat.slice(0, 1, 3, 1, odd));  // dense, but 1 byte in
  EXPECT_EQ(odd.bitcast(DataType::kInt16, bad).code(), StatusCode::kShape);
  ASSERT_OK(a.slice(1, 0, 1, 1, col));  // strided
  EXPECT_EQ(col.bitcast(DataType::kInt32, bad).code(), StatusCode::kShape);
  EXPECT_EQ(b.bitcast(DataType::kFloat64, bad).code(), StatusCode::kShape);  // a last dim of 4 bytes, not 8
}

TEST(NDArray, ReshapeOfStridedViewWhereStridesAllow) {
  // [4,6] sliced to every other row: rows stay contiguous, so [2,6] -> [2,2,3] is a view.
  NDArray a = make(DataType::kFloat32, {4, 6}, iota(24));
  NDArray rows, r;
  ASSERT_OK(a.slice(0, 0, 4, 2, rows));
  ASSERT_OK(rows.reshape({2, 2, 3}, r));
  EXPECT_EQ(r.buffer(), a.buffer());
  EXPECT_TRUE(all_close(r, {0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17}));
  // Merging the two axes of a transposed array needs a copy.
  NDArray t = a.transpose(), flat;
  EXPECT_EQ(t.reshape({24}, flat).code(), StatusCode::kShape);
  ASSERT_OK(t.reshape_copy({24}, flat));
  EXPECT_NE(flat.buffer(), a.buffer());
  EXPECT_DOUBLE_EQ(flat.get_double(1), 6.0);  // t[0,1] = a[1,0]
}

TEST(NDArray, PermuteTransposeSliceFlip) {
  NDArray a = make(DataType::kFloat64, {2, 3, 4}, iota(24));
  NDArray p;
  ASSERT_OK(a.permute({2, 0, 1}, p));
  EXPECT_EQ(p.shape(), (Dims{4, 2, 3}));
  EXPECT_DOUBLE_EQ(p.get_double(1), 4.0);   // p[0,0,1] = a[0,1,0]
  EXPECT_DOUBLE_EQ(p.get_double(6), 1.0);   // p[1,0,0] = a[0,0,1]
  EXPECT_EQ(a.permute({0, 0, 1}, p).code(), StatusCode::kInvalidArgument);

  NDArray s;
  ASSERT_OK(a.slice(2, -1, -5, -2, s));  // last axis reversed, step 2: indices 3, 1
  EXPECT_EQ(s.shape(), (Dims{2, 3, 2}));
  EXPECT_TRUE(all_close(std::vector<double>{s.get_double(0), s.get_double(1), s.get_double(2)}, {3, 1, 7}));
  ASSERT_OK(a.slice(0, 5, 9, 1, s));  // out of range clamps to empty
  EXPECT_EQ(s.length(), 0);
  EXPECT_EQ(a.slice(0, 0, 1, 0, s).code(), StatusCode::kInvalidArgument);

  NDArray f;
  ASSERT_OK(a.flip(1, f));
  EXPECT_DOUBLE_EQ(f.get_double(0), 8.0);  // f[0,0,0] = a[0,2,0]
  EXPECT_EQ(f.buffer(), a.buffer());
}

TEST(NDArray, BroadcastToUsesZeroStrides) {
  NDArray a = make(DataType::kFloat32, {3, 1}, {1, 2, 3});
  NDArray b;
  ASSERT_OK(a.broadcast_to({2, 3, 4}, b));
  EXPECT_EQ(b.strides(), (Dims{0, 1, 0}));
  EXPECT_DOUBLE_EQ(b.get_double(5), 2.0);  // b[0,1,1]
  EXPECT_EQ(a.broadcast_to({2, 4}, b).code(), StatusCode::kShape);
}

TEST(NDArray, AssignBroadcastsAndCasts) {
  NDArray z = zeros(DataType::kInt16, {2, 3});
  NDArray row = make(DataType::kFloat64, {3}, {1.9, -2.5, 40000.0});
  ASSERT_OK(z.assign(row));
  // float -> int truncates toward zero and saturates (loops/convert.h).
  EXPECT_TRUE(all_close(z, {1, -2, 32767, 1, -2, 32767}));
  NDArray bad = make(DataType::kFloat64, {4}, iota(4));
  EXPECT_EQ(z.assign(bad).code(), StatusCode::kShape);
}

TEST(NDArray, AssignIntoStridedViewAndFromOverlap) {
  NDArray a = make(DataType::kFloat32, {2, 4}, iota(8));
  NDArray col;
  ASSERT_OK(a.slice(1, 1, 4, 2, col));  // columns 1 and 3
  ASSERT_OK(col.assign_scalar(-1));
  EXPECT_TRUE(all_close(a, {0, -1, 2, -1, 4, -1, 6, -1}));
  // Overlapping source: a[:, 1:] = a[:, :3] must read before writing.
  NDArray b = make(DataType::kFloat32, {1, 4}, {1, 2, 3, 4});
  NDArray dst, src;
  ASSERT_OK(b.slice(1, 1, 4, 1, dst));
  ASSERT_OK(b.slice(1, 0, 3, 1, src));
  ASSERT_OK(dst.assign(src));
  EXPECT_TRUE(all_close(b, {1, 1, 2, 3}));
}

TEST(NDArray, DupMakesDenseCopyInRequestedOrder) {
  NDArray a = make(DataType::kBFloat16, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray t = a.transpose(), d;
  ASSERT_OK(t.dup('f', d));
  EXPECT_TRUE(d.is_f_contiguous());
  EXPECT_TRUE(all_close(d, {1, 4, 2, 5, 3, 6}));
  EXPECT_NE(d.buffer(), a.buffer());
}

TEST(NDArray, ScalarsAndEmptyArrays) {
  NDArray s;
  ASSERT_OK(NDArray::scalar(DataType::kFloat16, 0.1, s));
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.length(), 1);
  EXPECT_NEAR(s.get_double(0), 0.0999755859375, 0.0);  // nearest float16 to 0.1
  NDArray e = zeros(DataType::kFloat32, {3, 0, 2});
  EXPECT_EQ(e.length(), 0);
  EXPECT_TRUE(e.is_c_contiguous());
  NDArray e2;
  ASSERT_OK(e.reshape({0, 5}, e2));
  EXPECT_EQ(e2.shape(), (Dims{0, 5}));
  NDArray d;
  ASSERT_OK(e.dup('c', d));
  EXPECT_EQ(d.length(), 0);
  ASSERT_OK(e.assign_scalar(3.0));  // nothing to write, still fine
}

TEST(NDArray, WrapChecksBounds) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  NDArray a;
  ASSERT_OK(NDArray::wrap(data, sizeof data, DataType::kFloat32, {2, 3}, nullptr, a));
  EXPECT_DOUBLE_EQ(a.get_double(4), 4.0);
  Dims strides{1, 2};
  ASSERT_OK(NDArray::wrap(data, sizeof data, DataType::kFloat32, {2, 3}, &strides, a));
  EXPECT_DOUBLE_EQ(a.get_double(1), 2.0);  // a[0,1] = data[2]
  Dims too_far{4, 1};
  EXPECT_EQ(NDArray::wrap(data, sizeof data, DataType::kFloat32, {2, 3}, &too_far, a).code(), StatusCode::kShape);
  EXPECT_EQ(NDArray::wrap(nullptr, 0, DataType::kFloat32, {2}, nullptr, a).code(), StatusCode::kNullPointer);
}

TEST(Dtype, PromotionFollowsTheWrittenRule) {
  EXPECT_EQ(promote_types(DataType::kBool, DataType::kInt8), DataType::kInt8);
  EXPECT_EQ(promote_types(DataType::kUInt8, DataType::kInt8), DataType::kInt16);
  EXPECT_EQ(promote_types(DataType::kUInt32, DataType::kInt32), DataType::kInt64);
  EXPECT_EQ(promote_types(DataType::kUInt64, DataType::kInt8), DataType::kInt64);
  EXPECT_EQ(promote_types(DataType::kInt64, DataType::kFloat16), DataType::kFloat16);
  EXPECT_EQ(promote_types(DataType::kFloat16, DataType::kBFloat16), DataType::kFloat32);
  EXPECT_EQ(promote_types(DataType::kFloat32, DataType::kFloat64), DataType::kFloat64);
  EXPECT_EQ(promote_types(DataType::kUInt16, DataType::kUInt8), DataType::kUInt16);
  EXPECT_EQ(compute_type_of(DataType::kUInt32), ComputeType::kI64);
  EXPECT_EQ(compute_type_of(DataType::kBFloat16), ComputeType::kF32);
  for (int i = 1; i < kNumDataTypes; ++i) {
    DataType t = static_cast<DataType>(i);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
}
