# STRATA_VERSION (major.minor.patch) from include/strata/version.hpp, the one place it is
# written; included before project() so that project(VERSION) takes it.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../include/strata/version.hpp _strata_version_lines
     REGEX "^#define STRATA_VERSION_(MAJOR|MINOR|PATCH) [0-9]+$")
set(STRATA_VERSION)
foreach(_strata_part MAJOR MINOR PATCH)
  if(NOT _strata_version_lines MATCHES "STRATA_VERSION_${_strata_part} ([0-9]+)")
    message(FATAL_ERROR "include/strata/version.hpp: no '#define STRATA_VERSION_${_strata_part} <number>' line")
  endif()
  list(APPEND STRATA_VERSION ${CMAKE_MATCH_1})
endforeach()
list(JOIN STRATA_VERSION "." STRATA_VERSION)
