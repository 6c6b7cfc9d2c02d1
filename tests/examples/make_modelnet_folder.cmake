# A tiny ModelNet-style folder for strata_pointcloud_classify's --modelnet smoke run:
# <DIR>/<class>/{train,test}/<class>_<n>.off, two classes (a tetrahedron and a box of varying
# proportions) of OFF meshes as Princeton ships them, one with the glued "OFF<counts>" header.
#   cmake -DDIR=<folder> -P make_modelnet_folder.cmake
if(NOT DIR)
  message(FATAL_ERROR "pass -DDIR=<folder>")
endif()
file(REMOVE_RECURSE ${DIR})
foreach(split train test)
  foreach(n RANGE 1 3)
    math(EXPR s "${n} + 1")
    file(WRITE ${DIR}/tetra/${split}/tetra_${n}.off
      "OFF\n4 4 0\n${s} ${s} ${s}\n${s} -1 -1\n-1 ${s} -1\n-1 -1 ${s}\n3 0 1 2\n3 0 3 1\n3 0 2 3\n3 1 3 2\n")
    file(WRITE ${DIR}/box/${split}/box_${n}.off
      "OFF8 12 0\n0 0 0\n${s} 0 0\n${s} 1 0\n0 1 0\n0 0 1\n${s} 0 1\n${s} 1 1\n0 1 1\n"
      "3 0 2 1\n3 0 3 2\n3 4 5 6\n3 4 6 7\n3 0 1 5\n3 0 5 4\n3 2 3 7\n3 2 7 6\n3 1 2 6\n3 1 6 5\n3 0 4 7\n3 0 7 3\n")
  endforeach()
endforeach()
