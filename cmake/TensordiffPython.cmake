# The Python module `import tensordiff` (python/): pybind11 bindings over the
# headers. TD_BUILD_PYTHON defaults to ON when pybind11 (Debian pybind11-dev)
# and the interpreter's headers (python3-dev) are found, for the main project
# only, and not under TD_SANITIZE (a sanitized extension cannot be loaded by a
# plain interpreter).
# A parent project that add_subdirectory()s tensordiff gets no Python lookup
# (no cache entries of ours) unless it asks for the module.
if((TD_MAIN_PROJECT AND NOT DEFINED TD_BUILD_PYTHON) OR TD_BUILD_PYTHON)
  # pybind11-dev, python3-numpy, python3-torch and python3-pytest belong to
  # Debian's interpreter; a pyenv/conda python3 earlier on PATH has none of
  # them. -DPython_EXECUTABLE=... picks another interpreter.
  if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    find_package(pybind11 2.6 CONFIG QUIET)  # after Python: pybind11 then uses FindPython's targets
  endif()
endif()
set(td_python_default OFF)
if(TD_MAIN_PROJECT AND pybind11_FOUND AND NOT TD_SANITIZE)
  set(td_python_default ON)
endif()
option(TD_BUILD_PYTHON "Build the Python module (needs pybind11-dev and python3-dev)" ${td_python_default})
if(TD_BUILD_PYTHON AND NOT pybind11_FOUND)
  message(FATAL_ERROR "TD_BUILD_PYTHON needs pybind11 and the Python headers (Debian packages pybind11-dev python3-dev)")
endif()
if(TD_BUILD_PYTHON)
  message(STATUS "tensordiff: Python module on (${Python_EXECUTABLE}, pybind11 ${pybind11_VERSION})")
else()
  message(STATUS "tensordiff: Python module off")
endif()
