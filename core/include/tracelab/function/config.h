// Process-wide switches of the tracing layer, as tf.config has them.
//
//   tl::config::run_functions_eagerly(true);   // every tl::function now runs its callable op by op
//   step(x, y);                                // host code and prints run on every call; nothing is traced
//   tl::config::run_functions_eagerly(false);  // back to tracing (the cache is as it was)
#pragma once

namespace tl::config {

/// tf.config.run_functions_eagerly: while true, calling a tl::function (or a tl::AnyFunction, which the JS
/// tl.function is) runs its callable eagerly on the call's own arguments — no trace, no cache look-up, no call
/// record, no retracing warning — so breakpoints, host-side prints and C++ control flow behave as in plain code.
/// A call must still fit the function's input signature. get_concrete_function still traces. For debugging: a
/// traced function runs many times faster. Process-wide; false by default.
void run_functions_eagerly(bool enabled) noexcept;
/// Whether tl::functions run eagerly (tf.config.functions_run_eagerly).
bool functions_run_eagerly() noexcept;

}  // namespace tl::config
