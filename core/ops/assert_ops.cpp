// Assertions (tf.debugging.assert_*, tf.Assert): ops with trait::side_effects and no outputs. The shape rule
// checks what dtypes and shapes decide (while tracing, that is the static check); the kernel checks the values of
// each run and throws InvalidArgument "<op>: <message>: condition ... did not hold element-wise at K of N elements,
// the first at index [i, j] (x = .., y = ..); x = f32[..] [first values], y = ..." on failure.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/detail/elementwise.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/debugging.h"

namespace tl::detail {
namespace {

/// Element k of t as TensorFlow prints it in an assertion: %g for floats, True/False for bools.
std::string element_str(const Tensor& t, std::int64_t k) {
  return visit_dtype(t.dtype(), [&](auto tag) -> std::string {
    using T = decltype(tag);
    const T value = t.data<T>()[k];
    if constexpr (std::is_same_v<T, bool>) return value ? "True" : "False";
    else if constexpr (std::is_same_v<T, float>) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
      return text;
    } else {
      return std::to_string(value);
    }
  });
}

/// "f32[2,3] [1 2 3 ...]": the meta and the first `summarize` elements (all when summarize < 0).
std::string summary(const Tensor& t, std::int64_t summarize) {
  const std::int64_t n = t.num_elements();
  const std::int64_t shown = summarize < 0 ? n : std::min(n, summarize);
  std::string out = meta_str(t.meta()) + " [";
  for (std::int64_t k = 0; k < shown; ++k) {
    if (k > 0) out += ' ';
    out += element_str(t, k);
  }
  if (shown < n) out += shown > 0 ? " ..." : "...";
  return out + "]";
}

/// The multi-index of flat index `flat` in `shape`, as "[i, j]".
std::string index_str(const Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> index(shape.dims().size());
  for (std::size_t d = index.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string out = "[";
  for (std::size_t d = 0; d < index.size(); ++d) out += (d > 0 ? ", " : "") + std::to_string(index[d]);
  return out + "]";
}

/// The flat index in `in` of the element that broadcasting reads for flat index `flat` of `out`.
std::int64_t broadcast_source(const Shape& out, const Shape& in, std::int64_t flat) {
  std::int64_t source = 0, stride = 1;
  const int skip = out.rank() - in.rank();
  for (int d = out.rank() - 1; d >= skip; --d) {
    const std::int64_t i = flat % out[d], dim = in[d - skip];
    flat /= out[d];
    source += (dim == 1 ? 0 : i) * stride;
    stride *= dim;
  }
  return source;
}

/// 0 of an Eigen array expression's scalar type.
template <class E>
typename E::Scalar zero_of(const E&) {
  return typename E::Scalar(0);
}

/// "<op>: <message>: " (the message part left out when it is empty).
std::string prefix(const KernelContext& c) {
  const auto& message = c.attrs.get_or<std::string>("message", "");
  return c.op.name() + ": " + (message.empty() ? "" : message + ": ");
}

/// How many elements of the bool tensor `holds` are false, and the first false one's flat index (-1: none).
std::pair<std::int64_t, std::int64_t> failures(const Tensor& holds) {
  const bool* h = holds.data<bool>();
  const std::int64_t n = holds.num_elements();
  std::int64_t count = 0, first = -1;
  for (std::int64_t k = 0; k < n; ++k)
    if (!h[k]) {
      if (first < 0) first = k;
      ++count;
    }
  return {count, first};
}

/// Throws the failure of an elementwise assertion over x (and y, for binary ones) whose per-element outcome is
/// `holds` (x's and y's broadcast shape); returns when every element holds.
void fail_elementwise(const KernelContext& c, const char* condition, const Tensor& holds) {
  auto [count, first] = failures(holds);
  if (count == 0) return;
  const std::int64_t summarize = c.attrs.get_or<std::int64_t>("summarize", debugging::default_summarize);
  const Tensor& x = c.input(0);
  const bool binary = c.inputs.size() == 2;
  std::string at = "x = " + element_str(x, broadcast_source(holds.shape(), x.shape(), first));
  std::string values = "x = " + summary(x, summarize);
  if (binary) {
    const Tensor& y = c.input(1);
    at += ", y = " + element_str(y, broadcast_source(holds.shape(), y.shape(), first));
    values += ", y = " + summary(y, summarize);
  }
  throw InvalidArgument(cat(prefix(c), "condition ", condition, " did not hold element-wise at ", count, " of ",
                            holds.num_elements(), " element", holds.num_elements() == 1 ? "" : "s",
                            ", the first at index ", index_str(holds.shape(), first), " (", at, "); ", values));
}

/// The attributes every assertion takes: its message and how many values of each tensor its error shows.
OpDef& assertion(OpRegistry& registry, const char* name) {
  return registry.op(name)
      .outputs(0)
      .traits(trait::side_effects | trait::not_differentiable)
      .attr<std::string>("message")
      .attr<std::int64_t>("summarize");
}

/// Registers assert_<name>(x, y): `condition` (e.g. "x < y") must hold for every pair, with broadcasting.
template <class Fn>
void binary_assertion(OpRegistry& registry, const char* name, const char* condition, bool bool_ok, Fn fn) {
  assertion(registry, name)
      .doc(cat("checks ", condition, " elementwise (broadcasting) each time it runs; no outputs (tf.debugging.", name,
               ")"))
      .inputs(2)
      .same_dtype_inputs(0b11)
      .shape_fn([bool_ok](ShapeContext& c) {
        if (bool_ok) expect_dtype(c, 0, {DType::float32, DType::int32, DType::bool_});
        else expect_dtype(c, 0, {DType::float32, DType::int32});
        expect_same_dtypes(c);
        broadcast_shapes(c.op.name().c_str(), c.input(0).shape, c.input(1).shape);
      })
      .kernel([condition, fn](KernelContext& c) {
        const Tensor &x = c.input(0), &y = c.input(1);
        Tensor holds = Tensor::empty(DType::bool_, broadcast_shapes(c.op.name().c_str(), x.shape(), y.shape()));
        visit_dtype(x.dtype(), [&](auto tag) { binary_map<decltype(tag), bool>(x, y, holds, fn); });
        fail_elementwise(c, condition, holds);
      });
}

/// Registers assert_<name>(x): `condition` (e.g. "x > 0") must hold for every element.
template <class Fn>
void unary_assertion(OpRegistry& registry, const char* name, const char* condition, Fn fn) {
  assertion(registry, name)
      .doc(cat("checks ", condition, " elementwise each time it runs; no outputs (tf.debugging.", name, ")"))
      .inputs(1)
      .shape_fn([](ShapeContext& c) { expect_dtype(c, 0, {DType::float32, DType::int32}); })
      .kernel([condition, fn](KernelContext& c) {
        const Tensor& x = c.input(0);
        Tensor holds = Tensor::empty(DType::bool_, x.shape());
        visit_dtype(x.dtype(), [&](auto tag) { unary_map<decltype(tag), bool>(x, holds, fn); });
        fail_elementwise(c, condition, holds);
      });
}

}  // namespace

void register_assert_ops(OpRegistry& registry) {
  // Elementwise assertions: the values of every run must satisfy the condition.
  binary_assertion(registry, "assert_equal", "x == y", true, [](const auto& x, const auto& y) { return x == y; });
  binary_assertion(registry, "assert_less", "x < y", false, [](const auto& x, const auto& y) { return x < y; });
  binary_assertion(registry, "assert_less_equal", "x <= y", false, [](const auto& x, const auto& y) { return x <= y; });
  binary_assertion(registry, "assert_greater", "x > y", false, [](const auto& x, const auto& y) { return x > y; });
  binary_assertion(registry, "assert_greater_equal", "x >= y", false,
                   [](const auto& x, const auto& y) { return x >= y; });
  unary_assertion(registry, "assert_positive", "x > 0", [](const auto& x) { return x > zero_of(x); });
  unary_assertion(registry, "assert_non_negative", "x >= 0", [](const auto& x) { return x >= zero_of(x); });

  // assert_near(x, y): |x - y| <= atol + rtol * |y| elementwise, float32; a NaN on either side fails.
  assertion(registry, "assert_near")
      .doc("checks |x - y| <= atol + rtol * |y| elementwise (broadcasting) each time it runs; no outputs "
           "(tf.debugging.assert_near)")
      .inputs(2)
      .same_dtype_inputs(0b11)
      .attr<double>("rtol")
      .attr<double>("atol")
      .shape_fn([](ShapeContext& c) {
        expect_dtype(c, 0, {DType::float32});
        expect_same_dtypes(c);
        broadcast_shapes("assert_near", c.input(0).shape, c.input(1).shape);
      })
      .kernel([](KernelContext& c) {
        const auto rtol = static_cast<float>(c.attrs.get_or<double>("rtol", debugging::default_tolerance));
        const auto atol = static_cast<float>(c.attrs.get_or<double>("atol", debugging::default_tolerance));
        const Tensor &x = c.input(0), &y = c.input(1);
        Tensor holds = Tensor::empty(DType::bool_, broadcast_shapes("assert_near", x.shape(), y.shape()));
        binary_map<float, bool>(x, y, holds, [rtol, atol](const auto& a, const auto& b) {
          return (a - b).abs() <= atol + rtol * b.abs();
        });
        fail_elementwise(c, cat("|x - y| <= ", atol, " + ", rtol, " * |y|").c_str(), holds);
      });

  // assert_rank(x): x's rank must be `rank`. The rank is part of the meta, so the shape rule decides it: while
  // tracing (TensorFlow's static check) and, eagerly, before the kernel runs; the kernel has nothing left to check.
  assertion(registry, "assert_rank")
      .doc("checks that x has rank `rank`; decided from the meta, so a traced one fails at trace time "
           "(tf.debugging.assert_rank); no outputs")
      .inputs(1)
      .attr<std::int64_t>("rank", true)
      .shape_fn([](ShapeContext& c) {
        const std::int64_t rank = c.attrs.get<std::int64_t>("rank");
        const auto& message = c.attrs.get_or<std::string>("message", "");
        TL_CHECK(rank >= 0, InvalidArgument, "assert_rank: the rank must be >= 0, got ", rank);
        TL_CHECK(c.input(0).shape.rank() == rank, InvalidArgument, "assert_rank: ", message,
                 message.empty() ? "" : ": ", "x must have rank ", rank, ", got ", meta_str(c.input(0)), " (rank ",
                 c.input(0).shape.rank(), ")");
      })
      .kernel([](KernelContext&) {});

  // assert(condition, data...): every element of the bool condition must be true; the error shows the data.
  assertion(registry, "assert")
      .doc("checks that every element of the bool condition is true each time it runs; the error shows the message "
           "and the data tensors (tf.Assert); no outputs")
      .variadic_inputs(1)
      .shape_fn([](ShapeContext& c) { expect_dtype(c, 0, {DType::bool_}); })
      .kernel([](KernelContext& c) {
        auto [count, first] = failures(c.input(0));
        if (count == 0) return;
        const std::int64_t summarize = c.attrs.get_or<std::int64_t>("summarize", debugging::default_summarize);
        std::string data;
        for (std::size_t i = 1; i < c.inputs.size(); ++i)
          data += (i > 1 ? ", " : "; data: ") + summary(c.input(i), summarize);
        throw InvalidArgument(cat(prefix(c), "the condition ", meta_str(c.input(0).meta()), " is false at ", count,
                                  " of ", c.input(0).num_elements(), ", the first at index ",
                                  index_str(c.input(0).shape(), first), data));
      });
}

}  // namespace tl::detail

