# Optional device backends for tensordiff's own tests and examples (included
# only when those are built: configuring the library alone needs no nvcc).
#
# CUDA: TD_BUILD_CUDA = AUTO (default: on when nvcc is found; off in sanitizer
# builds), ON (required) or OFF. Host compiler: the C++ compiler (g++ 12 in
# CI). CMAKE_CUDA_ARCHITECTURES defaults to 75 (SASS for sm_75 plus PTX that
# newer GPUs, H100 included, JIT-compile); pass e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
#
# Ascend: a real CANN toolkit is looked up under CANN_ROOT / ASCEND_TOOLKIT_HOME
# (CMake or environment variables): include/acl/acl.h and lib64/libascendcl.so.
# When found, tensordiff_npu (INTERFACE: tensordiff + ascendcl) is defined.
set(TD_BUILD_CUDA AUTO CACHE STRING "Build the CUDA test and example: AUTO, ON or OFF")
set_property(CACHE TD_BUILD_CUDA PROPERTY STRINGS AUTO ON OFF)

set(TD_HAVE_CUDA OFF)
if(TD_BUILD_CUDA STREQUAL "ON" OR (TD_BUILD_CUDA STREQUAL "AUTO" AND NOT TD_SANITIZE))
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
  endif()
  if(NOT CMAKE_CUDA_HOST_COMPILER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER} CACHE FILEPATH "Host compiler of nvcc")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 75 CACHE STRING "CUDA architectures of the test and example")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER AND NOT EXISTS "${CMAKE_CUDA_COMPILER}")
    find_program(td_cuda_compiler_path "${CMAKE_CUDA_COMPILER}" NO_CACHE)  # a bare name on PATH
    if(NOT td_cuda_compiler_path)
      message(STATUS "tensordiff: CMAKE_CUDA_COMPILER '${CMAKE_CUDA_COMPILER}' does not exist")
      set(CMAKE_CUDA_COMPILER "")
    endif()
  endif()
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND TARGET CUDA::cudart)
    set(TD_HAVE_CUDA ON)
    message(STATUS "tensordiff: CUDA backend test enabled (${CMAKE_CUDA_COMPILER}, archs ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(TD_BUILD_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TD_BUILD_CUDA=ON but no usable CUDA compiler/toolkit was found")
  else()
    message(STATUS "tensordiff: CUDA backend disabled (nvcc not found)")
  endif()
endif()

set(TD_HAVE_ACL OFF)
set(_td_cann_hints ${CANN_ROOT} ${ASCEND_TOOLKIT_HOME} $ENV{CANN_ROOT} $ENV{ASCEND_TOOLKIT_HOME})
if(_td_cann_hints)
  find_path(TD_ACL_INCLUDE_DIR acl/acl.h HINTS ${_td_cann_hints} PATH_SUFFIXES include NO_DEFAULT_PATH)
  find_library(TD_ACL_LIBRARY ascendcl HINTS ${_td_cann_hints} PATH_SUFFIXES lib64 lib NO_DEFAULT_PATH)
  if(TD_ACL_INCLUDE_DIR AND TD_ACL_LIBRARY)
    set(TD_HAVE_ACL ON)
    add_library(tensordiff_npu INTERFACE)
    target_include_directories(tensordiff_npu INTERFACE ${TD_ACL_INCLUDE_DIR})
    target_link_libraries(tensordiff_npu INTERFACE tensordiff ${TD_ACL_LIBRARY})
    message(STATUS "tensordiff: Ascend ACL found (${TD_ACL_LIBRARY})")
  endif()
endif()
