// The byte format of trace-key arguments for fuzz_trace_key: one kind byte, then the value.
//
//   tl::fuzz::ByteReader in(data, size);
//   std::vector<tl::ArgKey> args = tl::fuzz::decode_args(in);       // fuzzer side
//   tl::fuzz::ByteWriter out;  tl::fuzz::encode_arg(out, tl::TensorSpec({-1, 20}));   // seed side
//
// kind % 6: 0 TensorSpec (dtype % 3, rank % 6, dims: 0xFF unknown (-1), 0xF0..0xFE edge values including
// invalid ones below -1, else % 8; then a name byte, odd = named "a<byte>"), 1 bool, 2 int (decode_int64),
// 3 real (decode_double), 4 string (length % 16, bytes), 5 variable (id byte, dtype, shape as for a spec).
#pragma once

#include <string>
#include <vector>

#include "fuzz_input.h"
#include "tracelab/tracelab.h"

namespace tl::fuzz {

inline Shape decode_key_shape(ByteReader& in) {
  static const std::int64_t edges[] = {-2, -1000, std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max(), std::int64_t{1} << 31,
                                       std::int64_t{1} << 40, 4096, 65536, 1, 0, 255, 1 << 20, -1, 3, 7};
  std::vector<std::int64_t> dims(in.u8() % 6);
  for (auto& d : dims) {
    std::uint8_t b = in.u8();
    d = b == 0xFF ? -1 : b >= 0xF0 ? edges[b - 0xF0] : b % 8;
  }
  return Shape(std::move(dims));
}

/// A TensorSpec; dims below -1 (which the constructor rejects with InvalidArgument) are made -1 afterwards, so
/// the rest of the input still decodes. `rejected` tells whether the constructor threw.
inline TensorSpec decode_spec(ByteReader& in, bool* rejected = nullptr) {
  auto dtype = static_cast<DType>(in.u8() % 3);
  Shape shape = decode_key_shape(in);
  std::uint8_t name_byte = in.u8();
  std::string name = (name_byte & 1) ? "a" + std::to_string(name_byte) : std::string();
  try {
    TensorSpec spec(shape, dtype, name);
    if (rejected) *rejected = false;
    return spec;
  } catch (const InvalidArgument&) {
    if (rejected) *rejected = true;
    for (auto& d : shape.dims()) d = std::max<std::int64_t>(d, -1);
    return TensorSpec(shape, dtype, name);
  }
}

inline ArgKey decode_arg(ByteReader& in) {
  switch (in.u8() % 6) {
    case 0: return decode_spec(in);
    case 1: return (in.u8() & 1) != 0;
    case 2: return decode_int64(in);
    case 3: return decode_double(in);
    case 4: return in.text(in.u8() % 16);
    default: {
      std::uint64_t id = in.u8();
      auto dtype = static_cast<DType>(in.u8() % 3);
      return VariableKey{id, dtype, decode_key_shape(in)};
    }
  }
}

inline std::vector<ArgKey> decode_args(ByteReader& in) {
  std::vector<ArgKey> args(in.u8() % 7);
  for (auto& a : args) a = decode_arg(in);
  return args;
}

// ---- encoding (the seed generator) ----

inline void encode_key_shape(ByteWriter& out, const Shape& shape) {
  out.u8(static_cast<std::uint64_t>(shape.rank()));
  for (auto d : shape.dims()) out.u8(d < 0 ? 0xFF : static_cast<std::uint64_t>(d % 8));
}

inline void encode_arg(ByteWriter& out, const ArgKey& arg) {
  out.u8(arg.index());
  if (const auto* spec = std::get_if<TensorSpec>(&arg)) {
    out.u8(static_cast<std::uint64_t>(spec->dtype()));
    encode_key_shape(out, spec->shape());
    out.u8(spec->name().empty() ? 0 : 1);
  } else if (const auto* b = std::get_if<bool>(&arg)) {
    out.u8(*b ? 1 : 0);
  } else if (const auto* i = std::get_if<std::int64_t>(&arg)) {
    encode_int64(out, *i);
  } else if (const auto* r = std::get_if<double>(&arg)) {
    encode_double(out, *r);
  } else if (const auto* s = std::get_if<std::string>(&arg)) {
    out.u8(s->size());
    out.text(*s);
  } else {
    const auto& v = std::get<VariableKey>(arg);
    out.u8(v.id);
    out.u8(static_cast<std::uint64_t>(v.dtype));
    encode_key_shape(out, v.shape);
  }
}

inline void encode_args(ByteWriter& out, const std::vector<ArgKey>& args) {
  out.u8(args.size());
  for (const auto& a : args) encode_arg(out, a);
}

}  // namespace tl::fuzz
