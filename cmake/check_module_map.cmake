# Checks every quoted include against the module map (module_map.cmake). Run as
#   cmake -DROOT=<source tree> -P cmake/check_module_map.cmake
# Prints each violation (file, include, rule) and fails if there is one.
#   src/<module> and include/strata/<module>: only the modules <module> sees.
#   tests/<module> (tests/cuda: kernels/cuda's): the public headers of the modules <module> sees
#     and <module>'s own private headers (src/<module>), no other private header.
#   tests/<other> (reliability, faults, examples ...: no module of their own) and tools/: public
#     headers only. Test helpers (tests/<folder>/*.hpp) are not library headers: any test may use them.
# Exceptions, each with its reason, are declared in module_map.cmake (strata_include_exception).
# tests/module_map holds the fixtures of this check, which break the map on purpose.
cmake_minimum_required(VERSION 3.25)  # script mode: the policies of the project
include(${CMAKE_CURRENT_LIST_DIR}/module_map.cmake)
if(NOT ROOT)
  message(FATAL_ERROR "pass -DROOT=<source tree>")
endif()

set(violations 0)

# The module a path inside a tree (src/..., include/strata/..., tests/...) belongs to, or "".
function(module_of in_tree out)
  set(found "")
  foreach(other ${STRATA_MODULES})
    if(in_tree MATCHES "^${other}/")
      set(found ${other})
      break()
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Where a quoted include resolves as the compiler finds it: the including file's folder, then the
# include paths the tests and tools use (tests, src, include). Sets kind (public, private, helper
# or "") and owner (the module, for helpers the tests folder).
function(resolve file path kind_out owner_out)
  get_filename_component(dir ${file} DIRECTORY)
  set(resolved "")
  foreach(base ${dir} ${ROOT}/tests ${ROOT}/src ${ROOT}/include)
    if(EXISTS ${base}/${path} AND NOT IS_DIRECTORY ${base}/${path})
      get_filename_component(resolved ${base}/${path} ABSOLUTE)
      break()
    endif()
  endforeach()
  set(kind "")
  set(owner "")
  if(resolved)
    file(RELATIVE_PATH relative ${ROOT} ${resolved})
  else()
    set(relative "include/${path}")  # not in this tree: named as a public header is
  endif()
  if(relative MATCHES "^include/strata/(.*)")
    module_of("${CMAKE_MATCH_1}" owner)
    set(kind public)
  elseif(relative MATCHES "^src/(.*)")
    module_of("${CMAKE_MATCH_1}" owner)
    set(kind private)
  elseif(relative MATCHES "^tests/([^/]+)/")
    set(kind helper)
    set(owner ${CMAKE_MATCH_1})
  endif()
  if(NOT owner)
    set(kind "")
  endif()
  set(${kind_out} "${kind}" PARENT_SCOPE)
  set(${owner_out} "${owner}" PARENT_SCOPE)
endfunction()

function(report file path why)
  file(RELATIVE_PATH shown ${ROOT} ${file})
  if("${shown}|${path}" IN_LIST STRATA_INCLUDE_EXCEPTIONS)
    return()
  endif()
  message(NOTICE "${shown} includes ${path}: ${why}")
  math(EXPR count "${violations} + 1")
  set(violations ${count} PARENT_SCOPE)
endfunction()

function(quoted_includes file out)
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  set(paths "")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" path "${line}")
    list(APPEND paths ${path})
  endforeach()
  set(${out} ${paths} PARENT_SCOPE)
endfunction()

# The library: a module includes only the modules it sees.
foreach(module ${STRATA_MODULES})
  file(GLOB_RECURSE files ${ROOT}/src/${module}/*.cpp ${ROOT}/src/${module}/*.cu ${ROOT}/src/${module}/*.hpp
       ${ROOT}/include/strata/${module}/*.hpp)
  foreach(file ${files})
    quoted_includes(${file} paths)
    foreach(path ${paths})
      string(REGEX REPLACE "^strata/" "" in_tree "${path}")  # public strata/<m>/ or internal <m>/
      module_of("${in_tree}" other)
      if(other AND NOT other IN_LIST STRATA_SEES_${module})
        report(${file} ${path} "module ${module} may not include ${other}")
      endif()
    endforeach()
  endforeach()
endforeach()

# The tests and tools.
file(GLOB test_dirs LIST_DIRECTORIES true ${ROOT}/tests/*)
foreach(test_dir ${test_dirs} ${ROOT}/tools)
  if(NOT IS_DIRECTORY ${test_dir} OR test_dir STREQUAL "${ROOT}/tests/module_map")
    continue()
  endif()
  file(RELATIVE_PATH folder ${ROOT} ${test_dir})
  string(REGEX REPLACE "^tests/" "" module "${folder}")
  if(module STREQUAL "cuda")
    set(module kernels/cuda)
  elseif(NOT module IN_LIST STRATA_MODULES)
    set(module "")  # public headers only
  endif()
  file(GLOB_RECURSE files ${test_dir}/*.cpp ${test_dir}/*.cu ${test_dir}/*.hpp ${test_dir}/*.h)
  foreach(file ${files})
    quoted_includes(${file} paths)
    foreach(path ${paths})
      resolve(${file} ${path} kind owner)
      if(kind STREQUAL "private" AND NOT owner STREQUAL module)
        report(${file} ${path} "${folder} may not include the private headers of ${owner}")
      elseif(module AND kind STREQUAL "public" AND NOT owner IN_LIST STRATA_SEES_${module})
        report(${file} ${path} "${folder} may include only what module ${module} sees, not ${owner}")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) break the module map (docs/architecture.md)")
endif()
