# Dependencies come from Debian packages (see scripts/setup.sh) and are found with find_package.
#
# Under emcmake, find_package needs CMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH (set by the wasm preset) to see
# /usr. Eigen's target adds -isystem /usr/include/eigen3, which is harmless. The nlohmann_json and doctest
# targets add -isystem /usr/include, which makes em++ pick up glibc headers and break; for WASM we therefore
# use a folder holding links to just those two libraries.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(nlohmann_json 3.10 REQUIRED)
if(TRACELAB_BUILD_TESTS)
  find_package(doctest 2.4 REQUIRED)
endif()

add_library(tracelab_eigen INTERFACE)
target_link_libraries(tracelab_eigen INTERFACE Eigen3::Eigen)
target_compile_definitions(tracelab_eigen INTERFACE EIGEN_NO_DEBUG)

add_library(tracelab_json INTERFACE)
add_library(tracelab_doctest INTERFACE)
if(EMSCRIPTEN)
  set(tracelab_sysdeps ${CMAKE_BINARY_DIR}/sysdeps/include)
  file(MAKE_DIRECTORY ${tracelab_sysdeps})
  get_target_property(json_includes nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
  list(GET json_includes 0 json_root)
  file(CREATE_LINK ${json_root}/nlohmann ${tracelab_sysdeps}/nlohmann SYMBOLIC)
  target_include_directories(tracelab_json SYSTEM INTERFACE ${tracelab_sysdeps})
  if(TRACELAB_BUILD_TESTS)
    get_target_property(doctest_includes doctest::doctest INTERFACE_INCLUDE_DIRECTORIES)
    list(GET doctest_includes 0 doctest_root)
    file(CREATE_LINK ${doctest_root}/doctest ${tracelab_sysdeps}/doctest SYMBOLIC)
    target_include_directories(tracelab_doctest SYSTEM INTERFACE ${tracelab_sysdeps})
  endif()

  # Exceptions must be on (em++ ignores them by default) so errors are typed C++ exceptions in both builds.
  # "wasm" = native WebAssembly exception handling (default); "js" = Emscripten's JS-based catching.
  # scripts/measure_exception_modes.sh compares the two; docs/building.md has the figures.
  set(TRACELAB_WASM_EXCEPTIONS wasm CACHE STRING "WASM exception mode: wasm or js")
  set_property(CACHE TRACELAB_WASM_EXCEPTIONS PROPERTY STRINGS wasm js)
  if(TRACELAB_WASM_EXCEPTIONS STREQUAL "js")
    set(exception_flags -sDISABLE_EXCEPTION_CATCHING=0)
  else()
    set(exception_flags -fwasm-exceptions)
  endif()
  # SIMD roughly halves Eigen's matmul time; bulk memory makes our memcpy/memset calls memory.copy/memory.fill
  # instructions (Emscripten 3.1.6's libc memcpy calls out to JavaScript for copies of 512 bytes and more).
  # Node 20 and current Chromium run both.
  set(TRACELAB_WASM_FLAGS ${exception_flags} -msimd128 -mbulk-memory)
  set(TRACELAB_WASM_LINK_FLAGS -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB)
  # Link-time optimization of the core and the bridge: their objects are compiled to LLVM bitcode (-flto=thin) and
  # wasm-ld optimizes them together when it links an executable, inlining across files (an eager op's funnel,
  # the tensor allocation, the kernel's call). The eager ragged step is ~9% faster. Only the compile step gets the
  # flag: em++ given -flto at link time asks for LTO builds of the system libraries, which Debian's frozen
  # Emscripten cache does not hold; bitcode objects in a plain link are optimized all the same.
  option(TRACELAB_WASM_LTO "Compile the WASM core and bridge for link-time optimization (-flto=thin)" ON)
  set(TRACELAB_WASM_LTO_FLAGS "")
  if(TRACELAB_WASM_LTO)
    set(TRACELAB_WASM_LTO_FLAGS -flto=thin)
    # ThinLTO's cache: a relink after one file changed compiles again only the modules that changed or import
    # from it.
    list(APPEND TRACELAB_WASM_LINK_FLAGS -Wl,--thinlto-cache-dir=${CMAKE_BINARY_DIR}/thinlto-cache)
  endif()
  # Layers compiled ahead to optimized WebAssembly, outside LTO: the ops layer holds every kernel, and LLVM 14's
  # ThinLTO back end in wasm-ld does not SLP-vectorize, so Eigen's GEMM micro-kernel (which only the SLP vectorizer
  # turns into SIMD when Eigen has no vector path of its own, as for WebAssembly) ran scalar through it: a 128x784 by
  # 784x512 matmul 13-14 ms against 4.7-5.0 ms compiled ahead (docs/building.md). Calls into the layer's public
  # functions then cross files unoptimized; the eager ragged step is no slower for it (docs/performance.md).
  set(TRACELAB_WASM_AHEAD_LAYERS ops)
else()
  target_link_libraries(tracelab_json INTERFACE nlohmann_json::nlohmann_json)
  if(TRACELAB_BUILD_TESTS)
    target_link_libraries(tracelab_doctest INTERFACE doctest::doctest)
  endif()
endif()
