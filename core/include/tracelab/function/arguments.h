// How a typed tl::function's arguments reach tl::AnyFunction: each Tensor, TensorSpec, Variable, number, bool or
// string becomes one AnyArg; a std::vector<Tensor> or a std::map<std::string, Tensor> argument flattens to its
// tensors, and its structure — the vector's length, the map's keys — joins the trace key (tl::ArgStructure), as
// TensorFlow's lists and dicts do.
//
//   auto f = tl::function([](const std::vector<tl::Tensor>& xs) { return xs[0] + xs[1]; });
//   f(std::vector<tl::Tensor>{a, b});      // key "([TensorSpec(...), TensorSpec(...)])"
//   f(std::vector<tl::Tensor>{a, b, c});   // another length: "argument structure changed ([*, *]) -> ([*, *, *])"
#pragma once

#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tracelab/function/any_function.h"

namespace tl::detail {

template <class A>
inline constexpr bool is_tensor_arg = std::is_same_v<std::decay_t<A>, Tensor> || std::is_same_v<std::decay_t<A>, TensorSpec>;
template <class A>
inline constexpr bool is_tensor_list = std::is_same_v<std::decay_t<A>, std::vector<Tensor>>;
template <class A>
inline constexpr bool is_tensor_dict = std::is_same_v<std::decay_t<A>, std::map<std::string, Tensor>>;
/// A vector or map of tensors: an argument of several leaves and a structure.
template <class A>
inline constexpr bool is_nested_arg = is_tensor_list<A> || is_tensor_dict<A>;

template <class>
inline constexpr bool unsupported_arg = false;

/// The type-erased form of one plain argument of a typed call.
template <class A>
AnyArg erase_arg(const A& arg) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor> || std::is_same_v<D, TensorSpec> || std::is_same_v<D, Variable> ||
                std::is_arithmetic_v<D>) {
    return AnyArg(arg);
  } else if constexpr (std::is_convertible_v<const A&, std::string_view>) {
    return AnyArg(std::string_view(arg));
  } else {
    static_assert(unsupported_arg<D>, "tl::function arguments are Tensors, TensorSpecs, Variables, numbers, bools, "
                                      "strings, and (in calls) std::vector<Tensor> or std::map<std::string, Tensor>");
  }
}

/// How many leaves an argument has: its size for a vector or map, else 1.
template <class A>
std::size_t leaf_count(const A& arg) {
  if constexpr (is_nested_arg<A>) return arg.size();
  else return 1;
}

/// Whether a map key prints bare (an identifier) in a structure and a path.
inline bool is_identifier(const std::string& key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0]))) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

/// Appends argument `arg`, named `path` ("args[0]", or its arg_names entry), to a call's leaves and structure:
/// a vector as "[*, *]" with paths "path[0]", ...; a map as "{a: *, b: *}" (sorted, as std::map keeps it and as
/// TensorFlow sorts dict keys) with paths "path.a", ...; anything else as one leaf.
template <class A>
void flatten_arg(const A& arg, const std::string& path, std::vector<AnyArg>& leaves, ArgStructure& structure) {
  auto leaf = [&](AnyArg value, std::string leaf_path) {
    structure.text += ArgStructure::kLeaf;
    leaves.push_back(std::move(value));
    structure.paths.push_back(std::move(leaf_path));
  };
  if constexpr (is_tensor_list<A>) {
    structure.text += '[';
    for (std::size_t k = 0; k < arg.size(); ++k) {
      if (k > 0) structure.text += ", ";
      leaf(arg[k], path + "[" + std::to_string(k) + "]");
    }
    structure.text += ']';
  } else if constexpr (is_tensor_dict<A>) {
    structure.text += '{';
    bool first = true;
    for (const auto& [key, tensor] : arg) {
      const bool bare = is_identifier(key);
      structure.text += (first ? "" : ", ") + (bare ? key : "\"" + key + "\"") + ": ";
      leaf(tensor, bare ? path + "." + key : path + "[\"" + key + "\"]");
      first = false;
    }
    structure.text += '}';
  } else {
    leaf(erase_arg(arg), path);
  }
}

}  // namespace tl::detail
