# What the install tests' scripts share: run(WHAT COMMAND...) runs a command, fails the test
# with its output when it fails, and keeps its output in last_output; expect(WHAT TEXT) fails
# the test unless last_output holds TEXT; expect_installed(PREFIX FILE...) fails it unless
# every FILE is under PREFIX.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect what text)
  string(FIND "${last_output}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected \"${text}\" in:\n${last_output}")
  endif()
endfunction()

function(expect_installed prefix)
  foreach(f ${ARGN})
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
endfunction()
