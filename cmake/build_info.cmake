# Run at build time (cmake -P, from tools/CMakeLists.txt): the commit the build is of, from git,
# into OUT_DIR/build_info.cc (the `pagesim --version` line), and the Debian package's version
# and changelog built from it. Files are rewritten only when their text changes, so a build of
# an unchanged commit recompiles nothing. Without git or a checkout (a source tarball), or with
# STAMP OFF (the profile-guided build's instrumented binary, which would otherwise be rebuilt
# and retrained at every commit), the commit is "unknown" and the version VERSION alone.
#   cmake -DSOURCE_DIR=... -DOUT_DIR=... -DVERSION=x.y.z -DMAINTAINER=... -DSTAMP=ON|OFF -P build_info.cmake
cmake_minimum_required(VERSION 3.22)
set(commit unknown)
set(package_version ${VERSION})
set(date "")
find_package(Git QUIET)
if(STAMP AND GIT_FOUND)
  macro(git out)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} ${ARGN} OUTPUT_VARIABLE ${out}
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE git_rc)
  endmacro()
  git(hash rev-parse --short=12 HEAD)
  if(git_rc EQUAL 0)
    git(dirty describe --always --dirty)
    set(commit ${hash})
    set(suffix "")
    if(dirty MATCHES "-dirty$")
      set(commit ${hash}-dirty)
      set(suffix .dirty)
    endif()
    git(date log -1 "--date=format:%a, %d %b %Y %H:%M:%S %z" --format=%cd HEAD)
    # A release tag vX.Y.Z gives X.Y.Z, and X.Y.Z+N.gHASH N commits later; without one, the
    # version with the commit count, which grows, so that a later build upgrades an earlier one.
    git(described describe --tags --match "v[0-9]*" --abbrev=12 HEAD)
    if(git_rc EQUAL 0 AND described MATCHES "^v([0-9][0-9.]*)(-([0-9]+)-g([0-9a-f]+))?$")
      set(package_version ${CMAKE_MATCH_1})
      if(CMAKE_MATCH_2)
        set(package_version ${package_version}+${CMAKE_MATCH_3}.g${CMAKE_MATCH_4})
      endif()
    else()
      git(count rev-list --count HEAD)
      set(package_version ${VERSION}+git${count}.g${hash})
    endif()
    set(package_version ${package_version}${suffix})
  endif()
endif()
if(NOT date)
  string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()

file(CONFIGURE OUTPUT ${OUT_DIR}/build_info.cc @ONLY CONTENT
"// Written by cmake/build_info.cmake at build time.
#include \"cli/build_info.h\"

namespace pagesim::cli {
const char* const kBuildCommit = \"@commit@\";
}  // namespace pagesim::cli
")
file(CONFIGURE OUTPUT ${OUT_DIR}/package_version.txt @ONLY CONTENT "@package_version@\n")
# A native package's changelog (Debian policy 12.7), one entry: this build.
file(CONFIGURE OUTPUT ${OUT_DIR}/changelog @ONLY CONTENT
"pagesim (@package_version@) unstable; urgency=medium

  * Built from commit @commit@; the project's history is its git log.

 -- @MAINTAINER@  @date@
")
if(NOT EXISTS ${OUT_DIR}/changelog.gz OR ${OUT_DIR}/changelog IS_NEWER_THAN ${OUT_DIR}/changelog.gz)
  execute_process(COMMAND gzip -9n -c ${OUT_DIR}/changelog OUTPUT_FILE ${OUT_DIR}/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
endif()
