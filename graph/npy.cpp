// .npy reader/writer; see npy.h. Format reference: numpy's
// numpy/lib/format.py docstring ("NPY format").
//
// Layout of a file:
//   "\x93NUMPY" major minor  header_len (u16 LE for 1.x, u32 LE for 2.x/3.x)
//   header: a Python dict literal, e.g.
//     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//   padded with spaces and a final '\n' so the data starts 64-byte aligned
//   data: product(shape) * itemsize bytes.
#include "graph/npy.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string_view>
#include <system_error>

namespace libops::npy {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kPreambleV1 = 10;  // magic + version + u16 length
constexpr size_t kPreambleV2 = 12;  // magic + version + u32 length
constexpr size_t kHeaderAlign = 64;

// One row per dtype .npy can hold: the descr's kind letter and item size.
struct DtypeInfo {
  ops_dtype_t dtype;
  char kind;  // 'b' bool, 'i' signed, 'u' unsigned, 'f' float
  size_t size;
  const char* name;
};

constexpr DtypeInfo kDtypes[] = {
    {OPS_DTYPE_BOOL, 'b', 1, "bool"},       {OPS_DTYPE_INT8, 'i', 1, "int8"},
    {OPS_DTYPE_INT16, 'i', 2, "int16"},     {OPS_DTYPE_INT32, 'i', 4, "int32"},
    {OPS_DTYPE_INT64, 'i', 8, "int64"},     {OPS_DTYPE_UINT8, 'u', 1, "uint8"},
    {OPS_DTYPE_UINT16, 'u', 2, "uint16"},   {OPS_DTYPE_UINT32, 'u', 4, "uint32"},
    {OPS_DTYPE_UINT64, 'u', 8, "uint64"},   {OPS_DTYPE_FLOAT16, 'f', 2, "float16"},
    {OPS_DTYPE_FLOAT32, 'f', 4, "float32"}, {OPS_DTYPE_FLOAT64, 'f', 8, "float64"},
    // numpy has no bfloat16: it saves ml_dtypes' bfloat16 arrays as raw
    // 2-byte records, and np.load gives them back as V2 for .view() to read.
    {OPS_DTYPE_BFLOAT16, 'V', 2, "bfloat16"},
};

constexpr const char* kSupportedDescrs =
    "|b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, V2 (bfloat16)";

const DtypeInfo* find_dtype(ops_dtype_t dtype) {
  for (const DtypeInfo& d : kDtypes)
    if (d.dtype == dtype) return &d;
  return nullptr;
}

const DtypeInfo* find_descr(char kind, size_t size) {
  for (const DtypeInfo& d : kDtypes)
    if (d.kind == kind && d.size == size) return &d;
  return nullptr;
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  // Python tuple syntax, as in the header: (), (5,), (2, 3).
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

uint32_t load_le(const uint8_t* p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}

// What the header says about the data.
struct Header {
  const DtypeInfo* info = nullptr;
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Where the header lies: [offset, offset + length).
struct Preamble {
  int major = 0;
  size_t header_offset = 0;
  size_t header_length = 0;
};

// Checks magic, version and header length. `p` holds the first `n` bytes of a
// file of `total` bytes (n >= min(total, kPreambleV2)).
bool parse_preamble(const uint8_t* p, size_t n, uint64_t total, Preamble& pre,
                    std::string& error) {
  const size_t magic_part = n < sizeof(kMagic) ? n : sizeof(kMagic);
  if (magic_part > 0 && std::memcmp(p, kMagic, magic_part) != 0) {
    error = "npy: bad magic: the data does not start with \"\\x93NUMPY\"";
    return false;
  }
  if (n < sizeof(kMagic)) {
    error = "npy: truncated magic with " + std::to_string(total) +
            " bytes: it needs 6";
    return false;
  }
  if (n < sizeof(kMagic) + 2) {
    error = "npy: truncated preamble with " + std::to_string(total) +
            " bytes: the version needs 8";
    return false;
  }
  const int major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0) {
    error = "npy: unsupported format version " + std::to_string(major) + "." +
            std::to_string(minor) + ": supported are 1.0, 2.0 and 3.0";
    return false;
  }
  const size_t preamble = major == 1 ? kPreambleV1 : kPreambleV2;
  if (n < preamble) {
    error = "npy: truncated header length with " + std::to_string(total) +
            " bytes: version " + std::to_string(major) + ".0 needs " +
            std::to_string(preamble) + " bytes before the header";
    return false;
  }
  pre.major = major;
  pre.header_offset = preamble;
  pre.header_length = load_le(p + 8, preamble - 8);
  if (uint64_t(pre.header_offset) + pre.header_length > total) {
    error = "npy: header length " + std::to_string(pre.header_length) +
            " goes beyond the end of the file (" + std::to_string(total) +
            " bytes, header starts at " + std::to_string(preamble) + ")";
    return false;
  }
  return true;
}

// Parser for the header dict. It accepts exactly the Python literal subset
// that numpy writes: quoted strings, True/False and tuples of integers.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  bool parse(Header& h, std::string& error) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip_space();
    if (!consume('{')) return fail("expected '{' at the start", error);
    while (true) {
      skip_space();
      if (consume('}')) break;
      std::string key;
      if (!parse_string(key)) return fail("expected a quoted key", error);
      skip_space();
      if (!consume(':')) return fail("expected ':' after '" + key + "'", error);
      skip_space();
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &have_descr;
        if (!parse_descr(h, error)) return false;
      } else if (key == "fortran_order") {
        seen = &have_order;
        if (!parse_bool(h.fortran_order))
          return fail("fortran_order must be True or False", error);
      } else if (key == "shape") {
        seen = &have_shape;
        if (!parse_shape(h.shape, error)) return false;
      } else {
        return fail("unexpected key '" + key +
                        "': expected descr, fortran_order and shape",
                    error);
      }
      if (*seen) return fail("duplicate key '" + key + "'", error);
      *seen = true;
      skip_space();
      if (consume(',')) continue;
      if (consume('}')) break;
      return fail("expected ',' or '}' after the value of '" + key + "'", error);
    }
    // numpy pads the header with spaces and ends it with '\n'.
    skip_space();
    if (pos_ != s_.size()) return fail("unexpected text after '}'", error);
    if (!have_descr || !have_order || !have_shape) {
      std::string missing;
      if (!have_descr) missing += " descr";
      if (!have_order) missing += " fortran_order";
      if (!have_shape) missing += " shape";
      return fail("missing key(s):" + missing, error);
    }
    return true;
  }

 private:
  // Syntax error: the text is not the dict numpy writes.
  bool fail(const std::string& what, std::string& error) const {
    error = "npy: unparsable header dict at offset " + std::to_string(pos_) +
            ": " + what + "; header: " + quoted_header();
    return false;
  }

  // Well-formed, but asks for something this reader does not support.
  bool reject(const std::string& what, std::string& error) const {
    error = "npy: " + what + "; header: " + quoted_header();
    return false;
  }

  // The header for a message: without numpy's padding, cut short if long,
  // and with control or non-ASCII bytes shown as '?'.
  std::string quoted_header() const {
    std::string_view h = s_.substr(0, 200);
    while (!h.empty() && (h.back() == ' ' || h.back() == '\n')) h.remove_suffix(1);
    std::string out = "\"";
    for (char c : h) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return out + (s_.size() > 200 ? "...\"" : "\"");
  }

  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' ||
                                s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool consume_word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  // A '...' or "..." string without escapes (numpy never writes any).
  bool parse_string(std::string& out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
    const char quote = s_[pos_];
    const size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    out.assign(s_.substr(pos_ + 1, end - pos_ - 1));
    if (out.find('\\') != std::string::npos) return false;
    pos_ = end + 1;
    return true;
  }

  bool parse_bool(bool& out) {
    if (consume_word("True")) return out = true, true;
    if (consume_word("False")) return out = false, true;
    return false;
  }

  bool parse_descr(Header& h, std::string& error) {
    if (pos_ < s_.size() && s_[pos_] == '[')
      return reject("structured dtypes (a descr list) are not supported", error);
    std::string d;
    if (!parse_string(d)) return fail("descr must be a quoted string", error);
    if (d == "|O" || d == "O")
      return reject("object arrays ('" + d + "') are not supported", error);
    const DtypeInfo* info = nullptr;
    if (d.size() == 3 && d[2] >= '1' && d[2] <= '8')
      info = find_descr(d[1], size_t(d[2] - '0'));
    const char order = d.empty() ? '\0' : d[0];
    if (info == nullptr ||
        (order != '<' && order != '>' && order != '|' && order != '='))
      return reject("unknown descr '" + d + "'; supported: " + kSupportedDescrs,
                  error);
    // '|' means "byte order does not apply": only right for 1-byte types
    // and raw records (numpy writes '|V2' for a plain V2 array).
    if (order == '|' && info->size != 1 && info->kind != 'V')
      return reject("descr '" + d + "' has byte order '|' but a " +
                      std::to_string(info->size) + "-byte type",
                  error);
    h.info = info;
    h.big_endian = order == '>' ||
                   (order == '=' && std::endian::native == std::endian::big);
    return true;
  }

  // "(2, 3)", "(5,)", "()"; an optional 'L' suffix comes from Python 2 files.
  bool parse_shape(std::vector<int64_t>& shape, std::string& error) {
    shape.clear();
    if (!consume('(')) return fail("shape must be a tuple", error);
    while (true) {
      skip_space();
      if (consume(')')) return true;
      const bool negative = consume('-');
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9')
        return fail("shape must hold integers", error);
      uint64_t v = 0;
      bool overflow = false;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        const uint64_t digit = uint64_t(s_[pos_++] - '0');
        if (v > (uint64_t(std::numeric_limits<int64_t>::max()) - digit) / 10)
          overflow = true;
        else
          v = v * 10 + digit;
      }
      consume('L');
      if (overflow)
        return fail("shape dimension " + std::to_string(shape.size()) +
                        " does not fit in int64",
                    error);
      if (negative && v != 0)
        return reject("negative dimension -" + std::to_string(v) +
                        " in shape at index " + std::to_string(shape.size()),
                    error);
      shape.push_back(int64_t(v));
      skip_space();
      if (consume(',')) continue;
      if (consume(')')) return true;
      return fail("expected ',' or ')' in shape", error);
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// product(shape) * itemsize in bytes, or false (with a message) when a dim is
// negative or the product does not fit in size_t.
bool shape_bytes(const std::vector<int64_t>& shape, size_t itemsize,
                 size_t& bytes, std::string& error) {
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      error = "npy: negative dimension " + std::to_string(shape[i]) +
              " at index " + std::to_string(i) + " in shape " +
              shape_to_string(shape);
      return false;
    }
    if (shape[i] == 0) empty = true;
  }
  // A 0 dim makes the array empty whatever the other dims are.
  if (empty) {
    bytes = 0;
    return true;
  }
  size_t total = itemsize;
  for (int64_t dim : shape) {
    if (uint64_t(dim) > std::numeric_limits<size_t>::max() / total) {
      error = "npy: shape " + shape_to_string(shape) + " with item size " +
              std::to_string(itemsize) + " overflows the byte count";
      return false;
    }
    total *= size_t(dim);
  }
  bytes = total;
  return true;
}

