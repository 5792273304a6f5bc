# Runs a command and checks both its exit code and its output (stdout and stderr together), which ctest's
# PASS_REGULAR_EXPRESSION alone cannot: with it the exit code is ignored.
#
#   cmake -DEXIT=2 "-DOUTPUT=--steps must be in" -P tests/expect_run.cmake -- COMMAND [ARGS...]
#
# EXIT is the exit code the command must end with; OUTPUT is a regular expression its output must match. The
# output is printed either way, then each failed expectation on a line of its own; the script exits 1 on any.
if(NOT DEFINED EXIT OR NOT DEFINED OUTPUT)
  message(FATAL_ERROR "expect_run: usage: cmake -DEXIT=CODE -DOUTPUT=REGEX -P expect_run.cmake -- COMMAND [ARGS...]")
endif()

set(command "")
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "expect_run: no command after --")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")
set(failed "")
if(NOT "${code}" STREQUAL "${EXIT}")
  string(APPEND failed "expect_run: exit code ${code}, expected ${EXIT}\n")
endif()
if(NOT output MATCHES "${OUTPUT}")
  string(APPEND failed "expect_run: the output does not match \"${OUTPUT}\"\n")
endif()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
message("expect_run: exit code ${code} and the output as expected")
