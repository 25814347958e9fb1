# ctest driver: tensordiff used as a user would use it.
#   cmake -DMODE=<mode> -DTD_SOURCE_DIR=... -DWORK_DIR=... [-DCXX=...] [-DGENERATOR=...]
#         [-DCOMPONENTS=a;b] -P run_consumer.cmake
# Modes (each configures, builds and runs small consumer programs):
#   package         install, then find_package() without COMPONENTS, with COMPONENTS core,
#                   and with each component alone
#   build_tree      find_package() with tensordiff_DIR pointing at a build folder
#   relocated       install, move the prefix elsewhere, find_package() there
#   core_only       install, hide every optional dependency (CMAKE_IGNORE_PREFIX_PATH): the
#                   core alone works and reads no optional header; a missing REQUIRED
#                   component fails naming its Debian package, a missing optional one is reported
#   add_subdirectory  the source tree vendored into a user project
# The library is configured with nvcc hidden: nothing here may need CUDA.
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

set(gen_args "")
if(GENERATOR)
  set(gen_args -G "${GENERATOR}")
endif()
set(cxx_args "")
if(CXX)
  set(cxx_args -DCMAKE_CXX_COMPILER=${CXX})
endif()
# Programs build without optimisation: the point is that they configure, compile and link.
set(common_args ${gen_args} ${cxx_args} -DCMAKE_BUILD_TYPE=)
file(REMOVE_RECURSE "${WORK_DIR}")

# nvcc out of reach (PATH and the default location): the package must not need it.
string(REPLACE ":" ";" path_dirs "$ENV{PATH}")
list(FILTER path_dirs EXCLUDE REGEX "cuda")
string(REPLACE ";" ":" path_no_cuda "${path_dirs}")
set(ENV{PATH} "${path_no_cuda}")
set(no_cuda_args -DCMAKE_CUDA_COMPILER=/nonexistent/nvcc -DTD_BUILD_CUDA=AUTO)

# Configures the library alone (no tests, benchmarks, examples) into `dir`.
function(configure_library dir)
  run(${CMAKE_COMMAND} -S "${TD_SOURCE_DIR}" -B "${dir}" ${common_args} ${no_cuda_args} --no-warn-unused-cli
      -DTD_BUILD_TESTS=OFF -DTD_BUILD_BENCHMARKS=OFF -DTD_BUILD_EXAMPLES=OFF -DTD_BUILD_PYTHON=OFF -DTD_INSTALL=ON)
  file(GLOB cuda_files "${dir}/CMakeFiles/*/CMakeCUDACompiler.cmake")
  if(cuda_files)
    message(FATAL_ERROR "configuring the library alone enabled the CUDA language: ${cuda_files}")
  endif()
endfunction()

function(install_library prefix)
  configure_library("${WORK_DIR}/tensordiff-build")
  run(${CMAKE_COMMAND} --install "${WORK_DIR}/tensordiff-build" --prefix "${prefix}")
  foreach(f include/tensordiff/tensordiff.hpp include/tensordiff/metrics/crc32.hpp
            share/cmake/tensordiff/tensordiffConfig.cmake share/cmake/tensordiff/tensordiffConfigVersion.cmake)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "install is missing ${f}")
    endif()
  endforeach()
endfunction()

# Configures and builds tests/consumers/package for `cases`, runs every program it built.
function(package_consumer cases expected_components)
  set(build "${WORK_DIR}/consumer")
  # Lists go through an initial-cache file: on a command line their ';' would split the argument.
  file(WRITE "${WORK_DIR}/consumer-init.cmake"
       "set(TD_CONSUMER_CASES \"${cases}\" CACHE STRING \"\")\n"
       "set(TD_EXPECTED_COMPONENTS \"${expected_components}\" CACHE STRING \"\")\n"
       "set(TD_KNOWN_COMPONENTS \"${KNOWN_COMPONENTS}\" CACHE STRING \"\")\n")
  run(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/package" -B "${build}" ${common_args} ${ARGN}
      -C "${WORK_DIR}/consumer-init.cmake" -DTD_EXPECTED_VERSION=${VERSION}
      -DTD_DEFLATED_NPZ=${TD_SOURCE_DIR}/tests/data/npz/named_deflate.npz)
  set(configure_output "${last_output}" PARENT_SCOPE)
  run(${CMAKE_COMMAND} --build "${build}" --parallel 2)
  set(build_output "${last_output}" PARENT_SCOPE)
  set(programs ${cases})
  if("highway" IN_LIST cases)
    list(APPEND programs highway_separate)  # built in the highway case's folder
  endif()
  foreach(c IN LISTS programs)
    string(REGEX REPLACE "_separate$" "" folder ${c})
    find_program(exe consumer_${c} PATHS "${build}/case_${folder}" NO_DEFAULT_PATH NO_CACHE REQUIRED)
    run("${exe}")
    message(STATUS "consumer_${c}: ${last_output}")
    unset(exe)
  endforeach()
