# Work-arounds for dependencies' own CMake package files. Used by the build and
# installed beside tensordiffConfig.cmake, which runs it after finding the
# dependencies, so consumers get the same fixes.
include_guard(GLOBAL)

function(td_fix_dependency_targets)
  # Debian's xsimd 8.1.0 package links a target "xtl" that Debian does not
  # ship; with no such target CMake turns the name into "-lxtl" and every
  # program linking xsimd fails to link. xsimd needs xtl only for
  # XSIMD_ENABLE_XTL_COMPLEX, which tensordiff does not use: drop the link while
  # no xtl target exists (a project that finds xtl first keeps it).
  if(TARGET xsimd AND NOT TARGET xtl)
    get_target_property(links xsimd INTERFACE_LINK_LIBRARIES)
    if(links AND "xtl" IN_LIST links)
      list(REMOVE_ITEM links xtl)
      set_property(TARGET xsimd PROPERTY INTERFACE_LINK_LIBRARIES "${links}")
    endif()
  endif()
endfunction()
