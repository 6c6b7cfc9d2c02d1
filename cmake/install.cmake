# Installing Strata (docs/install.md): the public headers, the libraries (libstrata_<library> of
# cmake/libraries.cmake, libstrata_dist) with their SOVERSION, the `strata` tool, a CMake package
# (find_package(Strata CONFIG [COMPONENTS engine hub ...]) -> Strata::<library>, Strata::dist and
# the umbrella Strata::strata) and pkg-config files (strata-<library>, strata-dist, strata).
#   cmake --install build --prefix /opt/strata
# cmake/packaging.cmake makes a .deb of the same files.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Before 1.0 a minor release may change the ABI, so the soname carries major.minor
# (libstrata_engine.so.0.1); from 1.0 on, the major version alone.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(STRATA_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(STRATA_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
# Installed libraries find each other in their own folder.
set_target_properties(${STRATA_LIBRARY_TARGETS} strata_dist PROPERTIES VERSION ${PROJECT_VERSION}
  SOVERSION ${STRATA_SOVERSION} INSTALL_RPATH "$ORIGIN")
# libstrata_engine loads the CUDA backend by its soname, from its own folder (docs/cuda.md): installed
# beside it, where nvcc built it.
if(TARGET strata_cuda)
  set_target_properties(strata_cuda PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${STRATA_SOVERSION}
                        INSTALL_RPATH "$ORIGIN")
  install(TARGETS strata_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/core/device_memory.cpp PROPERTIES
  COMPILE_DEFINITIONS STRATA_CUDA_LIBRARY="libstrata_cuda.so.${STRATA_SOVERSION}")
set_target_properties(strata_dist PROPERTIES EXPORT_NAME dist)
# What an installed user compiles with: the headers' folder and C++20 (the headers use it).
target_include_directories(strata_lib_engine INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(strata_lib_engine INTERFACE cxx_std_20)

# Installed binaries find the installed libstrata next to them, wherever the prefix is.
file(RELATIVE_PATH _strata_lib_from_bin /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
set_target_properties(strata_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_strata_lib_from_bin}")

set(STRATA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
install(TARGETS strata ${STRATA_LIBRARY_TARGETS} strata_dist EXPORT StrataTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS strata_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/strata DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT StrataTargets NAMESPACE Strata:: DESTINATION ${STRATA_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/StrataConfig.cmake.in
  ${PROJECT_BINARY_DIR}/install/StrataConfig.cmake INSTALL_DESTINATION ${STRATA_CMAKE_DIR})
# Same major.minor only, as the soname: 0.1 and 0.2 are not ABI-compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/StrataConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/StrataConfig.cmake ${PROJECT_BINARY_DIR}/install/StrataConfigVersion.cmake
  DESTINATION ${STRATA_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own folder, so the tree can be moved.
set(STRATA_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH STRATA_PC_TO_PREFIX /${STRATA_PC_DIR} /)
string(REGEX REPLACE "/$" "" STRATA_PC_TO_PREFIX ${STRATA_PC_TO_PREFIX})
# One file per library, requiring the files of the libraries it uses; strata.pc requires them all.
set(STRATA_PC_FILES strata strata-dist)
set(STRATA_PC_ALL)
foreach(library ${STRATA_LIBRARIES})
  set(STRATA_PC_LIBRARY ${library})
  set(STRATA_PC_REQUIRES)
  foreach(used ${STRATA_LIBRARY_USES_${library}})
    string(REPLACE "Strata::" "" used ${used})
    list(APPEND STRATA_PC_REQUIRES "strata-${used} = ${PROJECT_VERSION}")
  endforeach()
  if(library STREQUAL "engine")
    set(STRATA_PC_REQUIRES nlohmann_json)
  endif()
  string(REPLACE ";" ", " STRATA_PC_REQUIRES "${STRATA_PC_REQUIRES}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/strata-library.pc.in ${PROJECT_BINARY_DIR}/install/strata-${library}.pc @ONLY)
  list(APPEND STRATA_PC_FILES strata-${library})
  list(APPEND STRATA_PC_ALL "strata-${library} = ${PROJECT_VERSION}")
endforeach()
string(REPLACE ";" ", " STRATA_PC_ALL "${STRATA_PC_ALL}")
foreach(pc strata strata-dist)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/install/${pc}.pc @ONLY)
endforeach()
foreach(pc ${STRATA_PC_FILES})
  install(FILES ${PROJECT_BINARY_DIR}/install/${pc}.pc DESTINATION ${STRATA_PC_DIR})
endforeach()
