// ProtoWriter: the few pieces of the protobuf wire format the event-file writer needs, to serialize Event,
// Summary, TensorProto and GraphDef messages without the protobuf library. A message is the concatenation of its
// fields; a field is a key varint (field number << 3 | wire type) and a value: a varint (type 0), 8 little-endian
// bytes (type 1), a length-prefixed byte string or sub-message (type 2) or 4 little-endian bytes (type 5). Packed
// repeated numbers are one type-2 field holding the values back to back.
//
//   ProtoWriter value;  value.string(1, "loss");  value.message(8, tensor);
//   ProtoWriter summary;  summary.message(1, value);   // summary.bytes() is the serialized Summary
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tl::summary::detail {

class ProtoWriter {
 public:
  /// A varint field (int32, int64 — negative ones as ten bytes, as protobuf does —, bool, enum).
  void varint(int field, std::uint64_t value) {
    key(field, 0);
    put_varint(value);
  }
  /// A double field (wire type 1).
  void fixed_double(int field, double value) {
    key(field, 1);
    put_le(value);
  }
  /// A float field (wire type 5).
  void fixed_float(int field, float value) {
    key(field, 5);
    put_le(value);
  }
  /// A string or bytes field.
  void string(int field, std::string_view value) {
    key(field, 2);
    put_varint(value.size());
    out_.append(value);
  }
  /// A sub-message field (written even when empty: an empty TensorShapeProto is a scalar's shape).
  void message(int field, const ProtoWriter& sub) { string(field, sub.out_); }
  /// A packed repeated float field.
  void packed_floats(int field, const std::vector<float>& values) { packed_fixed(field, values); }
  /// A packed repeated double field.
  void packed_doubles(int field, const std::vector<double>& values) { packed_fixed(field, values); }
  /// A packed repeated varint field (int32, int64, bool, enum).
  void packed_varints(int field, const std::vector<std::int64_t>& values) {
    ProtoWriter payload;
    for (std::int64_t v : values) payload.put_varint(static_cast<std::uint64_t>(v));
    string(field, payload.out_);
  }
  /// The serialized message.
  const std::string& bytes() const noexcept { return out_; }

 private:
  void key(int field, int wire_type) { put_varint((static_cast<std::uint64_t>(field) << 3) | wire_type); }
  void put_varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  /// The value's bytes, least significant first (WebAssembly and the native targets are little-endian, checked
  /// in event_file.cpp).
  template <class T>
  void put_le(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  template <class T>
  void packed_fixed(int field, const std::vector<T>& values) {
    key(field, 2);
    put_varint(values.size() * sizeof(T));
    for (T v : values) put_le(v);
  }
  std::string out_;
};

}  // namespace tl::summary::detail
