# td_link_kernels(<target> [ALL_TARGETS]) — for tensordiff's own programs (tests, examples,
# the Python module, benchmarks); not installed.
#
# Links <target> to every component this build has that sets the ABI namespace (Highway, zlib,
# yaml: core/config.hpp) and to one static library holding the default kernel's passes for that
# setting (metrics/instantiate.hpp, TD_SEPARATE_KERNELS=1). The passes take ~2.5 min of g++ at
# -O3 (every dtype pair, every Highway target, every standard); one library per build instead of
# one per program or component set keeps CI's two builds within budget.
#
# ALL_TARGETS: a second library, compiled (with its users) for every target Highway can attain
# here (HWY_COMPILE_ALL_ATTAINABLE): the kernel tests force them one by one. Every TU of a program
# must agree on the target list, or the linker keeps one of two different copies of an inline
# function (one definition rule) and a forced target may run another target's code.
#
# TD_TEST_HWY_DISABLED_TARGETS leaves targets out of that library and its users
# (HWY_DISABLED_TARGETS); CI's sanitizer build keeps AVX2 and up, which halves the kernel tests'
# build: "HWY_SCALAR|HWY_EMU128|HWY_SSSE3|HWY_SSE4" (those ran in the Release build), plus
# "HWY_AVX3|HWY_AVX3_DL" on a CPU without AVX-512 (code it could not run).
#
# TD_ONE_KERNELS_LIBRARY: every program links the ALL_TARGETS library, so a build compiles the
# passes once (CI's sanitizer build, whose two libraries would otherwise hold the same targets
# on an AVX2 machine). The libraries are hot code (td_hot_code, TensordiffFlags.cmake).
#
# Position-independent with hidden symbols, so the Python module links it too.
set(TD_TEST_HWY_DISABLED_TARGETS "" CACHE STRING
    "Highway targets the kernel tests leave out (HWY_DISABLED_TARGETS), e.g. HWY_SCALAR|HWY_SSE4")
option(TD_ONE_KERNELS_LIBRARY "Every program links the all-targets kernels library" OFF)
function(td_link_kernels target)
  cmake_parse_arguments(K "ALL_TARGETS" "" "" ${ARGN})
  set(lib td_kernels)
  set(target_list "")  # Highway's own default list
  if((K_ALL_TARGETS OR TD_ONE_KERNELS_LIBRARY) AND TARGET tensordiff::highway)
    set(lib td_kernels_all_targets)
    set(target_list HWY_COMPILE_ALL_ATTAINABLE)
    if(TD_TEST_HWY_DISABLED_TARGETS)
      list(APPEND target_list "HWY_DISABLED_TARGETS=(${TD_TEST_HWY_DISABLED_TARGETS})")
    endif()
  endif()
  if(NOT TARGET ${lib})
    set(components "")
    foreach(c highway zlib yaml)
      if(TARGET tensordiff::${c})
        list(APPEND components tensordiff::${c})
      endif()
    endforeach()
    add_library(${lib} STATIC)
    tensordiff_separate_kernels(${lib})
    set_target_properties(${lib} PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                            VISIBILITY_INLINES_HIDDEN ON)
    target_link_libraries(${lib} PUBLIC tensordiff::tensordiff td_build_flags ${components})
    target_compile_definitions(${lib} PUBLIC TD_SEPARATE_KERNELS=1 ${target_list})
    td_hot_code(${lib})
  endif()
  target_link_libraries(${target} PRIVATE ${lib})
endfunction()
