// Tests for graph/npy.h: round trips for every dtype, reading files written by
// numpy (goldens from tools/gen_npy_goldens.py) and one test per kind of
// malformed input.
//
// LIBOPS_TEST_DATA_DIR, if defined, is the folder that holds the goldens
// (tests_cpu/graph/golden); otherwise it is found next to this file.
#include "graph/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace libops::npy {
namespace {

static_assert(std::endian::native == std::endian::little,
              "npy_test: the expected values below are built on a little-endian host");

std::string golden_dir() {
#ifdef LIBOPS_TEST_DATA_DIR
  return LIBOPS_TEST_DATA_DIR;
#else
  const std::string file = __FILE__;
  const size_t slash = file.find_last_of('/');
  return (slash == std::string::npos ? std::string(".") : file.substr(0, slash)) +
         "/golden";
#endif
}

template <typename T>
std::vector<uint8_t> to_bytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> values_of(const NpyArray& a) {
  std::vector<T> values(a.data.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), a.data.data(), a.data.size());
  return values;
}

NpyArray make_array(ops_dtype_t dtype, std::vector<int64_t> shape,
                    std::vector<uint8_t> data, bool fortran = false) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.fortran_order = fortran;
  a.data = std::move(data);
  return a;
}

NpyArray read_golden(const std::string& name) {
  NpyArray a;
  std::string error;
  EXPECT_TRUE(npy_read_file(golden_dir() + "/" + name, a, error))
      << name << ": " << error;
  return a;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::vector<uint8_t> bytes;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    int c;
    while ((c = std::fgetc(f)) != EOF) bytes.push_back(uint8_t(c));
    std::fclose(f);
  }
  return bytes;
}

// A .npy buffer with the given header dict (unpadded) and `data_bytes` bytes
// of data, for building malformed inputs one field at a time.
std::vector<uint8_t> make_npy(const std::string& dict, size_t data_bytes,
                              int major = 1) {
  const size_t length_bytes = major == 1 ? 2 : 4;
  // Sized once and filled by index: GCC 12 misreports growing inserts of a
  // string's bytes into a vector as overflows (-Wstringop-overflow).
  std::vector<uint8_t> b(8 + length_bytes + dict.size() + data_bytes);
  const uint8_t magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  size_t at = 0;
  for (uint8_t m : magic) b[at++] = m;
  for (size_t i = 0; i < length_bytes; ++i) b[at++] = uint8_t(dict.size() >> (8 * i));
  for (char c : dict) b[at++] = uint8_t(c);
  for (size_t i = 0; i < data_bytes; ++i) b[at++] = uint8_t(i * 37 + 11);
  return b;
}

std::string header(const std::string& descr, const std::string& shape,
                   const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran +
         ", 'shape': " + shape + ", }\n";
}

// --- round trips -----------------------------------------------------------

struct DtypeCase {
  ops_dtype_t dtype;
  size_t itemsize;
};

const DtypeCase kDtypeCases[] = {
    {OPS_DTYPE_BOOL, 1},    {OPS_DTYPE_INT8, 1},    {OPS_DTYPE_INT16, 2},
    {OPS_DTYPE_INT32, 4},   {OPS_DTYPE_INT64, 8},   {OPS_DTYPE_UINT8, 1},
    {OPS_DTYPE_UINT16, 2},  {OPS_DTYPE_UINT32, 4},  {OPS_DTYPE_UINT64, 8},
    {OPS_DTYPE_FLOAT16, 2}, {OPS_DTYPE_FLOAT32, 4}, {OPS_DTYPE_FLOAT64, 8},
    {OPS_DTYPE_BFLOAT16, 2},
};

// Non-uniform bytes that are valid for the dtype (bools are 0 or 1).
std::vector<uint8_t> pattern_bytes(ops_dtype_t dtype, size_t count) {
  std::vector<uint8_t> bytes(count);
  for (size_t i = 0; i < count; ++i)
    bytes[i] = dtype == OPS_DTYPE_BOOL ? uint8_t((i * 7 + 1) % 3 == 0)
                                       : uint8_t(i * 131 + 17);
  return bytes;
}

