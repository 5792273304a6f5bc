# Builds and runs tests/install_package/main.cpp as a separate project, in the way MODE names:
#   install        installs the built core into a scratch prefix and uses it through find_package(tracelab CONFIG);
#   add_subdirectory  adds the source tree with add_subdirectory (the core is compiled inside the consumer's build).
# Run by ctest (native): install_package and subdirectory_package.
if(MODE STREQUAL "add_subdirectory")
  # The consumer's build folder is kept between runs, as a user's would be: after an edit of the core, only what
  # changed is compiled again (configure runs every time). A fresh clone starts from nothing.
  file(REMOVE ${WORK_DIR}/build/consumer)
  # The consumer's own copy of the core, at -O0 without debug info and with clang++ when there is one: clang's -O0
  # compiles the core's template-heavy files in about 60% of g++'s CPU time (g++ builds the core in the native
  # preset, clang in the asan preset). This test checks the add_subdirectory wiring, not optimized code.
  set(configure_args -DTRACELAB_SOURCE_DIR=${SOURCE_DIR} -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0)
  find_program(consumer_cxx clang++)
  if(consumer_cxx)
    list(APPEND configure_args -DCMAKE_CXX_COMPILER=${consumer_cxx})
  endif()
else()
  file(REMOVE_RECURSE ${WORK_DIR})
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "install failed: ${rc}")
  endif()
  foreach(path include/tracelab/tracelab.h lib/libtracelab.a lib/cmake/tracelab/tracelabConfig.cmake)
    if(NOT EXISTS ${WORK_DIR}/prefix/${path})
      message(FATAL_ERROR "install is missing ${path}")
    endif()
  endforeach()
  set(configure_args -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install_package -B ${WORK_DIR}/build -G Ninja
                        ${configure_args} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer project (${MODE}) failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build --target consumer RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer project (${MODE}) failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message(STATUS "consumer (${MODE}) printed: ${out}")
foreach(expected
    "values=\\[\\[19\\. 22\\.\\] \\[43\\. 50\\.\\]\\]"
    "range tl.Tensor\\(shape=\\(4,\\), dtype=int32, values=\\[0 1 2 3\\]\\)"
    "inside \\[False False True True True False\\] outside \\[True True False False False True\\]"
    "traced \\[0\\. 0\\. 0\\. 3\\. 4\\. 5\\.\\] traces 1")
  if(rc OR NOT out MATCHES "${expected}")
    message(FATAL_ERROR "consumer (${MODE}) failed (${rc}) or did not print ${expected}: ${out}")
  endif()
endforeach()
