// The byte format of one op call for fuzz_op_call: which registry op, its inputs (dtype, shape, values) and
// its attributes, each of the type the op declares (or, on purpose, of another type).
//
//   tl::fuzz::ByteReader in(data, size);
//   tl::fuzz::OpCall call = tl::fuzz::decode_op_call(in);          // fuzzer side
//   auto seed = tl::fuzz::encode_op_call(op, inputs, attrs);        // seed side: decodes back to this call
//
// Layout (every field one byte unless said otherwise):
//   op        index into OpRegistry::global().all(), modulo the op count
//   count     < 200: the op's declared input count (variadic: min + count % 5); else (count - 200) % 9 inputs
//   inputs    kind (dtype = kind % 3; bit 2: a weak scalar, then one value byte and nothing else),
//             rank (% 6), rank dims (0..255; shrunk when all inputs together pass kMaxElements),
//             fill (% 4: 0 zeros, 1 a ramp, 2 one value byte per element, 3 raw: 4 bytes per f32/i32, 1 per bool)
//   attrs     per declared attribute: flags (bit 0: present — inverted for required ones; bit 1: give it the
//             next type instead), then the value (decode_int64 / decode_double / a string / ints / dtype)
//   extra     bit 0: also pass an attribute the op does not declare
//   checks    bit 0: compare with a one-node graph run by the executor; bit 1: run the shape rule on partly
//             unknown dims (the next byte says which dims); bit 2: run the gradient rule
#pragma once

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "tracelab/tracelab.h"

namespace tl::fuzz {

/// Inputs of one call hold at most this many elements together.
inline constexpr std::int64_t kMaxElements = 4096;
inline constexpr int kMaxRank = 5;

struct OpCall {
  const OpDef* op = nullptr;
  std::vector<Tensor> inputs;
  Attrs attrs;
  std::uint8_t checks = 0;
  std::uint8_t unknown_dims = 0;  ///< which dims the partial-shape check makes unknown (bit i: dim i of each input)
};

/// Strings that mean something to some op ("SAME", activations, print templates).
inline const std::vector<std::string>& string_vocabulary() {
  static const std::vector<std::string> words{"SAME", "VALID", "same", "valid", "none", "relu", "sigmoid", "tanh",
                                              "gelu", "", "{}", "{} {}", "{{", "{}{}{}", "x: {}", "}", "{",
                                              "{{}}", "{}{", "%0", "a{}b{}c"};
  return words;
}

/// An attribute value of AttrValue alternative `type` (0 bool, 1 int, 2 float, 3 string, 4 ints, 5 dtype).
inline AttrValue decode_attr(ByteReader& in, std::size_t type) {
  switch (type % 6) {
    case 0: return (in.u8() & 1) != 0;
    case 1: return decode_int64(in);
    case 2: return decode_double(in);
    case 3: {
      std::uint8_t sel = in.u8();
      if (sel >= 0xC0) return in.text(in.u8());
      return string_vocabulary()[sel % string_vocabulary().size()];
    }
    case 4: {
      Ints ints(in.u8() % 10);
      for (auto& v : ints) v = decode_int64(in);
      return ints;
    }
    default: return static_cast<DType>(in.u8() % 3);
  }
}

/// Dims whose product, with what earlier inputs used, stays within the budget.
inline Shape decode_shape(ByteReader& in, std::int64_t& budget) {
  DimVector dims;
  dims.resize(in.u8() % (kMaxRank + 1));
  for (auto& d : dims) d = in.u8();
  auto product = [&] {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  };
  if (product() > budget)
    for (auto& d : dims) d %= 5;
  if (product() > budget)
    for (auto& d : dims) d = d > 0 ? 1 : 0;
  budget -= product();
  return Shape(std::move(dims));
}

inline Tensor decode_tensor(ByteReader& in, std::int64_t& budget) {
  std::uint8_t kind = in.u8();
  auto dtype = static_cast<DType>(kind % 3);
  if (kind & 4) {  // a weak scalar, as a C++ number passed to an op
    std::uint8_t b = in.u8();
    if (dtype == DType::float32) return Tensor(float_of_byte(b));
    if (dtype == DType::int32) return Tensor(int_of_byte(b));
    return Tensor((b & 1) != 0);
  }
  Shape shape = decode_shape(in, budget);
  Tensor t = Tensor::empty(dtype, shape);
  const auto n = static_cast<std::size_t>(t.num_elements());
  const int fill = in.u8() % 4;
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* data = n ? t.mutable_data<T>() : nullptr;
    for (std::size_t i = 0; i < n; ++i) {
      if (fill == 0) {
        data[i] = T{};
      } else if (fill == 1) {
        data[i] = static_cast<T>(static_cast<int>(i % 7) - 3);
      } else if constexpr (std::is_same_v<T, bool>) {
        data[i] = (in.u8() & 1) != 0;
      } else if (fill == 2) {
        data[i] = std::is_same_v<T, float> ? static_cast<T>(float_of_byte(in.u8())) : static_cast<T>(int_of_byte(in.u8()));
      } else {
        data[i] = bit_cast<T>(static_cast<std::uint32_t>(in.bits(4)));
      }
    }
  });
  return t;
}

