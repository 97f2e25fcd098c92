# Warnings every ptune target compiles with: the code base stays clean under these.
function(ptune_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 reports out-of-bounds and overlapping copies inside libstdc++'s own std::string code at
  # -O2 (GCC PRs 105329, 105651, 106199): false positives on plain push_back/append calls. Real
  # out-of-bounds accesses are what the ASan/UBSan build catches.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread
                           -Wno-restrict)
  endif()
  if(PTUNE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
