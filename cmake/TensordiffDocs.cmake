# The `docs` target: the Doxygen API reference of include/tensordiff (docs/api/Doxyfile.in),
# grouped by layer, with the README's sections as pages. Optional: without doxygen (Debian
# `doxygen`, and `graphviz` for diagrams: scripts/install-deps.sh doxygen graphviz) there is no target.
#   cmake --build BUILD --target docs      ->  BUILD/docs/html/index.html, BUILD/docs/warnings.log
# Undocumented public names are warnings, counted per folder after each run. TD_DOCS_WERROR=ON
# makes any warning fail the target, except in the folders of TD_DOCS_PENDING (whose
# documentation pass is still to come; empty the list once it is done).
find_package(Doxygen QUIET OPTIONAL_COMPONENTS dot)
if(NOT DOXYGEN_FOUND)
  message(STATUS "tensordiff: docs target disabled (doxygen not found)")
  return()
endif()
option(TD_DOCS_WERROR "docs target: fail on Doxygen warnings (see TD_DOCS_PENDING)" OFF)
set(TD_DOCS_PENDING ""
    CACHE STRING "include/tensordiff folders whose warnings do not fail TD_DOCS_WERROR yet")
set(TD_DOCS_OUT ${PROJECT_BINARY_DIR}/docs)
if(TARGET Doxygen::dot)
  set(TD_DOXYGEN_HAVE_DOT YES)
  get_filename_component(TD_DOXYGEN_DOT_PATH "${DOXYGEN_DOT_EXECUTABLE}" DIRECTORY)
else()
  set(TD_DOXYGEN_HAVE_DOT NO)
  set(TD_DOXYGEN_DOT_PATH "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in ${TD_DOCS_OUT}/Doxyfile @ONLY)
set(_td_docs_tool ${PROJECT_SOURCE_DIR}/docs/api/docs_tool.cmake)
add_custom_target(docs
  COMMAND ${CMAKE_COMMAND} -DMODE=pages -DSOURCE=${PROJECT_SOURCE_DIR} -DOUT=${TD_DOCS_OUT} -P ${_td_docs_tool}
  COMMAND Doxygen::doxygen ${TD_DOCS_OUT}/Doxyfile
  COMMAND ${CMAKE_COMMAND} -DMODE=check -DSOURCE=${PROJECT_SOURCE_DIR} -DOUT=${TD_DOCS_OUT} -DWERROR=${TD_DOCS_WERROR}
          "-DPENDING=${TD_DOCS_PENDING}" -P ${_td_docs_tool}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "Doxygen API reference -> ${TD_DOCS_OUT}/html/index.html"
  VERBATIM)
