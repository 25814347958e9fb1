# ctest driver: configures the whole project (tests and examples on, CUDA on
# AUTO) with nvcc out of reach and zlib disabled, and checks that CUDA and the
# zlib component are reported off and the CUDA language was never enabled:
# neither is needed unless found or asked for.
#   cmake -DTD_SOURCE_DIR=... -DWORK_DIR=... [-DCXX=...] [-DGENERATOR=...] -P configure_without_nvcc_zlib.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
string(REPLACE ":" ";" path_dirs "$ENV{PATH}")
list(FILTER path_dirs EXCLUDE REGEX "cuda")
string(REPLACE ";" ":" path_no_cuda "${path_dirs}")
set(ENV{PATH} "${path_no_cuda}")
unset(ENV{CUDACXX})
set(args -S "${TD_SOURCE_DIR}" -B "${WORK_DIR}" -DCMAKE_CUDA_COMPILER=/nonexistent/nvcc -DTD_BUILD_CUDA=AUTO
    -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON -DTD_BUILD_TESTS=ON -DTD_BUILD_EXAMPLES=ON -DTD_BUILD_BENCHMARKS=OFF -DTD_BUILD_PYTHON=OFF)
if(GENERATOR)
  list(APPEND args -G "${GENERATOR}")
endif()
if(CXX)
  list(APPEND args -DCMAKE_CXX_COMPILER=${CXX})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(GLOB cuda_files "${WORK_DIR}/CMakeFiles/*/CMakeCUDACompiler.cmake")
if(NOT rc EQUAL 0 OR cuda_files OR NOT out MATCHES "CUDA backend disabled" OR NOT out MATCHES "component zlib off")
  message(FATAL_ERROR "configure without nvcc and zlib: rc ${rc}, CUDA files '${cuda_files}'\n${out}\n${err}")
endif()
message(STATUS "configured without nvcc and zlib; CUDA and zlib parts off")
