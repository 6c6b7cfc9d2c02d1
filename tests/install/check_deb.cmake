# ctest -L install: makes the .deb (cpack -G DEB, from what is built) and checks it with dpkg-deb:
# it holds the libraries with their soname links, the tool, the headers and the CMake and
# pkg-config files under /usr, and its Depends name the Debian package of every shared library
# that Strata's libraries and the tool link -- found here independently of cpack, by
# resolving each NEEDED entry with ldd and asking dpkg -S which package owns the file.
#   cmake -DBUILD_DIR=<build> -DWORK=<scratch> -DSONAME=libstrata_engine.so.<x.y> -DVERSION=<x.y.z> -DLIBDIR=lib -DFILES="<f>;..." -P check_deb.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

function(literal text var)  # <var> = a regular expression matching `text` as it is
  string(REGEX REPLACE "([].[+*?()^$|\\])" "\\\\\\1" escaped "${text}")
  set(${var} "${escaped}" PARENT_SCOPE)
endfunction()

# owner(<path> <var>): the Debian package that owns the library at <path> (a soname link ldd
# printed). dpkg knows each file by the path its package ships it at: the link itself or the file
# it points to, under /lib or /usr/lib (merged /usr makes ldd print either).
function(owner path var)
  get_filename_component(dir ${path} DIRECTORY)
  file(REAL_PATH ${path} real)
  get_filename_component(name ${real} NAME)
  string(REGEX REPLACE "^/usr/" "/" bare ${dir})
  foreach(candidate ${path} ${dir}/${name} ${bare}/${name} /usr${bare}/${name})
    execute_process(COMMAND dpkg -S ${candidate} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
    if(rc EQUAL 0)
      string(REGEX REPLACE ":.*" "" package "${out}")
      set(${var} ${package} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no Debian package owns ${path} (${real})")
endfunction()

file(REMOVE_RECURSE ${WORK})
run(cpack -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK})
file(GLOB deb ${WORK}/strata_${VERSION}_*.deb)
if(NOT deb)
  message(FATAL_ERROR "cpack made no strata_${VERSION}_*.deb in ${WORK}")
endif()

run(dpkg-deb -c ${deb})
set(contents "${out}")
set(lib usr/${LIBDIR})
foreach(path ${lib}/libstrata_engine.so.${VERSION} "${lib}/${SONAME} -> libstrata_engine.so.${VERSION}"
        "${lib}/libstrata_engine.so -> ${SONAME}" ${lib}/libstrata_hub.so.${VERSION}
        ${lib}/libstrata_serve.so.${VERSION} ${lib}/libstrata_dist.so.${VERSION} usr/bin/strata
        usr/include/strata/strata.hpp usr/include/strata/version.hpp usr/include/strata/core/tensor.hpp
        ${lib}/cmake/Strata/StrataConfig.cmake ${lib}/cmake/Strata/StrataTargets.cmake
        ${lib}/pkgconfig/strata.pc ${lib}/pkgconfig/strata-dist.pc ${lib}/pkgconfig/strata-engine.pc)
  string(FIND "${contents}" "./${path}" at)
  if(at LESS 0)
    message(FATAL_ERROR "the .deb has no ./${path}:\n${contents}")
  endif()
endforeach()

run(dpkg-deb -f ${deb} Depends)
string(STRIP "${out}" depends)
message(STATUS "Depends: ${depends}")
set(expected nlohmann-json3-dev)  # the headers include nlohmann/json.hpp
foreach(file ${FILES})
  run(readelf -d ${file})
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[([^]]+)\\]" needed "${out}")
  run(ldd ${file})
  set(resolved "${out}")
  foreach(entry ${needed})
    string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" soname "${entry}")
    if(soname MATCHES "^libstrata" OR soname MATCHES "^ld-linux")
      continue()  # in this package / the loader, owned by libc6 through another path
    endif()
    literal(${soname} pattern)
    if(NOT resolved MATCHES "${pattern} => ([^ ]+)")
      message(FATAL_ERROR "ldd does not resolve ${soname} for ${file}")
    endif()
    owner(${CMAKE_MATCH_1} package)
    list(APPEND expected ${package})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES expected)
foreach(package ${expected})
  literal(${package} pattern)  # libstdc++6
  if(NOT depends MATCHES "(^|, )${pattern}( |,|$)")
    message(FATAL_ERROR "the .deb's Depends lack ${package}: ${depends}")
  endif()
endforeach()
message(STATUS "every linked library's package is in Depends: ${expected}")
