#include "tracelab/function/config.h"

#include <atomic>

namespace tl::config {
namespace {
std::atomic<bool> eagerly{false};
}  // namespace

void run_functions_eagerly(bool enabled) noexcept { eagerly.store(enabled, std::memory_order_relaxed); }
bool functions_run_eagerly() noexcept { return eagerly.load(std::memory_order_relaxed); }

}  // namespace tl::config
