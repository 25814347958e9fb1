# ctest driver: cmake -DMODE=find_package|add_subdirectory -DTD_SOURCE_DIR=...
#   -DWORK_DIR=... -DCONSUMER_DIR=... [-DPREFIX=...] [-DCXX=...] [-DGENERATOR=...] -P run_consumer.cmake
# Configures, builds and runs the consumer program and checks what it prints.
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(gen_args "")
if(GENERATOR)
  set(gen_args -G "${GENERATOR}")
endif()
set(cxx_args "")
if(CXX)
  set(cxx_args -DCMAKE_CXX_COMPILER=${CXX})
endif()
file(REMOVE_RECURSE "${WORK_DIR}")

if(MODE STREQUAL "find_package")
  # Install the library alone (no tests/benchmarks/examples) into a fresh prefix.
  set(lib_build "${WORK_DIR}/tensordiff-build")
  file(REMOVE_RECURSE "${PREFIX}")
  run(${CMAKE_COMMAND} -S "${TD_SOURCE_DIR}" -B "${lib_build}" ${gen_args} ${cxx_args} -DCMAKE_BUILD_TYPE=Release
      -DTD_BUILD_TESTS=OFF -DTD_BUILD_BENCHMARKS=OFF -DTD_BUILD_EXAMPLES=OFF -DTD_INSTALL=ON)
  run(${CMAKE_COMMAND} --install "${lib_build}" --prefix "${PREFIX}")
  foreach(f include/tensordiff/tensordiff.hpp include/tensordiff/metrics/crc32.hpp)
    if(NOT EXISTS "${PREFIX}/${f}")
      message(FATAL_ERROR "install is missing ${f}")
    endif()
  endforeach()
  run(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer" ${gen_args} ${cxx_args}
      -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release)
elseif(MODE STREQUAL "add_subdirectory")
  run(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer" ${gen_args} ${cxx_args}
      -DTENSORDIFF_SOURCE_DIR=${TD_SOURCE_DIR} -DCMAKE_BUILD_TYPE=Release)
else()
  message(FATAL_ERROR "MODE must be find_package or add_subdirectory")
endif()

run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
find_program(consumer_exe consumer PATHS "${WORK_DIR}/consumer" "${WORK_DIR}/consumer/bin" NO_DEFAULT_PATH REQUIRED)
run(${consumer_exe})
# cos = 32 / sqrt(30 * 34.25)
if(NOT last_output MATCHES "cosine 0\\.998295")
  message(FATAL_ERROR "unexpected consumer output: ${last_output}")
endif()
message(STATUS "${MODE} consumer: ${last_output}")
