# Warnings every ptune target compiles with: the code base stays clean under these.
function(ptune_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(PTUNE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