inline std::size_t decode_input_count(ByteReader& in, const OpDef& op) {
  std::uint8_t c = in.u8();
  if (c >= 200) return static_cast<std::size_t>((c - 200) % 9);
  if (op.num_inputs() != OpDef::variadic) return static_cast<std::size_t>(op.num_inputs());
  return static_cast<std::size_t>(op.min_inputs() + c % 5);
}

/// The ops an encoded call can name: the registry's ops without sub-graphs or variable handles (a structured op
/// needs graphs, which the graph_json target fuzzes; an _apply op needs variables).
inline std::vector<const OpDef*> callable_ops() {
  std::vector<const OpDef*> ops;
  for (const OpDef* op : OpRegistry::global().all())
    if (op->num_subgraphs() == 0 && !op->has(trait::updates_variables)) ops.push_back(op);
  return ops;
}

inline OpCall decode_op_call(ByteReader& in) {
  OpCall call;
  const auto ops = callable_ops();
  call.op = ops[in.u8() % ops.size()];
  std::int64_t budget = kMaxElements;
  const std::size_t count = decode_input_count(in, *call.op);
  for (std::size_t i = 0; i < count; ++i) call.inputs.push_back(decode_tensor(in, budget));
  for (const AttrSpec& spec : call.op->attr_specs()) {
    std::uint8_t flags = in.u8();
    bool present = spec.required ? !(flags & 1) : (flags & 1) != 0;
    if (!present) continue;
    std::size_t type = (flags & 2) ? spec.type_index + 1 : spec.type_index;
    call.attrs.set(spec.name, decode_attr(in, type));
  }
  if (in.u8() & 1) call.attrs.set("fuzz_unknown", std::int64_t{0});
  call.checks = in.u8();
  call.unknown_dims = in.u8();
  return call;
}

// ---- encoding (the seed generator) ----

inline void encode_tensor(ByteWriter& out, const Tensor& t) {
  const auto dtype = static_cast<std::uint64_t>(t.dtype());
  out.u8(dtype);
  out.u8(static_cast<std::uint64_t>(t.rank()));
  for (auto d : t.shape().dims()) out.u8(static_cast<std::uint64_t>(d));
  const auto n = static_cast<std::size_t>(t.num_elements());
  if (n * dtype_size(t.dtype()) > 512) return out.u8(1);  // a ramp keeps big seeds small
  out.u8(3);
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = n ? t.data<T>() : nullptr;
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) out.u8(data[i] ? 1 : 0);
      else out.bits(bit_cast<std::uint32_t>(data[i]), 4);
    }
  });
}

inline void encode_attr(ByteWriter& out, const AttrValue& value) {
  switch (value.index()) {
    case 0: return out.u8(std::get<bool>(value) ? 1 : 0);
    case 1: return encode_int64(out, std::get<std::int64_t>(value));
    case 2: return encode_double(out, std::get<double>(value));
    case 3: {
      const auto& s = std::get<std::string>(value);
      const auto& words = string_vocabulary();
      for (std::size_t i = 0; i < words.size(); ++i)
        if (words[i] == s && !s.starts_with("%")) return out.u8(i);
      out.u8(0xC0);
      out.u8(s.size());
      return out.text(s);
    }
    case 4: {
      const auto& ints = std::get<Ints>(value);
      out.u8(ints.size());
      for (auto v : ints) encode_int64(out, v);
      return;
    }
    default: return out.u8(static_cast<std::uint64_t>(std::get<DType>(value)));
  }
}

/// The bytes decode_op_call turns back into this call (inputs of strong dtypes; at most 8 of them).
inline std::vector<std::uint8_t> encode_op_call(const OpDef& op, std::span<const Tensor> inputs, const Attrs& attrs,
                                                std::uint8_t checks = 7) {
  ByteWriter out;
  const auto ops = callable_ops();
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i] == &op) out.u8(i);
  const auto count = static_cast<int>(inputs.size());
  if (op.num_inputs() != OpDef::variadic) out.u8(count == op.num_inputs() ? 0 : 200 + count);
  else out.u8(count >= op.min_inputs() && count - op.min_inputs() < 5 ? count - op.min_inputs() : 200 + count);
  for (const Tensor& t : inputs) encode_tensor(out, t);
  for (const AttrSpec& spec : op.attr_specs()) {
    bool present = attrs.has(spec.name);
    out.u8(present == !spec.required ? 1 : 0);
    if (!present) continue;
    for (const auto& [name, value] : attrs.entries())
      if (name == spec.name) encode_attr(out, value);
  }
  out.u8(0);
  out.u8(checks);
  out.u8(0x01);  // the partial-shape check makes dim 0 unknown
  return out.bytes();
}

}  // namespace tl::fuzz