TEST(NpyRoundTrip, EveryDtypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {5}, {2, 3}, {2, 0, 3}, {3, 1, 4}, {1, 1, 1, 1, 2}};
  for (const DtypeCase& c : kDtypeCases) {
    for (const auto& shape : shapes) {
      size_t count = 1;
      for (int64_t d : shape) count *= size_t(d);
      for (bool fortran : {false, true}) {
        const NpyArray in = make_array(
            c.dtype, shape, pattern_bytes(c.dtype, count * c.itemsize), fortran);
        std::vector<uint8_t> bytes;
        std::string error;
        ASSERT_TRUE(npy_write_buffer(in, bytes, error)) << error;
        EXPECT_EQ(bytes[6], 1) << "small headers are written as version 1.0";
        EXPECT_EQ(bytes.size() - in.data.size(), 128u)
            << "header is padded so the data starts 64-byte aligned";
        NpyArray out;
        ASSERT_TRUE(npy_read_buffer(bytes.data(), bytes.size(), out, error))
            << error;
        EXPECT_EQ(out.dtype, in.dtype);
        EXPECT_EQ(out.shape, in.shape);
        EXPECT_EQ(out.fortran_order, in.fortran_order);
        EXPECT_EQ(out.data, in.data) << "dtype " << int(c.dtype);
      }
    }
  }
}

TEST(NpyRoundTrip, TypedValuesThroughAFile) {
  const std::vector<double> values = {1.5, -2.25, 0.0, 1e300, -0.125, 3.0};
  const NpyArray in = make_array(OPS_DTYPE_FLOAT64, {3, 2}, to_bytes(values));
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_npy_test_roundtrip.npy";
  std::string error;
  ASSERT_TRUE(npy_write_file(path, in, error)) << error;
  NpyArray out;
  ASSERT_TRUE(npy_read_file(path, out, error)) << error;
  EXPECT_EQ(out.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values_of<double>(out), values);
  std::remove(path.c_str());
}

TEST(NpyRoundTrip, HugeRankNeedsVersion2) {
  // 30000 dims of 1 make a header over 64 KiB, beyond version 1.0's u16.
  const NpyArray in = make_array(OPS_DTYPE_INT32, std::vector<int64_t>(30000, 1),
                                 to_bytes(std::vector<int32_t>{-7}));
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(npy_write_buffer(in, bytes, error)) << error;
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ((bytes.size() - in.data.size()) % 64, 0u);
  NpyArray out;
  ASSERT_TRUE(npy_read_buffer(bytes.data(), bytes.size(), out, error)) << error;
  EXPECT_EQ(out.shape, in.shape);
  EXPECT_EQ(values_of<int32_t>(out), std::vector<int32_t>{-7});
}

TEST(NpyWrite, MatchesNumpyBytesExactly) {
  // Same header text, padding and data as numpy's np.save.
  struct Case {
    const char* golden;
    NpyArray array;
  };
  const Case cases[] = {
      {"float32_2x3.npy",
       make_array(OPS_DTYPE_FLOAT32, {2, 3},
                  to_bytes(std::vector<float>{1.5f, -2.25f, 3, 0, -0.5f, 10}))},
      {"int32_fortran_2x3.npy",
       make_array(OPS_DTYPE_INT32, {2, 3},
                  to_bytes(std::vector<int32_t>{1, 4, 2, 5, 3, 6}), true)},
      {"scalar_float64.npy",
       make_array(OPS_DTYPE_FLOAT64, {}, to_bytes(std::vector<double>{2.5}))},
      {"empty_float32_0x3.npy", make_array(OPS_DTYPE_FLOAT32, {0, 3}, {})},
      {"bool.npy", make_array(OPS_DTYPE_BOOL, {5}, {1, 0, 0, 1, 1})},
      {"int8.npy", make_array(OPS_DTYPE_INT8, {5},
                              to_bytes(std::vector<int8_t>{-128, -1, 0, 7, 127}))},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(npy_write_buffer(c.array, bytes, error)) << error;
    EXPECT_EQ(bytes, file_bytes(golden_dir() + "/" + c.golden)) << c.golden;
  }
}

