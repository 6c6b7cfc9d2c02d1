# Checks every quoted include under ROOT's src/<module> and include/strata/<module> against the
# module map (module_map.cmake): a module may include only the modules it sees. Run as
#   cmake -DROOT=<source tree> -P cmake/check_module_map.cmake
# Prints each violation (file, include, module) and fails if there is one.
cmake_minimum_required(VERSION 3.25)  # script mode: the policies of the project
include(${CMAKE_CURRENT_LIST_DIR}/module_map.cmake)
if(NOT ROOT)
  message(FATAL_ERROR "pass -DROOT=<source tree>")
endif()

set(violations 0)
foreach(module ${STRATA_MODULES})
  file(GLOB_RECURSE files ${ROOT}/src/${module}/*.cpp ${ROOT}/src/${module}/*.cu ${ROOT}/src/${module}/*.hpp
       ${ROOT}/include/strata/${module}/*.hpp)
  foreach(file ${files})
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" path "${line}")
      string(REGEX REPLACE "^strata/" "" in_tree "${path}")  # public strata/<m>/ or internal <m>/
      foreach(other ${STRATA_MODULES})
        if(in_tree MATCHES "^${other}/")
          if(NOT other IN_LIST STRATA_SEES_${module})
            file(RELATIVE_PATH shown ${ROOT} ${file})
            message(NOTICE "${shown} includes ${path}: module ${module} may not include ${other}")
            math(EXPR violations "${violations} + 1")
          endif()
          break()
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) break the module map (docs/architecture.md)")
endif()
