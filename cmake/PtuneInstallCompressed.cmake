# Run at install time (install(CODE) in PtuneInstall.cmake sets the PTUNE_* variables): what
# Debian policy wants compressed is installed compressed with `gzip -9n` (no file name, no time
# stamp, so the package is reproducible):
#   - every man page `ptune __man` wrote into PTUNE_MAN_SOURCE, each `docs/NAME.md` it cites
#     rewritten to where the package installs that document (PTUNE_DOCDIR), as
#     MANDIR/man1/PAGE.1.gz;
#   - PTUNE_CHANGELOG (docs/CHANGELOG.md) as DOCDIR/changelog.gz.
find_program(PTUNE_GZIP gzip REQUIRED)
set(prefix "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
if(IS_ABSOLUTE "${PTUNE_DOCDIR}")
  set(docdir "${PTUNE_DOCDIR}")
else()
  set(docdir "${CMAKE_INSTALL_PREFIX}/${PTUNE_DOCDIR}")
endif()
if(IS_ABSOLUTE "${PTUNE_MANDIR}")
  set(man1 "$ENV{DESTDIR}${PTUNE_MANDIR}/man1")
else()
  set(man1 "${prefix}/${PTUNE_MANDIR}/man1")
endif()
if(IS_ABSOLUTE "${PTUNE_DOCDIR}")
  set(doc_dest "$ENV{DESTDIR}${PTUNE_DOCDIR}")
else()
  set(doc_dest "${prefix}/${PTUNE_DOCDIR}")
endif()

function(ptune_install_gzip text destination)
  get_filename_component(dir "${destination}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  string(REGEX REPLACE "\\.gz$" "" plain "${destination}")
  message(STATUS "Installing: ${destination}")
  file(WRITE "${plain}" "${text}")
  execute_process(COMMAND "${PTUNE_GZIP}" -9 -n -f "${plain}" RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "gzip -9n ${plain} failed")
  endif()
endfunction()

file(GLOB pages "${PTUNE_MAN_SOURCE}/*.1")
if(NOT pages)
  message(FATAL_ERROR "no man pages in ${PTUNE_MAN_SOURCE} (target ptune_man)")
endif()
foreach(page IN LISTS pages)
  get_filename_component(name "${page}" NAME)
  file(READ "${page}" text)
  # roff writes a hyphen as `\-`: docs/BENCH\-GATE.md.
  string(REGEX REPLACE "docs/([-A-Za-z0-9_.\\\\]+\\.md)" "${docdir}/\\1" text "${text}")
  ptune_install_gzip("${text}" "${man1}/${name}.gz")
endforeach()
file(READ "${PTUNE_CHANGELOG}" text)
ptune_install_gzip("${text}" "${doc_dest}/changelog.gz")
