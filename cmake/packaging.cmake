# A Debian package of what cmake/install.cmake installs (docs/install.md):
#   cd build && cpack -G DEB        -> strata_<version>_<arch>.deb, files under /usr
# One package holds the libraries, the `strata` tool, the headers and the CMake and pkg-config
# files. Its Depends are what dpkg-shlibdeps finds for the libraries and the tool link (oneDNN,
# SQLite, libpq, HDF5, libpng, libjpeg, OpenSSL, cpp-httplib, Open MPI, libgomp...), with the
# versions Debian's symbols files ask for, plus the JSON headers that Strata's headers include.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME strata)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "C++20 deep learning: tensors with autograd, layers, training, datasets, a model hub")
if(NOT CPACK_PACKAGE_CONTACT)
  set(CPACK_PACKAGE_CONTACT "Strata developers")  # -DCPACK_PACKAGE_CONTACT="Name <mail>" to sign it
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS nlohmann-json3-dev)
# libstrata_dist and the tool link libstrata, which is in this package, not in a Debian one.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
include(CPack)
