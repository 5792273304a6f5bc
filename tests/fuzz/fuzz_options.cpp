// Sanitizer defaults linked into every fuzz target, so running a target on a saved input by hand behaves as
// under scripts/fuzz.sh (environment variables ASAN_OPTIONS / UBSAN_OPTIONS still override them).
//
// One allocation may be at most 256 MB and a failed one returns null: a fuzzed file or attribute that asks for
// a huge tensor then takes the engine's own out-of-memory path (tl::OutOfMemory from Buffer::allocate), as on
// a small machine. An oversized `new` (a std::vector sized from input) is still reported by ASan: that size
// escaped the engine's checks. Leaks and every UBSan report are fatal.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=1:print_summary=1";
}

extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }
