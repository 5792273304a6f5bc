// The built-in op set. The registry is filled on first use, in a fixed order, so every binary (native or
// WASM) sees the same ops in the same order; no static-initializer tricks that a linker could drop.
#include "ops/detail/register.h"

namespace tl {

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();  // never destroyed: ops outlive every static that might use them
    detail::register_math_ops(*r);
    detail::register_linalg_ops(*r);
    detail::register_reduce_ops(*r);
    detail::register_layout_ops(*r);
    detail::register_slice_join_ops(*r);
    detail::register_index_ops(*r);
    detail::register_cast_fill_ops(*r);
    detail::register_nn_ops(*r);
    detail::register_io_ops(*r);
    detail::register_fused_ops(*r);
    detail::register_random_ops(*r);
    detail::register_optimizer_ops(*r);
    detail::register_assert_ops(*r);
    return r;
  }();
  return *registry;
}

}  // namespace tl