// --- goldens written by numpy ------------------------------------------------

TEST(NpyGolden, OneFilePerDtype) {
  auto expect_1d = [](const NpyArray& a, ops_dtype_t dtype) {
    EXPECT_EQ(a.dtype, dtype);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{5}));
    EXPECT_FALSE(a.fortran_order);
  };
  NpyArray a = read_golden("bool.npy");
  expect_1d(a, OPS_DTYPE_BOOL);
  EXPECT_EQ(a.data, (std::vector<uint8_t>{1, 0, 0, 1, 1}));

  a = read_golden("int8.npy");
  expect_1d(a, OPS_DTYPE_INT8);
  EXPECT_EQ(values_of<int8_t>(a), (std::vector<int8_t>{-128, -1, 0, 7, 127}));

  a = read_golden("int16_be.npy");  // '>i2': swapped on read
  expect_1d(a, OPS_DTYPE_INT16);
  EXPECT_EQ(values_of<int16_t>(a),
            (std::vector<int16_t>{-32768, -2, 0, 300, 32767}));

  a = read_golden("int32.npy");
  expect_1d(a, OPS_DTYPE_INT32);
  EXPECT_EQ(values_of<int32_t>(a),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -3, 0,
                                  70000, 2147483647}));

  a = read_golden("int64.npy");
  expect_1d(a, OPS_DTYPE_INT64);
  EXPECT_EQ(values_of<int64_t>(a),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -4, 0,
                                  (int64_t(1) << 40) + 5,
                                  std::numeric_limits<int64_t>::max()}));

  a = read_golden("uint8.npy");
  expect_1d(a, OPS_DTYPE_UINT8);
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 128, 200, 255}));

  a = read_golden("uint16.npy");
  expect_1d(a, OPS_DTYPE_UINT16);
  EXPECT_EQ(values_of<uint16_t>(a),
            (std::vector<uint16_t>{0, 1, 256, 40000, 65535}));

  a = read_golden("uint32.npy");
  expect_1d(a, OPS_DTYPE_UINT32);
  EXPECT_EQ(values_of<uint32_t>(a),
            (std::vector<uint32_t>{0, 1, 65536, 3000000000u, 4294967295u}));

  a = read_golden("uint64_be.npy");  // '>u8': swapped on read
  expect_1d(a, OPS_DTYPE_UINT64);
  EXPECT_EQ(values_of<uint64_t>(a),
            (std::vector<uint64_t>{0, 1, uint64_t(1) << 32,
                                   (uint64_t(1) << 63) + 9,
                                   std::numeric_limits<uint64_t>::max()}));

  a = read_golden("float16.npy");  // IEEE half bit patterns
  expect_1d(a, OPS_DTYPE_FLOAT16);
  EXPECT_EQ(values_of<uint16_t>(a),
            (std::vector<uint16_t>{0x3C00, 0xC000, 0x3800, 0x7BFF, 0x8000}));

  a = read_golden("float32.npy");
  expect_1d(a, OPS_DTYPE_FLOAT32);
  EXPECT_EQ(values_of<float>(a),
            (std::vector<float>{1.5f, -2.25f, 0.0f, 1e10f, -3.0e-5f}));

  a = read_golden("float64_be.npy");  // '>f8': swapped on read
  expect_1d(a, OPS_DTYPE_FLOAT64);
  EXPECT_EQ(values_of<double>(a),
            (std::vector<double>{1.0, -2.5, 3.141592653589793, 1e300, -0.125}));

  // ml_dtypes' bfloat16 as numpy saves it ('<V2'): the bits of 1, -2, 0.5,
  // the largest finite bfloat16 and -0, the top halves of their float32s.
  a = read_golden("bfloat16.npy");
  expect_1d(a, OPS_DTYPE_BFLOAT16);
  EXPECT_EQ(values_of<uint16_t>(a), (std::vector<uint16_t>{0x3F80, 0xC000, 0x3F00, 0x7F7F, 0x8000}));
}

