# ctest -L install: installs the built tree into a prefix inside the build folder (nothing is
# rebuilt), checks that the installed CMake and pkg-config files name no path of the source or
# build tree, runs the installed `strata` tool, then builds consumer/main.cpp against the prefix
# twice -- with find_package(Strata CONFIG) and with pkg-config -- and runs both programs, and
# compiles every installed header with pkg-config's flags alone.
#   cmake -DBUILD_DIR=<build> -DSOURCE_DIR=<source> -DWORK=<scratch> -DVERSION=<x.y.z> -DLIBDIR=lib
#         -DCXX=<compiler> -DGENERATOR=<generator> -P check_install.cmake
cmake_minimum_required(VERSION 3.25)
set(prefix ${WORK}/prefix)
set(expected "strata ${VERSION}: sum 134, grad 11 15 11 15")

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

# The last run's first line must be `expected`; its second, the CUDA device's state, must show
# that the installed libstrata_engine found the installed CUDA backend when one was built (WITH_CUDA).
function(expect_output what)
  string(STRIP "${out}" got)
  string(REPLACE "\n" ";" lines "${got}")
  list(GET lines 0 first)
  if(NOT first STREQUAL expected)
    message(FATAL_ERROR "${what} printed '${first}', expected '${expected}'")
  endif()
  list(GET lines 1 cuda)
  string(FIND "${cuda}" "did not load" not_loaded)
  if(WITH_CUDA AND NOT not_loaded EQUAL -1)
    message(FATAL_ERROR "${what}: the installed libstrata_engine did not find the installed CUDA backend: ${cuda}")
  elseif(NOT WITH_CUDA AND not_loaded EQUAL -1)
    message(FATAL_ERROR "${what}: without a CUDA backend built, expected it not to load: ${cuda}")
  endif()
  message(STATUS "${what}: ${got}")
endfunction()

file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

file(GLOB_RECURSE package_files ${prefix}/*.cmake ${prefix}/*.pc)
foreach(file ${package_files})
  file(READ ${file} text)
  foreach(tree ${SOURCE_DIR} ${BUILD_DIR})
    string(FIND "${text}" "${tree}" at)
    if(at GREATER_EQUAL 0)
      message(FATAL_ERROR "${file} names ${tree}: the installed tree would not work without it")
    endif()
  endforeach()
endforeach()

run(${prefix}/bin/strata --version)
string(STRIP "${out}" got)
if(NOT got STREQUAL "strata ${VERSION}")
  message(FATAL_ERROR "the installed strata --version printed '${got}'")
endif()

# find_package: the installed package, not the build tree (no package registry).
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK}/cmake -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DSTRATA_EXPECTED_VERSION=${VERSION})
file(STRINGS ${WORK}/cmake/CMakeCache.txt strata_dir REGEX "^Strata_DIR:")
if(NOT strata_dir MATCHES "${prefix}/")
  message(FATAL_ERROR "find_package took ${strata_dir}, not the package in ${prefix}")
endif()
run(${CMAKE_COMMAND} --build ${WORK}/cmake)
run(${WORK}/cmake/consumer)
expect_output("find_package(Strata CONFIG)")
run(${WORK}/cmake/consumer_engine)
expect_output("find_package(Strata CONFIG COMPONENTS engine)")

# pkg-config, as a Makefile would use it; the rpath stands for the user's LD_LIBRARY_PATH.
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run(pkg-config --modversion strata)
string(STRIP "${out}" got)
if(NOT got STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config --modversion strata printed '${got}', expected '${VERSION}'")
endif()
run(pkg-config --cflags --libs strata)
separate_arguments(flags UNIX_COMMAND "${out}")
run(pkg-config --variable=libdir strata)
string(STRIP "${out}" libdir)
file(MAKE_DIRECTORY ${WORK}/pkgconfig)
# Every installed header compiles with only what pkg-config gives: none needs a header of the
# source tree or of a private dependency.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/strata/*.hpp)
list(TRANSFORM headers REPLACE "(.+)" "#include <\\1>\n")
file(WRITE ${WORK}/pkgconfig/every_header.cpp ${headers})
run(${CXX} -std=c++20 -fsyntax-only ${flags} ${WORK}/pkgconfig/every_header.cpp)
run(${CXX} -std=c++20 ${SOURCE_DIR}/tests/install/consumer/main.cpp ${flags} -Wl,-rpath,${libdir}
    -o ${WORK}/pkgconfig/consumer)
run(${WORK}/pkgconfig/consumer)
expect_output("pkg-config strata")