endfunction()

if(MODE STREQUAL "package")
  set(prefix "${WORK_DIR}/prefix")
  install_library("${prefix}")
  package_consumer("all;core;${COMPONENTS}" "${COMPONENTS}" -DCMAKE_PREFIX_PATH=${prefix})

elseif(MODE STREQUAL "build_tree")
  configure_library("${WORK_DIR}/tensordiff-build")
  package_consumer("all" "${COMPONENTS}" -Dtensordiff_DIR=${WORK_DIR}/tensordiff-build)

elseif(MODE STREQUAL "relocated")
  install_library("${WORK_DIR}/original-prefix")
  file(MAKE_DIRECTORY "${WORK_DIR}/elsewhere")
  file(RENAME "${WORK_DIR}/original-prefix" "${WORK_DIR}/elsewhere/moved-prefix")
  file(GLOB_RECURSE cmake_files "${WORK_DIR}/elsewhere/moved-prefix/*.cmake")
  foreach(f IN LISTS cmake_files)
    file(READ "${f}" text)
    if(text MATCHES "original-prefix")
      message(FATAL_ERROR "${f} names the install prefix it was installed to: the package is not relocatable")
    endif()
  endforeach()
  package_consumer("all" "${COMPONENTS}" -DCMAKE_PREFIX_PATH=${WORK_DIR}/elsewhere/moved-prefix)

elseif(MODE STREQUAL "core_only")
  set(prefix "${WORK_DIR}/prefix")
  install_library("${prefix}")
  # TD_HIDE_SYSTEM: the projects ignore /usr, /usr/local and / (where Debian puts every
  # optional dependency) when they look for packages; tensordiff's prefix is elsewhere.
  set(hide -DTD_HIDE_SYSTEM=ON -DCMAKE_PREFIX_PATH=${prefix})
  package_consumer("all" "" ${hide} -DTD_UMBRELLA=ON)
  foreach(dep hwy/ eigen3/ xsimd/ nlohmann/ yaml-cpp/ zlib.h gtest/ gmock/)
    if(build_output MATCHES "\\.+ [^\n]*${dep}")
      message(FATAL_ERROR "the core consumer read an optional dependency's header (${dep}):\n${build_output}")
    endif()
  endforeach()
  if(NOT build_output MATCHES "tensordiff/tensordiff.hpp")
    message(FATAL_ERROR "expected the compiler's include list (-H) in the build output:\n${build_output}")
  endif()
  # A REQUIRED component whose dependency is missing: the configure fails and names the Debian package.
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/missing" -B "${WORK_DIR}/missing-required"
                  ${common_args} ${hide} "-DTD_FIND_ARGS=REQUIRED COMPONENTS highway"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "component highway: needs the CMake package hwy: install the Debian package libhwy-dev")
    message(FATAL_ERROR "a missing REQUIRED component should fail naming libhwy-dev (rc ${rc}):\n${out}\n${err}")
  endif()
  # An optional one: reported, and the configure goes on.
  run(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/missing" -B "${WORK_DIR}/missing-optional"
      ${common_args} ${hide} "-DTD_FIND_ARGS=OPTIONAL_COMPONENTS yaml")
  if(NOT last_output MATCHES "optional component yaml not available: needs the CMake package yaml-cpp: install the Debian package libyaml-cpp-dev"
     OR NOT last_output MATCHES "tensordiff_FOUND=1")
    message(FATAL_ERROR "a missing optional component should be reported:\n${last_output}")
  endif()

elseif(MODE STREQUAL "add_subdirectory")
  run(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/add_subdirectory" -B "${WORK_DIR}/consumer" ${common_args}
      -DTENSORDIFF_SOURCE_DIR=${TD_SOURCE_DIR})
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer" --parallel 2)
  find_program(exe consumer PATHS "${WORK_DIR}/consumer" NO_DEFAULT_PATH NO_CACHE REQUIRED)
  run("${exe}")
  # cos = 32 / sqrt(30 * 34.25)
  if(NOT last_output MATCHES "cosine 0\\.998295")
    message(FATAL_ERROR "unexpected consumer output: ${last_output}")
  endif()
  message(STATUS "add_subdirectory consumer: ${last_output}")

else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
