# Flags for tensordiff's own programs (tests, benchmarks, examples); the
# library targets carry no flags to their users.
add_library(td_build_flags INTERFACE)
if(TD_NATIVE)
  target_compile_options(td_build_flags INTERFACE -march=native)
else()
  target_compile_options(td_build_flags INTERFACE ${TD_ARCH_FLAGS})
endif()
target_compile_options(td_build_flags INTERFACE -Wall -Wextra)
# GCC 12's AVX-512 intrinsics use a self-initialised _mm512_undefined_pd(), and
# inlined into xsimd's min/max at -O3 every use warns "may be used
# uninitialized" (GCC bug 105593, fixed in GCC 13).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(td_build_flags INTERFACE -Wno-maybe-uninitialized)
endif()
if(TD_HWY_STATIC)
  target_compile_definitions(td_build_flags INTERFACE TD_HWY_DYNAMIC=0)
endif()
if(TD_SANITIZE)
  target_compile_options(td_build_flags INTERFACE -fsanitize=${TD_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(td_build_flags INTERFACE -fsanitize=${TD_SANITIZE})
endif()
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "" FORCE)
endif()
# td_hot_code(<target>): code the tests run hard (the kernels, the kernel tests, the CLI) gets
# TD_HOT_CODE_FLAGS after the build type's flags, e.g. -O1 in CI's sanitizer build, whose other
# code builds at -O0 (half the compile time; Highway's wrappers and the CLI's dump walks at -O0
# would run the kernel tests and the CLI's time-limited hostile cases several times slower).
set(TD_HOT_CODE_FLAGS "" CACHE STRING "Options for the code the tests run hard, e.g. -O1 where the rest builds at -O0")
function(td_hot_code target)
  target_compile_options(${target} PRIVATE ${TD_HOT_CODE_FLAGS})
endfunction()
include(TensordiffKernelsLibrary)  # td_link_kernels(): the passes compiled once per build