TEST(NpyGolden, ShapesOrdersAndVersions) {
  NpyArray a = read_golden("float32_2x3.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of<float>(a),
            (std::vector<float>{1.5f, -2.25f, 3.0f, 0.0f, -0.5f, 10.0f}));

  // Fortran order: data stays in stored (column-major) order.
  a = read_golden("int32_fortran_2x3.npy");
  EXPECT_EQ(a.dtype, OPS_DTYPE_INT32);
  EXPECT_TRUE(a.fortran_order);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of<int32_t>(a), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));

  a = read_golden("int16_be_2x2.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values_of<int16_t>(a), (std::vector<int16_t>{1, -2, 3, 1000}));

  a = read_golden("scalar_float64.npy");
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(values_of<double>(a), std::vector<double>{2.5});

  a = read_golden("empty_float32_0x3.npy");
  EXPECT_EQ(a.dtype, OPS_DTYPE_FLOAT32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(a.data.empty());

  a = read_golden("int64_v2.npy");  // format version 2.0
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of<int64_t>(a),
            (std::vector<int64_t>{7, -8, 9, -10, 11, 12}));

  a = read_golden("uint16_v3.npy");  // format version 3.0
  EXPECT_EQ(values_of<uint16_t>(a), (std::vector<uint16_t>{3, 1, 4, 1, 5}));
}

TEST(NpyGolden, ReadBufferMatchesReadFile) {
  const std::vector<uint8_t> bytes =
      file_bytes(golden_dir() + "/float64_be.npy");
  NpyArray a;
  std::string error;
  ASSERT_TRUE(npy_read_buffer(bytes.data(), bytes.size(), a, error)) << error;
  EXPECT_EQ(a.data, read_golden("float64_be.npy").data);
}

// --- malformed input ---------------------------------------------------------

// Reads `bytes` and expects failure with a message containing `needle`.
void expect_read_error(const std::vector<uint8_t>& bytes,
                       const std::string& needle, const std::string& label) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(npy_read_buffer(bytes.data(), bytes.size(), a, error)) << label;
  EXPECT_FALSE(error.empty()) << label;
  EXPECT_NE(error.find(needle), std::string::npos)
      << label << ": error '" << error << "' should mention '" << needle << "'";
}

TEST(NpyMalformed, GoldenFilesNumpyWritesButWeRefuse) {
  struct Case {
    const char* golden;
    const char* needle;
  };
  for (const Case& c : {Case{"object.npy", "object arrays ('|O')"},
                        Case{"structured.npy", "structured dtypes"},
                        Case{"unicode.npy", "unknown descr '<U3'"}}) {
    NpyArray a;
    std::string error;
    EXPECT_FALSE(npy_read_file(golden_dir() + "/" + c.golden, a, error));
    EXPECT_NE(error.find(c.needle), std::string::npos) << error;
    EXPECT_NE(error.find(c.golden), std::string::npos)
        << "file errors name the file: " << error;
  }
}

TEST(NpyMalformed, MagicAndPreamble) {
  const std::vector<uint8_t> good = make_npy(header("<f4", "(2, 3)"), 24);
  expect_read_error({}, "truncated magic with 0 bytes", "empty buffer");
  expect_read_error({0x93, 'N', 'U'}, "truncated magic with 3 bytes",
                    "cut in magic");

  std::vector<uint8_t> b = good;
  b[1] = 'X';
  expect_read_error(b, "bad magic", "bad magic");
  expect_read_error({'P', 'K', 3, 4}, "bad magic", "a zip file");

  expect_read_error({good.begin(), good.begin() + 7}, "truncated preamble",
                    "cut in version");
  expect_read_error({good.begin(), good.begin() + 9},
                    "truncated header length with 9 bytes", "cut in length");
  const std::vector<uint8_t> v2 = make_npy(header("<f4", "(2, 3)"), 24, 2);
  expect_read_error({v2.begin(), v2.begin() + 11},
                    "version 2.0 needs 12 bytes", "cut in v2 length");

  b = good;
  b[6] = 4;
  expect_read_error(b, "unsupported format version 4.0", "major 4");
  b = good;
  b[7] = 1;
  expect_read_error(b, "unsupported format version 1.1", "minor 1");
}

