# docs.004Formulas: makes docs/004-formulas.md again with `vmc figure 004-formulas` and fails
# where the page differs from the committed one, where a row's verdict is "different" without
# a reason, or where a row is "different, unexplained" and not in the list of known ones
# (tests/tools/004_formulas_unexplained.txt: the `vmc run` commands the page lists, one a
# line), so that a new unexplained difference fails.
#   cmake -DVMC=<vmc> -DPAGE=<docs/004-formulas.md> -DKNOWN=<list> -DOUT=<file> -P this
cmake_minimum_required(VERSION 3.25)  # the project's: if(IN_LIST)
execute_process(COMMAND ${VMC} figure 004-formulas OUTPUT_VARIABLE made
                ERROR_VARIABLE error RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "vmc figure 004-formulas failed (${status}): ${error}")
endif()
file(WRITE ${OUT} "${made}")

# Every verdict that says "different" names why (a reason, or "unexplained").
string(REGEX MATCHALL "\\| different \\|" bare "${made}")
list(LENGTH bare bare_count)
if(bare_count GREATER 0)
  message(FATAL_ERROR "${bare_count} rows of ${OUT} are different without a reason")
endif()

# The unexplained rows the page lists, against the known ones.
file(STRINGS ${KNOWN} known REGEX "^vmc run ")
string(REGEX MATCHALL "\n- `vmc run [^`]*`" listed "${made}")
string(REGEX MATCHALL "\\| different, unexplained \\|\n" rows "${made}")
list(LENGTH listed listed_count)
list(LENGTH rows row_count)
if(NOT listed_count EQUAL row_count)
  message(FATAL_ERROR "${row_count} unexplained rows in ${OUT}, ${listed_count} listed")
endif()
set(new "")
foreach(entry IN LISTS listed)
  string(REGEX REPLACE "^\n- `(.*)`$" "\\1" command "${entry}")
  if(NOT command IN_LIST known)
    string(APPEND new "\n  ${command}")
  endif()
endforeach()
if(new)
  message(FATAL_ERROR "rows different from 004's formula for a reason not named, and not in "
                      "${KNOWN}:${new}")
endif()

file(READ ${PAGE} committed)
if(NOT made STREQUAL committed)
  message(FATAL_ERROR "${PAGE} is not what vmc figure 004-formulas makes now (${OUT}); "
                      "compare them with diff, and write the page again with: "
                      "build/vmc figure 004-formulas > docs/004-formulas.md")
endif()
