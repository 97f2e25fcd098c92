# Installation, the find_package(ptune CONFIG) export, and the Debian packages:
#   ptune          the command, its man pages (gzip -9n), bash completion, docs, changelog and
#                  copyright (stripped)
#   ptune-dbgsym   the command's debug information (CPack's -dbgsym package, by build-id)
#   ptune-dev      headers, libptune_core.a (debug sections removed) and the CMake package
include(CMakePackageConfigHelpers)

# The project's own name for the package metadata, as LICENSE names it. Distributors building
# their own package set their address here.
set(PTUNE_MAINTAINER "The ptune developers <ptune@ptune.dev>"
    CACHE STRING "Maintainer field of the Debian packages")

install(TARGETS ptune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ptune)
install(TARGETS ptune_core EXPORT ptuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
# The archive is for linking: `cmake --install --strip` drops its DWARF (most of its size) as it
# strips the binary; CPack does the same in cmake/PtuneCPackStripArchive.cmake.
install(CODE "if(CMAKE_INSTALL_DO_STRIP)
  execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
                  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:ptune_core>\")
endif()" COMPONENT dev)
install(DIRECTORY include/ptune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT ptuneTargets NAMESPACE ptune:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptune
        COMPONENT dev)
configure_package_config_file(cmake/ptuneConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/ptuneConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptune)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ptuneConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ptuneConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ptuneConfigVersion.cmake cmake/FindLibdeflate.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptune COMPONENT dev)
install(FILES completions/ptune.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME ptune COMPONENT ptune)
install(FILES rules/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/rules COMPONENT ptune)

# debian/copyright (machine-readable format 1.0) from LICENSE: the MIT text is Debian's "Expat".
file(READ ${CMAKE_CURRENT_SOURCE_DIR}/LICENSE PTUNE_LICENSE_TEXT)
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ "${PTUNE_LICENSE_TEXT}")
set(PTUNE_COPYRIGHT_HOLDER "${CMAKE_MATCH_1}")
string(REGEX REPLACE "^MIT License\n\n[^\n]*\n\n" "" PTUNE_LICENSE_BODY "${PTUNE_LICENSE_TEXT}")
string(STRIP "${PTUNE_LICENSE_BODY}" PTUNE_LICENSE_BODY)
string(REGEX REPLACE "\n\n" "\n.\n" PTUNE_LICENSE_BODY "${PTUNE_LICENSE_BODY}")
string(REGEX REPLACE "\n" "\n " PTUNE_LICENSE_BODY " ${PTUNE_LICENSE_BODY}")
configure_file(cmake/copyright.in ${CMAKE_CURRENT_BINARY_DIR}/copyright @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT ptune)

# Man pages: ptune.1 and ptune-CMD.1 per subcommand, written by the binary itself from the App
# its --help comes from (`ptune __man DIR`, src/cli/introspect.cpp). Nothing generated is
# committed.
set(PTUNE_MAN_DIR ${CMAKE_CURRENT_BINARY_DIR}/man)
add_custom_command(OUTPUT ${PTUNE_MAN_DIR}/ptune.1
                   COMMAND ${CMAKE_COMMAND} -E rm -rf ${PTUNE_MAN_DIR}
                   COMMAND $<TARGET_FILE:ptune> __man ${PTUNE_MAN_DIR}
                   DEPENDS ptune VERBATIM)
add_custom_target(ptune_man ALL DEPENDS ${PTUNE_MAN_DIR}/ptune.1)
# Installed compressed (gzip -9n), each docs/NAME.md they cite pointing at the installed copy
# below; the changelog likewise (cmake/PtuneInstallCompressed.cmake).
install(CODE "set(PTUNE_MAN_SOURCE \"${PTUNE_MAN_DIR}\")
set(PTUNE_MANDIR \"${CMAKE_INSTALL_MANDIR}\")
set(PTUNE_DOCDIR \"${CMAKE_INSTALL_DOCDIR}\")
set(PTUNE_CHANGELOG \"${CMAKE_CURRENT_SOURCE_DIR}/docs/CHANGELOG.md\")
include(\"${CMAKE_CURRENT_SOURCE_DIR}/cmake/PtuneInstallCompressed.cmake\")" COMPONENT ptune)
# The user's documents (the man pages and --help cite them as docs/NAME.md); the developer's
# (ARCHITECTURE, DEVELOPING, PERFORMANCE) stay in the source tree.
install(FILES README.md docs/advise.md docs/bench-summary.md docs/BENCH-GATE.md
              docs/ci-results.md docs/HINTS-LINT.md docs/HISTORY.md docs/L3.md docs/mem-report.md
              docs/METRICS.md docs/pipe-trace.md docs/RELIABILITY.md docs/scope-stats.md
              docs/serving-trace.md docs/swimlane-analyze.md docs/swimlane-merge.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT ptune)

set(CPACK_PACKAGE_NAME ptune)
set(CPACK_PACKAGE_VENDOR "The ptune developers")
set(CPACK_PACKAGE_CONTACT "${PTUNE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PTUNE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ptune dev)
# CPack splits the binary itself: the debug sections (and the symbol table) go to ptune-dbgsym,
# found by the binary's build-id as apt's -dbgsym packages are, and the packaged binary is
# stripped (objcopy --strip-unneeded). CPACK_STRIP_FILES must stay off: CPack only splits files
# that are still unstripped when it looks at them.
set(CPACK_DEBIAN_PTUNE_DEBUGINFO_PACKAGE ON)
# ... and the archive of ptune-dev loses its DWARF (most of its size) before packaging.
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/cmake/PtuneCPackStripArchive.cmake)
set(CPACK_PTUNE_STRIP ${CMAKE_STRIP})
set(CPACK_DEBIAN_PTUNE_PACKAGE_NAME ptune)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME ptune-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_PTUNE_DESCRIPTION "${PROJECT_DESCRIPTION}")
set(CPACK_COMPONENT_DEV_DESCRIPTION "ptune::core library, headers and CMake package")
# Exact bookworm sonames of what the binary links; the -dev package adds the headers the
# exported CMake package needs to find its dependencies.
set(CPACK_DEBIAN_PTUNE_PACKAGE_DEPENDS "libfmt9, libspdlog1.10, zlib1g, libdeflate0, libsqlite3-0, libstdc++6, libc6")
# libpq is loaded only when a PostgreSQL history is opened (src/history/postgres_connection.cpp):
# every other command runs without it.
set(CPACK_DEBIAN_PTUNE_PACKAGE_RECOMMENDS "libpq5")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libfmt-dev, libspdlog-dev, nlohmann-json3-dev, zlib1g-dev, libdeflate-dev, libsqlite3-dev, libpq-dev")
include(CPack)