bool check_data_size(const Header& h, uint64_t available, size_t& bytes,
                     std::string& error) {
  if (!shape_bytes(h.shape, h.info->size, bytes, error)) return false;
  if (available != bytes) {
    error = "npy: data has " + std::to_string(available) + " bytes but shape " +
            shape_to_string(h.shape) + " of " + h.info->name + " needs " +
            std::to_string(bytes) +
            (available < bytes ? " (truncated data)" : " (trailing bytes)");
    return false;
  }
  return true;
}

void swap_bytes(std::vector<uint8_t>& data, size_t itemsize) {
  if (itemsize == 1) return;
  for (size_t i = 0; i + itemsize <= data.size(); i += itemsize)
    for (size_t a = i, b = i + itemsize - 1; a < b; ++a, --b)
      std::swap(data[a], data[b]);
}

// A bool byte other than 0 or 1 would be undefined behaviour once read as a
// C++ bool, so it is rejected instead of silently normalized.
bool check_bool_bytes(const std::vector<uint8_t>& data, std::string& error) {
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] > 1) {
      error = "npy: bool element " + std::to_string(i) + " holds byte value " +
              std::to_string(data[i]) + ": bool data must be 0 or 1";
      return false;
    }
  }
  return true;
}

// Turns the raw data bytes into the NpyArray form (little-endian).
bool finish_array(const Header& h, NpyArray& out, std::string& error) {
  out.dtype = h.info->dtype;
  out.shape = h.shape;
  out.fortran_order = h.fortran_order;
  if (h.big_endian) swap_bytes(out.data, h.info->size);
  if (out.dtype == OPS_DTYPE_BOOL) return check_bool_bytes(out.data, error);
  return true;
}

