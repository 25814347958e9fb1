# The CMake package, twice from one description:
#  - installed (cmake --install): headers, tensordiffConfig.cmake, the version
#    file, and one targets file for the core and one per component;
#  - exported from the build tree: point tensordiff_DIR at the build folder to
#    use the headers of this source tree without installing.
# A component's targets file is loaded only when the consumer finds its
# dependency (tensordiffConfig.cmake.in).
include(CMakePackageConfigHelpers)
set(td_cmake_dir ${CMAKE_INSTALL_DATADIR}/cmake/tensordiff)
set(td_build_pkg_dir ${PROJECT_BINARY_DIR})
get_property(TD_COMPONENT_TABLE GLOBAL PROPERTY TD_COMPONENT_TABLE)

install(DIRECTORY include/tensordiff DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tensordiff EXPORT tensordiffTargets)
install(EXPORT tensordiffTargets NAMESPACE tensordiff:: DESTINATION ${td_cmake_dir})
export(EXPORT tensordiffTargets NAMESPACE tensordiff:: FILE ${td_build_pkg_dir}/tensordiffTargets.cmake)
foreach(c IN LISTS TD_COMPONENTS)
  install(TARGETS tensordiff_${c} EXPORT tensordiff-${c}-targets)
  install(EXPORT tensordiff-${c}-targets NAMESPACE tensordiff:: DESTINATION ${td_cmake_dir})
  export(EXPORT tensordiff-${c}-targets NAMESPACE tensordiff:: FILE ${td_build_pkg_dir}/tensordiff-${c}-targets.cmake)
endforeach()

write_basic_package_version_file(${td_build_pkg_dir}/tensordiffConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensordiffConfig.cmake.in
  ${td_build_pkg_dir}/tensordiffConfig.cmake INSTALL_DESTINATION ${td_build_pkg_dir} INSTALL_PREFIX ${td_build_pkg_dir})
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensordiffConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/install/tensordiffConfig.cmake INSTALL_DESTINATION ${td_cmake_dir})
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensordiffDependencyFixes.cmake
  ${td_build_pkg_dir}/tensordiffDependencyFixes.cmake COPYONLY)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensordiffSeparateKernels.cmake
  ${td_build_pkg_dir}/tensordiffSeparateKernels.cmake COPYONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/install/tensordiffConfig.cmake
  ${td_build_pkg_dir}/tensordiffConfigVersion.cmake
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensordiffDependencyFixes.cmake
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensordiffSeparateKernels.cmake DESTINATION ${td_cmake_dir})
