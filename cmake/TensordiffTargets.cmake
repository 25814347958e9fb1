# The library targets. tensordiff::tensordiff needs only the C++17 standard
# library; each optional part is a component: its own INTERFACE target that
# links its dependency, so a user pays only for what they include.
# Before the targets: $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}> below needs it.
include(GNUInstallDirs)
add_library(tensordiff INTERFACE)
add_library(tensordiff::tensordiff ALIAS tensordiff)
target_include_directories(tensordiff INTERFACE
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(tensordiff INTERFACE cxx_std_17)
find_package(Threads REQUIRED)
target_link_libraries(tensordiff INTERFACE Threads::Threads)
set_target_properties(tensordiff PROPERTIES EXPORT_NAME tensordiff)

include(${CMAKE_CURRENT_LIST_DIR}/tensordiffDependencyFixes.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/tensordiffSeparateKernels.cmake)  # tensordiff_separate_kernels(), also for users

# td_component(NAME FIND <package> [<find_package args>...] TARGET <target>
#              DEBIAN <package> [DEFINE <macro>...])
#   tensordiff::NAME links tensordiff and TARGET when find_package(<package>
#   <args>) defines TARGET; DEFINE (e.g. TD_HAS_HIGHWAY=1) tells the headers.
#   The same line tells the package config (tensordiffConfig.cmake) how to
#   find the dependency again for a consumer and which Debian package to name
#   when it is missing. Adding a component is one td_component() line below.
set_property(GLOBAL PROPERTY TD_COMPONENTS "")
set_property(GLOBAL PROPERTY TD_COMPONENT_TABLE "")
function(td_component name)
  cmake_parse_arguments(C "" "TARGET;DEBIAN" "FIND;DEFINE" ${ARGN})
  if(NOT C_FIND OR NOT C_TARGET OR NOT C_DEBIAN)
    message(FATAL_ERROR "td_component(${name}): FIND, TARGET and DEBIAN are required")
  endif()
  string(REPLACE ";" " " find_args "${C_FIND}")
  set_property(GLOBAL APPEND_STRING PROPERTY TD_COMPONENT_TABLE
    "set(_td_find_${name} ${find_args})\nset(_td_target_${name} ${C_TARGET})\nset(_td_debian_${name} ${C_DEBIAN})\n")
  set_property(GLOBAL APPEND PROPERTY TD_KNOWN_COMPONENTS ${name})
  find_package(${C_FIND} QUIET)
  td_fix_dependency_targets()
  if(NOT TARGET ${C_TARGET})
    list(GET C_FIND 0 package)
    message(STATUS "tensordiff: component ${name} off (${package} not found; Debian package ${C_DEBIAN})")
    return()
  endif()
  add_library(tensordiff_${name} INTERFACE)
  add_library(tensordiff::${name} ALIAS tensordiff_${name})
  target_link_libraries(tensordiff_${name} INTERFACE tensordiff ${C_TARGET})
  if(C_DEFINE)
    target_compile_definitions(tensordiff_${name} INTERFACE ${C_DEFINE})
  endif()
  set_target_properties(tensordiff_${name} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY TD_COMPONENTS ${name})
  message(STATUS "tensordiff: component ${name} on")
endfunction()

td_component(highway FIND hwy TARGET hwy::hwy DEBIAN libhwy-dev DEFINE TD_HAS_HIGHWAY=1)
td_component(xsimd FIND xsimd TARGET xsimd DEBIAN libxsimd-dev DEFINE TD_HAS_XSIMD=1)
td_component(eigen FIND Eigen3 TARGET Eigen3::Eigen DEBIAN libeigen3-dev DEFINE TD_HAS_EIGEN=1)
td_component(json FIND nlohmann_json TARGET nlohmann_json::nlohmann_json DEBIAN nlohmann-json3-dev DEFINE TD_HAS_JSON=1)
td_component(yaml FIND yaml-cpp TARGET yaml-cpp DEBIAN libyaml-cpp-dev DEFINE TD_HAS_YAML=1)
td_component(gtest FIND GTest TARGET GTest::gmock DEBIAN libgmock-dev DEFINE TD_HAS_GTEST=1)
td_component(zlib FIND ZLIB TARGET ZLIB::ZLIB DEBIAN zlib1g-dev DEFINE TD_HAS_ZLIB=1)  # deflated .npz members
td_component(mpi FIND MPI COMPONENTS CXX TARGET MPI::MPI_CXX DEBIAN libopenmpi-dev DEFINE TD_HAS_MPI=1)  # distributed/mpi.hpp

get_property(TD_COMPONENTS GLOBAL PROPERTY TD_COMPONENTS)
get_property(TD_KNOWN_COMPONENTS GLOBAL PROPERTY TD_KNOWN_COMPONENTS)
