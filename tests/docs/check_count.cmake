# Fails when the extractor found another number of cpp runnable blocks than tests/docs/CMakeLists.txt expects.
#   cmake -DFOUND=12 -DEXPECTED=12 -DBLOCKS="name;name;..." -P tests/docs/check_count.cmake
if(NOT FOUND EQUAL EXPECTED)
  string(REPLACE ";" " " names "${BLOCKS}")
  message(FATAL_ERROR "found ${FOUND} cpp runnable blocks in README.md and docs/ (${names}); "
                      "expected_block_count in tests/docs/CMakeLists.txt says ${EXPECTED}")
endif()
message("${FOUND} cpp runnable blocks, as expected")
