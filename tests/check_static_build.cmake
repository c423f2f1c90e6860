# Configures and builds the CLI with a static libportacl in WORK_DIR, then checks that its bench
# cases registered themselves (check_bench_list.cmake).
# cmake -DSOURCE_DIR=... -DWORK_DIR=... -DNAMES=a,b,c -P check_static_build.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}" -DBUILD_SHARED_LIBS=OFF
                        -DPORTACL_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the static build failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}" --target portacl_cli RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the static CLI failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -DCLI=${WORK_DIR}/portacl -DNAMES=${NAMES}
                        -P "${CMAKE_CURRENT_LIST_DIR}/check_bench_list.cmake" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the static CLI does not list every bench case")
endif()
