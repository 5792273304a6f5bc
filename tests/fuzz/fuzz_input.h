// Bytes in, structured values out: what the fuzz targets decode their input with, and what the seed
// generator (make_seeds.cpp) encodes seeds with, so a seed decodes to exactly the call it was made from.
//
//   tl::fuzz::ByteReader in(data, size);
//   std::int64_t axis = tl::fuzz::decode_int64(in);     // mostly small, sometimes an edge value
//   tl::fuzz::ByteWriter out;  tl::fuzz::encode_int64(out, -1);   // -> the bytes that decode to -1
//
// The reader reads from the front and returns zeros once the input is used up, so every input decodes to
// something. Numbers are drawn mostly from small ranges and otherwise from tables of edge values (NaN, the
// infinities, -0, the int32 / int64 limits, sizes just past 2^31 and 2^62), which is where shape rules and
// kernels break.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace tl::fuzz {

/// Reads fixed-size little-endian values from the front of a byte buffer; zeros past the end.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint64_t bits(int bytes) {
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= std::uint64_t{u8()} << (8 * i);
    return value;
  }
  std::string text(std::size_t length) {
    std::string out;
    for (std::size_t i = 0; i < length && pos_ < size_; ++i) out += static_cast<char>(u8());
    return out;
  }
  std::size_t remaining() const noexcept { return size_ - pos_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// The mirror image of ByteReader, for writing seeds.
class ByteWriter {
 public:
  void u8(std::uint64_t value) { bytes_.push_back(static_cast<std::uint8_t>(value)); }
  void bits(std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) u8(value >> (8 * i));
  }
  void text(const std::string& s) {
    for (char c : s) u8(static_cast<unsigned char>(c));
  }
  const std::vector<std::uint8_t>& bytes() const noexcept { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

template <class To, class From>
To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// ---- integers: one byte, small values -112..111 directly; 0xE0.. edge values; 0xFF raw 8 bytes ----

inline const std::vector<std::int64_t>& int64_edges() {
  static const std::vector<std::int64_t> edges{
      std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
      std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(),
      std::int64_t{1} << 31, std::int64_t{1} << 32, std::int64_t{1} << 40, std::int64_t{1} << 62,
      -(std::int64_t{1} << 62), std::int64_t{1} << 20, 4096, 65536, 1000000, -1000000, 255, 256,
      std::numeric_limits<std::int64_t>::max() / 2 + 1, std::numeric_limits<std::int64_t>::min() + 1, 3037000500,
      -3037000500, 1 << 24, (1 << 24) + 1, 46341, -46341, 2147483648LL * 3, 1LL << 33, 1LL << 50, 1LL << 61,
      -(1LL << 31) - 1, 1LL << 16, 999, -2};
  return edges;
}

inline std::int64_t decode_int64(ByteReader& in) {
  std::uint8_t sel = in.u8();
  if (sel < 0xE0) return static_cast<std::int64_t>(sel) - 0x70;
  if (sel == 0xFF) return bit_cast<std::int64_t>(in.bits(8));
  return int64_edges()[(sel - 0xE0) % int64_edges().size()];
}

inline void encode_int64(ByteWriter& out, std::int64_t value) {
  if (value >= -0x70 && value < 0xE0 - 0x70) return out.u8(static_cast<std::uint64_t>(value + 0x70));
  out.u8(0xFF);
  out.bits(static_cast<std::uint64_t>(value), 8);
}

// ---- reals: one byte, (b - 96) / 8 for b < 0xC0; 0xC0.. edge values; 0xFF raw 8 bytes ----

inline const std::vector<double>& double_edges() {
  static const std::vector<double> edges{
      std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), -0.0,
      std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
      std::numeric_limits<double>::denorm_min(), 3.4028234663852886e38, 3.5e38, -3.5e38, 1e-45, 1e-38, 1e10,
      -1e10, 2147483647.0, 2147483648.0, -2147483649.0, 9.3e18, -9.3e18, 0.1, 1e-7, 0.999, 1.0000001, 1e300,
      16777217.0, 0.5, -0.5, 1e-300, 4294967296.0, 1e20, 1.5};
  return edges;
}

inline double decode_double(ByteReader& in) {
  std::uint8_t sel = in.u8();
  if (sel < 0xC0) return (static_cast<double>(sel) - 96.0) / 8.0;
  if (sel == 0xFF) return bit_cast<double>(in.bits(8));
  return double_edges()[(sel - 0xC0) % double_edges().size()];
}

inline void encode_double(ByteWriter& out, double value) {
  double scaled = value * 8.0 + 96.0;
  if (scaled >= 0 && scaled < 0xC0 && scaled == static_cast<double>(static_cast<int>(scaled)) &&
      !(value == 0 && std::signbit(value)))
    return out.u8(static_cast<std::uint64_t>(scaled));
  out.u8(0xFF);
  out.bits(bit_cast<std::uint64_t>(value), 8);
}

// ---- tensor elements: one byte per element (fill mode 2) ----

inline const std::vector<float>& float_edges() {
  static const std::vector<float> edges{
      std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
      std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), -0.0f,
      std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), std::numeric_limits<float>::min(),
      std::numeric_limits<float>::denorm_min(), 2147483648.f, -2147483904.f, 4294967296.f, 1e10f, -1e10f, 1e30f,
      1e-30f, 16777216.f, 16777218.f, 0.1f, 1e-7f, 3e9f, -3e9f, 65504.f, 1e38f};
  return edges;
}

inline const std::vector<std::int32_t>& int32_edges() {
  static const std::vector<std::int32_t> edges{std::numeric_limits<std::int32_t>::min(),
                                               std::numeric_limits<std::int32_t>::max(),
                                               std::numeric_limits<std::int32_t>::min() + 1,
                                               std::numeric_limits<std::int32_t>::max() - 1,
                                               1 << 30, -(1 << 30), 65536, 4096, 4095, 46341, -46341, 1 << 24};
  return edges;
}

inline float float_of_byte(std::uint8_t b) {
  return b < 0xC0 ? (static_cast<float>(b) - 96.f) / 8.f : float_edges()[(b - 0xC0) % float_edges().size()];
}
inline std::int32_t int_of_byte(std::uint8_t b) {
  return b < 0xC0 ? static_cast<std::int32_t>(b) - 96 : int32_edges()[(b - 0xC0) % int32_edges().size()];
}

}  // namespace tl::fuzz
