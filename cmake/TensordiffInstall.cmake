# cmake --install: headers, tensordiffConfig.cmake, version file, exported targets.
include(CMakePackageConfigHelpers)
install(DIRECTORY include/tensordiff DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(td_install_targets tensordiff)
foreach(c ${TD_COMPONENTS})
  list(APPEND td_install_targets tensordiff_${c})
endforeach()
install(TARGETS ${td_install_targets} EXPORT tensordiffTargets)
set(td_cmake_dir ${CMAKE_INSTALL_DATADIR}/cmake/tensordiff)
install(EXPORT tensordiffTargets NAMESPACE tensordiff:: DESTINATION ${td_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensordiffConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tensordiffConfig.cmake INSTALL_DESTINATION ${td_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tensordiffConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tensordiffConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/tensordiffConfigVersion.cmake DESTINATION ${td_cmake_dir})
