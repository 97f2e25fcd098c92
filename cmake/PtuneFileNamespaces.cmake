# Test and fuzz sources compile several to a translation unit in a unity build (tools/test), so
# each wraps its code in a namespace named after the file: two files' helpers may then share a
# name. A file without its namespace builds alone but may break CI's unity build only when the
# batches shift, so configuring fails at once, naming the file.
function(ptune_require_file_namespaces)
  foreach(source IN LISTS ARGN)
    get_filename_component(stem ${source} NAME_WE)
    file(STRINGS ${source} wrapper REGEX "^namespace ${stem} {$" LIMIT_COUNT 1)
    if(NOT wrapper)
      message(FATAL_ERROR "${source}: put the file's code (after its #include lines) in "
                          "`namespace ${stem} {` ... `}  // namespace ${stem}`, as every test "
                          "and fuzz source does (cmake/PtuneFileNamespaces.cmake says why)")
    endif()
  endforeach()
endfunction()
