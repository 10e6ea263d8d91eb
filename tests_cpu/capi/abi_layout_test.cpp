// Note [ABI] in include/libops/c_api.h: the structs of the C API keep the
// layout they had in 0.1 for as long as the major version lasts. A program
// compiled against an older header passes its own struct to a newer
// library; had the struct grown, the library would write past the caller's
// memory (as ops_op_info_t once did when it grew between two builds). New
// facts about an op, a value or a profiled node come as new accessor
// functions, never as new fields. These asserts fail the build of the tests
// when a field moves or the size changes (x86-64 and AArch64 Linux, LP64).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "libops/c_api.h"
#include "libops/c_graph.h"

namespace {

// static_assert takes a string literal: hence a macro.
#define kFrozen                                                                                                 \
  "a public C struct changed its layout: callers compiled against an older header would be overwritten; add an " \
  "accessor function instead (Note [ABI])"

static_assert(sizeof(ops_args_t) == 64, kFrozen);
static_assert(offsetof(ops_args_t, t_args) == 0, kFrozen);
static_assert(offsetof(ops_args_t, n_t_args) == 8, kFrozen);
static_assert(offsetof(ops_args_t, i_args) == 16, kFrozen);
static_assert(offsetof(ops_args_t, n_i_args) == 24, kFrozen);
static_assert(offsetof(ops_args_t, b_args) == 32, kFrozen);
static_assert(offsetof(ops_args_t, n_b_args) == 40, kFrozen);
static_assert(offsetof(ops_args_t, d_args) == 48, kFrozen);
static_assert(offsetof(ops_args_t, n_d_args) == 56, kFrozen);
static_assert(offsetof(ops_args_t, inplace) == 60, kFrozen);
static_assert(sizeof(ops_op_info_t) == 80, kFrozen);
static_assert(offsetof(ops_op_info_t, name) == 0, kFrozen);
static_assert(offsetof(ops_op_info_t, hash) == 8, kFrozen);
static_assert(offsetof(ops_op_info_t, kind) == 16, kFrozen);
static_assert(offsetof(ops_op_info_t, num_inputs) == 24, kFrozen);
static_assert(offsetof(ops_op_info_t, num_outputs) == 28, kFrozen);
static_assert(offsetof(ops_op_info_t, num_t_args) == 32, kFrozen);
static_assert(offsetof(ops_op_info_t, num_i_args) == 36, kFrozen);
static_assert(offsetof(ops_op_info_t, inplaceable) == 40, kFrozen);
static_assert(offsetof(ops_op_info_t, input_types) == 48, kFrozen);
static_assert(offsetof(ops_op_info_t, summary) == 56, kFrozen);
static_assert(offsetof(ops_op_info_t, num_declared_inputs) == 64, kFrozen);
static_assert(offsetof(ops_op_info_t, num_declared_outputs) == 68, kFrozen);
static_assert(offsetof(ops_op_info_t, num_args) == 72, kFrozen);
static_assert(offsetof(ops_op_info_t, any_device) == 76, kFrozen);
static_assert(sizeof(ops_io_info_t) == 32, kFrozen);
static_assert(offsetof(ops_io_info_t, name) == 0, kFrozen);
static_assert(offsetof(ops_io_info_t, doc) == 8, kFrozen);
static_assert(offsetof(ops_io_info_t, dtypes) == 16, kFrozen);
static_assert(offsetof(ops_io_info_t, optional) == 24, kFrozen);
static_assert(offsetof(ops_io_info_t, variadic) == 25, kFrozen);
static_assert(sizeof(ops_arg_info_t) == 56, kFrozen);
static_assert(offsetof(ops_arg_info_t, name) == 0, kFrozen);
static_assert(offsetof(ops_arg_info_t, doc) == 8, kFrozen);
static_assert(offsetof(ops_arg_info_t, kind) == 16, kFrozen);
static_assert(offsetof(ops_arg_info_t, position) == 20, kFrozen);
static_assert(offsetof(ops_arg_info_t, is_list) == 24, kFrozen);
static_assert(offsetof(ops_arg_info_t, required) == 25, kFrozen);
static_assert(offsetof(ops_arg_info_t, default_value) == 32, kFrozen);
static_assert(offsetof(ops_arg_info_t, allowed) == 40, kFrozen);
static_assert(offsetof(ops_arg_info_t, from_input) == 48, kFrozen);
static_assert(sizeof(ops_value_info_t) == 24, kFrozen);
static_assert(offsetof(ops_value_info_t, name) == 0, kFrozen);
static_assert(offsetof(ops_value_info_t, dtype) == 8, kFrozen);
static_assert(offsetof(ops_value_info_t, rank) == 12, kFrozen);
static_assert(offsetof(ops_value_info_t, shape) == 16, kFrozen);
static_assert(sizeof(ops_node_profile_t) == 64, kFrozen);
static_assert(offsetof(ops_node_profile_t, node_id) == 0, kFrozen);
static_assert(offsetof(ops_node_profile_t, node_name) == 8, kFrozen);
static_assert(offsetof(ops_node_profile_t, op) == 16, kFrozen);
static_assert(offsetof(ops_node_profile_t, graph_name) == 24, kFrozen);
static_assert(offsetof(ops_node_profile_t, calls) == 32, kFrozen);
static_assert(offsetof(ops_node_profile_t, total_ns) == 40, kFrozen);
static_assert(offsetof(ops_node_profile_t, bytes_allocated) == 48, kFrozen);
static_assert(offsetof(ops_node_profile_t, output_shapes) == 56, kFrozen);

// The library writes exactly the struct it declares, nothing past it.
TEST(AbiLayout, InfoCallsWriteNothingPastTheirStruct) {
  ops_op_t* op = nullptr;
  ASSERT_EQ(ops_op_find("conv2d", &op), OPS_OK);
  std::vector<unsigned char> buffer(sizeof(ops_op_info_t) + 64, 0xA5);
  ASSERT_EQ(ops_op_info(op, reinterpret_cast<ops_op_info_t*>(buffer.data())), OPS_OK);
  ops_op_info_t info;
  std::memcpy(&info, buffer.data(), sizeof info);
  EXPECT_STREQ(info.name, "conv2d");
  for (size_t k = sizeof(ops_op_info_t); k < buffer.size(); ++k) ASSERT_EQ(buffer[k], 0xA5) << "byte " << k;
  std::vector<unsigned char> arg(sizeof(ops_arg_info_t) + 64, 0xA5);
  ASSERT_EQ(ops_op_arg_info(op, 0, reinterpret_cast<ops_arg_info_t*>(arg.data())), OPS_OK);
  for (size_t k = sizeof(ops_arg_info_t); k < arg.size(); ++k) ASSERT_EQ(arg[k], 0xA5) << "byte " << k;
  std::vector<unsigned char> io(sizeof(ops_io_info_t) + 64, 0xA5);
  ASSERT_EQ(ops_op_input_info(op, 0, reinterpret_cast<ops_io_info_t*>(io.data())), OPS_OK);
  for (size_t k = sizeof(ops_io_info_t); k < io.size(); ++k) ASSERT_EQ(io[k], 0xA5) << "byte " << k;
}

#undef kFrozen

}  // namespace
