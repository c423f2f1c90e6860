# Runs `portacl bench --list` and fails unless it names every bench case the sources register
# (NAMES: comma-separated, read from the PORTACL_REGISTER_BENCH lines at configure time).
# cmake -DCLI=<portacl> -DNAMES=a,b,c -P check_bench_list.cmake
execute_process(COMMAND "${CLI}" bench --list RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "portacl bench --list failed (${rc}): ${err}")
endif()
string(REPLACE "," ";" names "${NAMES}")
list(LENGTH names count)
if(count EQUAL 0)
  message(FATAL_ERROR "no bench case found in the sources")
endif()
foreach(name IN LISTS names)
  string(REGEX MATCH "(^|\n)${name} " found "${out}")
  if(NOT found)
    message(FATAL_ERROR "portacl bench --list does not name the case '${name}':\n${out}")
  endif()
endforeach()
message(STATUS "portacl bench --list names all ${count} cases")
