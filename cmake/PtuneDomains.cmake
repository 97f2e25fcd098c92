# The domain libraries of ptune::core and the borders between them (docs/ARCHITECTURE.md).
#
# ptune_domain(NAME [DEPENDS d...]) makes the object library ptune_domain_NAME from
# src/NAME/**.cpp. It compiles against the include view of its own public headers and those of
# the domains it declares (build/include-views/<d>/ptune/<d> → include/ptune/<d>), never the
# whole include/ tree, so a public header of an undeclared domain is not found. A domain may
# only depend on domains declared above it: the table cannot hold a cycle.
# ptune_check_borders() adds the build step that also rejects includes the views cannot stop
# (a relative "../<other>/x.hpp", an undeclared ptune/<d>/ include reached transitively).

set_property(GLOBAL PROPERTY PTUNE_DOMAINS "")

function(ptune_domain name)
  cmake_parse_arguments(ARG "" "" "DEPENDS" ${ARGN})
  get_property(known GLOBAL PROPERTY PTUNE_DOMAINS)
  foreach(dep IN LISTS ARG_DEPENDS)
    if(NOT dep IN_LIST known)
      message(FATAL_ERROR "domain '${name}' depends on '${dep}', which is not declared above it "
                          "(domains are declared in dependency order, so no cycle can exist)")
    endif()
  endforeach()
  if(known STREQUAL "" AND ARG_DEPENDS)
    message(FATAL_ERROR "the base layer '${name}' must not depend on a domain")
  endif()

  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  list(FILTER sources EXCLUDE REGEX "_test\\.cpp$")
  if(NOT sources)
    message(FATAL_ERROR "domain '${name}' has no sources in src/${name}/")
  endif()
  set(target ptune_domain_${name})
  add_library(${target} OBJECT ${sources})

  set(view ${PROJECT_BINARY_DIR}/include-views/${name})
  file(MAKE_DIRECTORY ${view}/ptune)
  if(EXISTS ${PROJECT_SOURCE_DIR}/include/ptune/${name} AND NOT EXISTS ${view}/ptune/${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/ptune/${name} ${view}/ptune/${name} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC ${view})
  target_link_libraries(${target} PUBLIC fmt::fmt spdlog::spdlog nlohmann_json::nlohmann_json)
  foreach(dep IN LISTS ARG_DEPENDS)
    target_link_libraries(${target} PUBLIC ptune_domain_${dep})
  endforeach()
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  ptune_set_warnings(${target})
  ptune_fuzz_coverage(${target})
  # The heavy header-only dependencies are parsed once for every domain.
  if(known STREQUAL "")
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> <fmt/format.h> <string>
                              <vector> <map> <optional> <string_view>)
  else()
    list(GET known 0 base)
    target_precompile_headers(${target} REUSE_FROM ptune_domain_${base})
  endif()

  set_property(GLOBAL APPEND PROPERTY PTUNE_DOMAINS ${name})
  set_property(GLOBAL PROPERTY PTUNE_DOMAIN_DEPENDS_${name} "${ARG_DEPENDS}")
endfunction()

# Adds every domain's objects to `target` (the one archive consumers link).
function(ptune_collect_domains target)
  get_property(domains GLOBAL PROPERTY PTUNE_DOMAINS)
  foreach(domain IN LISTS domains)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:ptune_domain_${domain}>)
  endforeach()
endfunction()

# The domain table as cmake/CheckBorders.cmake takes it: "core=|rules=core|render=core,rules".
function(ptune_domain_table out)
  get_property(domains GLOBAL PROPERTY PTUNE_DOMAINS)
  set(table "")
  foreach(domain IN LISTS domains)
    get_property(deps GLOBAL PROPERTY PTUNE_DOMAIN_DEPENDS_${domain})
    string(REPLACE ";" "," deps "${deps}")
    list(APPEND table "${domain}=${deps}")
  endforeach()
  string(REPLACE ";" "|" table "${table}")
  set(${out} "${table}" PARENT_SCOPE)
endfunction()

# A build step before every domain: fails on an include across a border (file:line named).
function(ptune_check_borders)
  ptune_domain_table(table)
  get_property(domains GLOBAL PROPERTY PTUNE_DOMAINS)
  set(files "")
  foreach(domain IN LISTS domains)
    file(GLOB_RECURSE domain_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${domain}/*.[ch]pp
         ${PROJECT_SOURCE_DIR}/include/ptune/${domain}/*.hpp)
    list(APPEND files ${domain_files})
  endforeach()
  set(stamp ${PROJECT_BINARY_DIR}/borders.stamp)
  add_custom_command(OUTPUT ${stamp}
                     COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} "-DDOMAINS=${table}"
                             -DSTAMP=${stamp} -P ${PROJECT_SOURCE_DIR}/cmake/CheckBorders.cmake
                     DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/CheckBorders.cmake
                     COMMENT "Checking the includes between domains" VERBATIM)
  add_custom_target(ptune_borders DEPENDS ${stamp})
  foreach(domain IN LISTS domains)
    add_dependencies(ptune_domain_${domain} ptune_borders)
  endforeach()
endfunction()