bool parse_header(const uint8_t* text, size_t length, Header& h,
                  std::string& error) {
  HeaderParser parser(
      std::string_view(reinterpret_cast<const char*>(text), length));
  return parser.parse(h, error);
}

class File {
 public:
  File(const std::string& path, const char* mode)
      : f_(std::fopen(path.c_str(), mode)) {}
  ~File() {
    if (f_ != nullptr) std::fclose(f_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  std::FILE* get() const { return f_; }
  // Closes now, so a failed flush is reported.
  bool close() {
    const bool ok = std::fclose(f_) == 0;
    f_ = nullptr;
    return ok;
  }

 private:
  std::FILE* f_;
};

}  // namespace

size_t npy_itemsize(ops_dtype_t dtype) {
  if (dtype == OPS_DTYPE_BFLOAT16) return 2;
  const DtypeInfo* info = find_dtype(dtype);
  return info != nullptr ? info->size : 0;
}

bool npy_read_buffer(const uint8_t* data, size_t size, NpyArray& out,
                     std::string& error) {
  if (data == nullptr && size != 0) {
    error = "npy: null buffer with size " + std::to_string(size);
    return false;
  }
  Preamble pre;
  if (!parse_preamble(data, size, size, pre, error)) return false;
  Header h;
  if (!parse_header(data + pre.header_offset, pre.header_length, h, error))
    return false;
  const size_t data_offset = pre.header_offset + pre.header_length;
  size_t bytes = 0;
  if (!check_data_size(h, size - data_offset, bytes, error)) return false;
  out.data.assign(data + data_offset, data + data_offset + bytes);
  return finish_array(h, out, error);
}

bool npy_read_file(const std::string& path, NpyArray& out, std::string& error) {
  std::error_code ec;
  const uint64_t total = std::filesystem::file_size(path, ec);
  if (ec) {
    error = "npy: cannot read '" + path + "': " + ec.message();
    return false;
  }
  File file(path, "rb");
  if (file.get() == nullptr) {
    error = "npy: cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  // Read the preamble, then the header, then exactly the data bytes the
  // header promises: the allocation never exceeds the file size.
  uint8_t preamble[kPreambleV2] = {};
  const size_t got = std::fread(preamble, 1, sizeof(preamble), file.get());
  Preamble pre;
  if (!parse_preamble(preamble, got, total, pre, error)) {
    error += " (file '" + path + "')";
    return false;
  }
  std::vector<uint8_t> header(pre.header_length);
  if (std::fseek(file.get(), long(pre.header_offset), SEEK_SET) != 0 ||
      std::fread(header.data(), 1, header.size(), file.get()) != header.size()) {
    error = "npy: cannot read the header of '" + path + "'";
    return false;
  }
  Header h;
  size_t bytes = 0;
  const uint64_t data_offset = pre.header_offset + pre.header_length;
  if (!parse_header(header.data(), header.size(), h, error) ||
      !check_data_size(h, total - data_offset, bytes, error)) {
    error += " (file '" + path + "')";
    return false;
  }
  out.data.resize(bytes);
  if (std::fread(out.data.data(), 1, bytes, file.get()) != bytes) {
    error = "npy: cannot read " + std::to_string(bytes) + " data bytes of '" +
            path + "'";
    return false;
  }
  return finish_array(h, out, error);
}

bool npy_write_buffer(const NpyArray& a, std::vector<uint8_t>& out,
                      std::string& error) {
  const DtypeInfo* info = find_dtype(a.dtype);
  if (info == nullptr) {
    error = "npy: cannot write dtype value " + std::to_string(int(a.dtype)) +
            ": not a dtype .npy can hold";
    return false;
  }
  Header h;
  h.info = info;
  h.shape = a.shape;
  size_t bytes = 0;
  if (!check_data_size(h, a.data.size(), bytes, error)) return false;
  if (a.dtype == OPS_DTYPE_BOOL && !check_bool_bytes(a.data, error))
    return false;

  std::string descr = info->size == 1 ? "|" : "<";
  descr += info->kind;
  descr += char('0' + info->size);
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " +
                       (a.fortran_order ? "True" : "False") +
                       ", 'shape': " + shape_to_string(a.shape) + ", }";
  // Pad with spaces and end with '\n' so the data starts 64-byte aligned,
  // as numpy does. Version 1.0 only if the length fits its u16 field.
  size_t preamble = kPreambleV1;
  size_t padded = (preamble + header.size() + 1 + kHeaderAlign - 1) /
                  kHeaderAlign * kHeaderAlign;
  if (padded - preamble > 0xffff) {
    preamble = kPreambleV2;
    padded = (preamble + header.size() + 1 + kHeaderAlign - 1) / kHeaderAlign *
             kHeaderAlign;
  }
  const size_t header_length = padded - preamble;
  header.resize(header_length - 1, ' ');
  header += '\n';

  out.clear();
  out.reserve(padded + a.data.size());
  out.insert(out.end(), std::begin(kMagic), std::end(kMagic));
  out.push_back(preamble == kPreambleV1 ? 1 : 2);
  out.push_back(0);
  for (size_t i = 0; i < preamble - 8; ++i)
    out.push_back(uint8_t(header_length >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), a.data.begin(), a.data.end());
  return true;
}

bool npy_write_file(const std::string& path, const NpyArray& a,
                    std::string& error) {
  std::vector<uint8_t> bytes;
  if (!npy_write_buffer(a, bytes, error)) return false;
  File file(path, "wb");
  if (file.get() == nullptr) {
    error = "npy: cannot open '" + path + "' for writing: " +
            std::strerror(errno);
    return false;
  }
  if (std::fwrite(bytes.data(), 1, bytes.size(), file.get()) != bytes.size() ||
      !file.close()) {
    error = "npy: cannot write " + std::to_string(bytes.size()) +
            " bytes to '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace libops::npy
