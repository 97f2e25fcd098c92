# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS): removes the debug sections of the static
# archives staged for packaging (ptune-dev), keeping the symbols a link needs.
file(GLOB_RECURSE _ptune_archives "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.a")
foreach(_archive IN LISTS _ptune_archives)
  execute_process(COMMAND "${CPACK_PTUNE_STRIP}" --strip-debug "${_archive}" RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "strip --strip-debug ${_archive} failed")
  endif()
endforeach()
