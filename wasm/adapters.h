// Adapters between JavaScript values and the core: plain data in, plain data out, C++ errors turned into JS
// Errors (name = the C++ class, e.g. "ShapeError") instead of opaque WebAssembly exceptions.
//
//   runOp("matmul", [{dtype: "float32", shape: [2, 2], values: Float32Array}, ...], {transpose_b: true})
//     -> {dtype: "float32", shape: [2, 2], values: Float32Array}   (values copied out of WASM memory)
#pragma once

#include <emscripten/val.h>
#include <string>

namespace tl::wasm {

/// The core's version string.
std::string version();
/// Names of all registered ops, in registry order.
emscripten::val op_names();
/// Runs one registry op on plain-data tensors; attrs are converted by the op's declared attribute types.
emscripten::val run_op(const std::string& name, const emscripten::val& inputs, const emscripten::val& attrs);

}  // namespace tl::wasm
