# Runs one doc block: `PROGRAM NAME` in WORK_DIR (made empty first, for the files a block writes). It must exit 0
# and, when EXPECTED names a file (the doc's "text output" block), print exactly that; trailing whitespace of the
# whole output is ignored. On a mismatch it prints `diff -u expected actual`.
#
#   cmake -DPROGRAM=doc_blocks -DNAME=tracing_12 -DEXPECTED=blocks/tracing_12.expected -DWHERE=docs/tracing.md:12
#         -DWORK_DIR=run/tracing_12 -P tests/docs/run_block.cmake
foreach(variable PROGRAM NAME WHERE WORK_DIR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "run_block: -D${variable}=... is missing")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${PROGRAM} ${NAME} WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE code OUTPUT_VARIABLE actual ERROR_VARIABLE errors)
if(errors)
  message("${errors}")
endif()
if(NOT code STREQUAL "0")
  message("${actual}")
  message(FATAL_ERROR "${WHERE}: the block exited with ${code}, expected 0")
endif()
if(NOT EXPECTED)
  message("${actual}")
  return()
endif()

file(READ ${EXPECTED} expected)
string(REGEX REPLACE "[ \t\r\n]+$" "" expected "${expected}")
string(REGEX REPLACE "[ \t\r\n]+$" "" actual "${actual}")
if(actual STREQUAL expected)
  message("${actual}")
  return()
endif()
file(WRITE ${WORK_DIR}/expected.txt "${expected}\n")
file(WRITE ${WORK_DIR}/actual.txt "${actual}\n")
find_program(DIFF diff)
if(DIFF)
  execute_process(COMMAND ${DIFF} -u --label "expected (${WHERE})" --label "actual (doc_blocks ${NAME})"
                          expected.txt actual.txt
                  WORKING_DIRECTORY ${WORK_DIR} OUTPUT_VARIABLE difference)
  message("${difference}")
else()
  message("expected:\n${expected}\nactual:\n${actual}")
endif()
message(FATAL_ERROR "${WHERE}: the output differs from the doc's text output block (- expected, + actual)")
