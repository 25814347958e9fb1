# The library targets. tensordiff::tensordiff needs only the C++17 standard
# library; each optional part is its own INTERFACE target that links its
# dependency, so a user pays only for what they include.
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

# td_optional_component(NAME PACKAGE TARGET [DEFINE])
#   tensordiff::NAME links tensordiff and TARGET when find_package(PACKAGE)
#   succeeds; DEFINE (e.g. TD_HAS_HIGHWAY=1) tells the headers it is there.
set(TD_COMPONENTS "")
function(td_optional_component name package target)
  find_package(${package} QUIET)
  if(NOT TARGET ${target})
    message(STATUS "tensordiff: ${name} disabled (${package} not found)")
    return()
  endif()
  add_library(tensordiff_${name} INTERFACE)
  add_library(tensordiff::${name} ALIAS tensordiff_${name})
  target_link_libraries(tensordiff_${name} INTERFACE tensordiff ${target})
  if(ARGN)
    target_compile_definitions(tensordiff_${name} INTERFACE ${ARGN})
  endif()
  set_target_properties(tensordiff_${name} PROPERTIES EXPORT_NAME ${name})
  set(TD_COMPONENTS ${TD_COMPONENTS} ${name} PARENT_SCOPE)
  set(TD_HAVE_${name} ON PARENT_SCOPE)
  message(STATUS "tensordiff: ${name} enabled")
endfunction()

td_optional_component(highway hwy hwy::hwy TD_HAS_HIGHWAY=1)
td_optional_component(xsimd xsimd xsimd TD_HAS_XSIMD=1)
# Debian's xsimd 8.1.0 package config links a target "xtl" it does not ship
# (xsimd is header-only and needs no xtl): drop the dangling link.
if(TARGET xsimd AND NOT TARGET xtl)
  set_property(TARGET xsimd PROPERTY INTERFACE_LINK_LIBRARIES "")
endif()
td_optional_component(eigen Eigen3 Eigen3::Eigen TD_HAS_EIGEN=1)
td_optional_component(json nlohmann_json nlohmann_json::nlohmann_json TD_HAS_JSON=1)
td_optional_component(yaml yaml-cpp yaml-cpp TD_HAS_YAML=1)
td_optional_component(gtest GTest GTest::gmock TD_HAS_GTEST=1)
td_optional_component(zlib ZLIB ZLIB::ZLIB TD_HAS_ZLIB=1)  # npz deflate (np.savez_compressed)
set(TD_COMPONENTS ${TD_COMPONENTS})