namespace tl::debugging {
namespace {

void run(const char* name, std::initializer_list<Tensor> inputs, Attrs attrs) {
  const OpDef& op = OpRegistry::global().get(name);
  for (const Tensor& t : inputs)
    TL_CHECK(t.defined(), InvalidArgument, name, ": an input is an empty Tensor handle");
  tl::execute(op, std::span<const Tensor>(inputs.begin(), inputs.size()), attrs, std::span<Tensor>());
}

Attrs with_message(const std::string& message, std::int64_t summarize) {
  return Attrs{{"message", message}, {"summarize", summarize}};
}

}  // namespace

void assert_equal(const Tensor& x, const Tensor& y, const std::string& message, std::int64_t summarize) {
  run("assert_equal", {x, y}, with_message(message, summarize));
}
void assert_less(const Tensor& x, const Tensor& y, const std::string& message, std::int64_t summarize) {
  run("assert_less", {x, y}, with_message(message, summarize));
}
void assert_less_equal(const Tensor& x, const Tensor& y, const std::string& message, std::int64_t summarize) {
  run("assert_less_equal", {x, y}, with_message(message, summarize));
}
void assert_greater(const Tensor& x, const Tensor& y, const std::string& message, std::int64_t summarize) {
  run("assert_greater", {x, y}, with_message(message, summarize));
}
void assert_greater_equal(const Tensor& x, const Tensor& y, const std::string& message, std::int64_t summarize) {
  run("assert_greater_equal", {x, y}, with_message(message, summarize));
}
void assert_positive(const Tensor& x, const std::string& message, std::int64_t summarize) {
  run("assert_positive", {x}, with_message(message, summarize));
}
void assert_non_negative(const Tensor& x, const std::string& message, std::int64_t summarize) {
  run("assert_non_negative", {x}, with_message(message, summarize));
}
void assert_near(const Tensor& x, const Tensor& y, float rtol, float atol, const std::string& message,
                 std::int64_t summarize) {
  Attrs attrs = with_message(message, summarize);
  attrs.set("rtol", static_cast<double>(rtol));
  attrs.set("atol", static_cast<double>(atol));
  run("assert_near", {x, y}, attrs);
}
void assert_rank(const Tensor& x, std::int64_t rank, const std::string& message) {
  run("assert_rank", {x}, Attrs{{"message", message}, {"rank", rank}});
}

void Assert(const Tensor& condition, const std::string& message, const std::vector<Tensor>& data,
            std::int64_t summarize) {
  std::vector<Tensor> inputs{condition};
  inputs.insert(inputs.end(), data.begin(), data.end());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TL_CHECK(inputs[i].defined(), InvalidArgument, "assert: ", i == 0 ? "the condition" : "a data tensor",
             " is an empty Tensor handle");
  tl::execute(OpRegistry::global().get("assert"), inputs, with_message(message, summarize), std::span<Tensor>());
}

}  // namespace tl::debugging