TEST(NpyMalformed, HeaderLengthBeyondFile) {
  std::vector<uint8_t> b = make_npy(header("<f4", "(2, 3)"), 24);
  b[8] = 0xff;
  b[9] = 0xff;
  expect_read_error(b, "header length 65535 goes beyond the end of the file",
                    "v1 length");
  b.resize(40);  // cut inside the header
  b[8] = 60;
  b[9] = 0;
  expect_read_error(b, "header length 60", "truncated header");

  std::vector<uint8_t> v2 = make_npy(header("<f4", "(2, 3)"), 24, 2);
  v2[8] = v2[9] = v2[10] = v2[11] = 0xff;
  expect_read_error(v2, "header length 4294967295", "v2 length");
}

TEST(NpyMalformed, UnparsableDict) {
  struct Case {
    std::string dict;
    const char* needle;
  };
  const Case cases[] = {
      {"", "expected '{'"},
      {"not a dict", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)",
       "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False}", "missing key(s): shape"},
      {"{}", "missing key(s): descr fortran_order shape"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
       "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}",
       "unexpected key 'x'"},
      {"{'descr': '<f4', 'fortran_order': maybe, 'shape': ()}",
       "fortran_order must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}",
       "shape must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}",
       "shape must hold integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
       "expected ',' or ')'"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': ()}",
       "descr must be a quoted string"},
      {"{'descr: '<f4', 'fortran_order': False, 'shape': ()}", "expected ':'"},
      {"{descr: '<f4'}", "expected a quoted key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} junk",
       "unexpected text after '}'"},
      {"{'descr': '<f\\4', 'fortran_order': False, 'shape': ()}",
       "descr must be a quoted string"},
  };
  for (const Case& c : cases)
    expect_read_error(make_npy(c.dict, 0), c.needle, c.dict);
}

TEST(NpyMalformed, UnknownDescr) {
  for (const char* descr : {"<c8", "<f16", "<U3", "|S5", "<V4", "<M8", "f4",
                            "<f3", "", "<f4x", "!f4"})
    expect_read_error(make_npy(header(descr, "(1,)"), 4),
                      std::string("unknown descr '") + descr + "'", descr);
  expect_read_error(make_npy(header("|f4", "(1,)"), 4),
                    "byte order '|' but a 4-byte type", "|f4");
  expect_read_error(make_npy(header("|O", "(1,)"), 8), "object arrays", "|O");
}

TEST(NpyMalformed, BadShape) {
  expect_read_error(make_npy(header("<f4", "(-2, 3)"), 0),
                    "negative dimension -2 in shape at index 0", "negative");
  expect_read_error(make_npy(header("<f4", "(2, -1)"), 0),
                    "negative dimension -1 in shape at index 1", "negative 2");
  expect_read_error(make_npy(header("<f4", "(99999999999999999999,)"), 0),
                    "does not fit in int64", "int64 overflow");
  expect_read_error(
      make_npy(header("<f4", "(4294967296, 4294967296, 16)"), 0),
      "shape (4294967296, 4294967296, 16) with item size 4 overflows",
      "product overflow");
  expect_read_error(make_npy(header("<i8", "(9223372036854775807,)"), 0),
                    "overflows", "bytes overflow");
  // A 0 dim makes even huge other dims an empty array.
  NpyArray a;
  std::string error;
  const auto empty = make_npy(header("<f4", "(9223372036854775807, 0)"), 0);
  EXPECT_TRUE(npy_read_buffer(empty.data(), empty.size(), a, error)) << error;
  EXPECT_TRUE(a.data.empty());
}

TEST(NpyMalformed, DataSizeMismatch) {
  expect_read_error(make_npy(header("<f4", "(2, 3)"), 23),
                    "data has 23 bytes but shape (2, 3) of float32 needs 24 "
                    "(truncated data)",
                    "one byte short");
  expect_read_error(make_npy(header("<f4", "(2, 3)"), 25),
                    "data has 25 bytes but shape (2, 3) of float32 needs 24 "
                    "(trailing bytes)",
                    "one byte extra");
  expect_read_error(make_npy(header("<f8", "()"), 0), "needs 8", "no scalar");
  // A header promising a terabyte is refused before any allocation.
  expect_read_error(make_npy(header("<f4", "(1099511627776,)"), 16),
                    "data has 16 bytes but shape (1099511627776,) of float32 "
                    "needs 4398046511104",
                    "terabyte");
}

