# `cpack -G DEB` in the build directory: a Debian package of what `cmake --install` installs
# (tools/CMakeLists.txt), under /usr. Its version is the build's (cmake/build_info.cmake, from
# git describe), read when cpack runs, so that it is that of the binary it packs; its runtime
# dependencies are dpkg-shlibdeps' (dpkg-dev). The binary is built for this host's instruction set
# unless configured with -DPAGESIM_NATIVE=OFF: do that for a package meant for other hosts.
set(CPACK_PACKAGE_NAME pagesim)
set(CPACK_PACKAGE_VENDOR "pagesim")
set(CPACK_PACKAGE_CONTACT "${PAGESIM_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "simulator of the Linux page allocator")
# The extended description, which cpack puts under the summary, each line indented.
set(CPACK_PACKAGE_DESCRIPTION
    "pagesim models the Linux page allocator (zones, buddy free lists, per-cpu
page lists, zone locks) over an array of struct page records, with kernel
presets from v5.17 to v6.18. It runs scenario files on a uniprocessor, a
native-thread or a virtual-time engine and reports lock use, struct page
cache-line accesses and throughput.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # Debian ships stripped binaries (lintian: unstripped-binary-or-object)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # pagesim_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox")  # pagesim plot
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
# Read by cpack when it runs: the version the last build wrote.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/cpack_version.cmake)
file(WRITE ${CPACK_PROJECT_CONFIG_FILE}
     "file(STRINGS \"${PROJECT_BINARY_DIR}/tools/package_version.txt\" CPACK_PACKAGE_VERSION LIMIT_COUNT 1)\n")
include(CPack)
