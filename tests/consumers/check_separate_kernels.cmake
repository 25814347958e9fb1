# ctest: CALLER (an object compiled with TD_SEPARATE_KERNELS) refers to the default kernel's
# passes, a standard's check pass and kernels::Highway's own pass without defining them;
# KERNELS (the library of metrics/instantiate.hpp) defines them.
#   cmake -DNM=nm -DCALLER=a.o -DKERNELS=libk.a -P check_separate_kernels.cmake
function(symbols file out)
  execute_process(COMMAND ${NM} -C ${file} RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} ${file} failed: ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
symbols(${CALLER} caller)
symbols(${KERNELS} kernels)
foreach(pass "detail::accumulate_range<[^\n]*kernels::Highway>" "summarize<[^\n]*kernels::Highway>"
             "detail::run_standard<[^\n]*standards::Torch>" "detail::hwy_accumulate<float, [^\n]*bfloat16>")
  if(NOT caller MATCHES " U [^\n]*${pass}")
    message(FATAL_ERROR "${CALLER} does not call ${pass}")
  endif()
  if(caller MATCHES " [TtWw] [^\n]*${pass}")
    message(FATAL_ERROR "${CALLER} compiles ${pass} itself: extern template did not take")
  endif()
  if(NOT kernels MATCHES " [TW] [^\n]*${pass}")
    message(FATAL_ERROR "${KERNELS} does not define ${pass}")
  endif()
endforeach()
message(STATUS "the caller calls the passes, the kernels library defines them")