TEST(NpyMalformed, BoolBytesOtherThanZeroOrOne) {
  std::vector<uint8_t> b = make_npy(header("|b1", "(3,)"), 0);
  b.insert(b.end(), {1, 2, 0});
  expect_read_error(b, "bool element 1 holds byte value 2", "bool 2");
}

TEST(NpyMalformed, FileErrors) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(npy_read_file(golden_dir() + "/no_such_file.npy", a, error));
  EXPECT_NE(error.find("no_such_file.npy"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(npy_read_file(golden_dir(), a, error)) << "a directory";
  EXPECT_FALSE(error.empty());

  // A truncated file reports the same error as a truncated buffer.
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_npy_test_truncated.npy";
  const std::vector<uint8_t> bytes = make_npy(header("<f4", "(2, 3)"), 20);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  error.clear();
  EXPECT_FALSE(npy_read_file(path, a, error));
  EXPECT_NE(error.find("data has 20 bytes"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST(NpyWrite, RefusesBadArrays) {
  struct Case {
    NpyArray array;
    const char* needle;
  };
  const Case cases[] = {
      {make_array(OPS_DTYPE_INVALID, {1}, {0}), "dtype value 0"},
      {make_array(ops_dtype_t(14), {1}, {0}), "dtype value 14"},
      {make_array(OPS_DTYPE_FLOAT32, {2, -3}, {}),
       "negative dimension -3 at index 1"},
      {make_array(OPS_DTYPE_FLOAT32, {2, 3}, std::vector<uint8_t>(20)),
       "data has 20 bytes but shape (2, 3) of float32 needs 24"},
      {make_array(OPS_DTYPE_INT16, {}, std::vector<uint8_t>(4)),
       "(trailing bytes)"},
      {make_array(OPS_DTYPE_BOOL, {2}, {1, 7}), "bool element 1 holds byte value 7"},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes;
    std::string error;
    EXPECT_FALSE(npy_write_buffer(c.array, bytes, error)) << c.needle;
    EXPECT_NE(error.find(c.needle), std::string::npos)
        << "error '" << error << "' should mention '" << c.needle << "'";
  }
  std::string error;
  EXPECT_FALSE(npy_write_file("/nonexistent_dir/x.npy",
                              make_array(OPS_DTYPE_UINT8, {1}, {3}), error));
  EXPECT_NE(error.find("/nonexistent_dir/x.npy"), std::string::npos) << error;
}

// bfloat16 is written as numpy writes ml_dtypes' bfloat16 ('<V2'), and a
// plain V2 array's '|V2' reads as bfloat16 too.
TEST(NpyWrite, WritesBfloat16AsTwoByteRecords) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(npy_write_buffer(make_array(OPS_DTYPE_BFLOAT16, {2}, {0x80, 0x3F, 0x00, 0xC0}), bytes, error)) << error;
  const std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }"), std::string::npos) << text;
  NpyArray a;
  const std::vector<uint8_t> plain_void = make_npy(header("|V2", "(1,)"), 2);
  ASSERT_TRUE(npy_read_buffer(plain_void.data(), plain_void.size(), a, error)) << error;
  EXPECT_EQ(a.dtype, OPS_DTYPE_BFLOAT16);
}

TEST(NpyItemsize, AllDtypes) {
  for (const DtypeCase& c : kDtypeCases)
    EXPECT_EQ(npy_itemsize(c.dtype), c.itemsize);
  EXPECT_EQ(npy_itemsize(OPS_DTYPE_BFLOAT16), 2u);
  EXPECT_EQ(npy_itemsize(OPS_DTYPE_INVALID), 0u);
}

}  // namespace
}  // namespace libops::npy
