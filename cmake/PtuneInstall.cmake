# Installation, the find_package(ptune CONFIG) export, and the Debian package.
include(CMakePackageConfigHelpers)

install(TARGETS ptune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ptune)
install(TARGETS ptune_core EXPORT ptuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY include/ptune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT ptuneTargets NAMESPACE ptune:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptune
        COMPONENT dev)
configure_package_config_file(cmake/ptuneConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/ptuneConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptune)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ptuneConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ptuneConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ptuneConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptune COMPONENT dev)
install(FILES completions/ptune.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME ptune COMPONENT ptune)
install(FILES rules/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/rules COMPONENT ptune)

# The man page is generated from --help when help2man is present; nothing generated is committed.
find_program(HELP2MAN_EXECUTABLE help2man)
if(HELP2MAN_EXECUTABLE)
  add_custom_command(
    OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/ptune.1
    COMMAND ${HELP2MAN_EXECUTABLE} --no-info --name "performance-analysis toolkit for PyPTO kernels"
            --output ${CMAKE_CURRENT_BINARY_DIR}/ptune.1 $<TARGET_FILE:ptune>
    DEPENDS ptune VERBATIM)
  add_custom_target(ptune_man ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/ptune.1)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ptune.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT ptune)
endif()

set(CPACK_PACKAGE_NAME ptune)
set(CPACK_PACKAGE_VENDOR "ptune developers")
set(CPACK_PACKAGE_CONTACT "ptune developers <ptune@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Exact bookworm sonames of what the binary links; the -dev package adds the headers the
# exported CMake package needs to find its dependencies.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt9, libspdlog1.10, zlib1g, libsqlite3-0, libpq5, libstdc++6, libc6")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libfmt-dev, libspdlog-dev, nlohmann-json3-dev, zlib1g-dev")
include(CPack)
