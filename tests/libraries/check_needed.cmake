# ctest -L build, libraries_needed: Strata's libraries follow the module map (cmake/libraries.cmake).
# PROGRAM (engine_only.cpp, linked against the engine alone) runs; it needs libstrata_engine and
# no other Strata library; nothing it loads, directly or through the engine, is an SQL client,
# OpenSSL, HDF5, protobuf, httplib or MPI. HUB (libstrata_hub) does load SQLite, which shows that
# the check sees a link where there is one, and none of HDF5, protobuf, httplib or MPI.
#   cmake -DPROGRAM=<program> -DHUB=<libstrata_hub.so> -P check_needed.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/../install/run.cmake)  # run(<command>...)

# expect(<file> <description> PRESENT <regex>... ABSENT <regex>...) on `ldd <file>`'s output.
function(expect file)
  cmake_parse_arguments(arg "" "" "PRESENT;ABSENT" ${ARGN})
  run(ldd ${file})
  foreach(pattern ${arg_PRESENT})
    if(NOT out MATCHES "${pattern}")
      message(FATAL_ERROR "${file} does not load ${pattern}:\n${out}")
    endif()
  endforeach()
  foreach(pattern ${arg_ABSENT})
    if(out MATCHES "${pattern}")
      message(FATAL_ERROR "${file} loads ${CMAKE_MATCH_0}, which it should not need:\n${out}")
    endif()
  endforeach()
  message(STATUS "${file}: loads ${arg_PRESENT}; none of ${arg_ABSENT}")
endfunction()

set(unwanted_everywhere "libhdf5[^ ]*" "libprotobuf[^ ]*" "libcpp-httplib[^ ]*" "libmpi[^ ]*" "libonnx[^ ]*")
run(${PROGRAM})
message(STATUS "${out}")
if(NOT out MATCHES "engine only: output \\[2, 1\\]")
  message(FATAL_ERROR "${PROGRAM} printed: ${out}")
endif()
run(readelf -d ${PROGRAM})
string(REGEX MATCHALL "\\[libstrata[^]]*\\]" strata_needed "${out}")
if(NOT strata_needed MATCHES "^\\[libstrata_engine\\.so[^]]*\\]$")
  message(FATAL_ERROR "${PROGRAM} should need libstrata_engine alone of Strata's libraries: ${strata_needed}")
endif()
expect(${PROGRAM} PRESENT "libstrata_engine\\.so" "libdnnl"
       ABSENT ${unwanted_everywhere} "libpq[^ ]*" "libsqlite3[^ ]*" "libssl[^ ]*" "libcrypto[^ ]*"
              "libstrata_(hub|serve|workflow|onnx|interop|dist)[^ ]*")
expect(${HUB} PRESENT "libsqlite3" "libpq" "libstrata_engine\\.so" ABSENT ${unwanted_everywhere})
