# Profile-guided optimisation (PAGESIM_PGO=ON, GCC): an instrumented `pagesim` is built in
# <build>/pgo/build, runs tools/pgo-train, and every object of this build is compiled with the
# profile that run leaves in <build>/pgo/profile. The profile is remade whenever the
# instrumented binary changes, and every object depends on it: a source edit costs the
# instrumented build, the training (minutes) and a full rebuild. For measurement and
# long runs, not for development (docs/performance.md, "Build flags").
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "PAGESIM_PGO needs GCC (-fprofile-prefix-path); the compiler is "
                      "${CMAKE_CXX_COMPILER_ID}: configure a new build directory with CXX=g++")
endif()
if(PAGESIM_SANITIZE OR PAGESIM_FUZZ)
  message(FATAL_ERROR "PAGESIM_PGO builds measure; it does not go with PAGESIM_SANITIZE or PAGESIM_FUZZ")
endif()

include(ExternalProject)
set(pgo_dir ${CMAKE_BINARY_DIR}/pgo)
set(pgo_profile ${pgo_dir}/profile)
set(pgo_stamp ${pgo_dir}/trained.stamp)
# Profiles are named by the object's path below its build directory (-fprofile-prefix-path),
# so that the instrumented build's names are this build's.
ExternalProject_Add(pgo_instrumented
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${pgo_dir}/build
  CMAKE_GENERATOR Ninja
  # The same compiler: another one could not read the profile, or would not match its objects.
  CMAKE_ARGS -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
             -DPAGESIM_NATIVE=${PAGESIM_NATIVE} -DPAGESIM_BUILD_BENCH=OFF -DPAGESIM_PGO=OFF
             # no commit stamp: each commit would relink it, and so retrain and rebuild all
             -DPAGESIM_STAMP_COMMIT=OFF
             "-DCMAKE_CXX_FLAGS=${CMAKE_CXX_FLAGS} -fprofile-generate=${pgo_profile} -fprofile-prefix-path=${pgo_dir}/build -fprofile-update=prefer-atomic"
             "-DCMAKE_EXE_LINKER_FLAGS=${CMAKE_EXE_LINKER_FLAGS} -fprofile-generate"
  BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --target pagesim
  BUILD_ALWAYS ON  # the sub-build is incremental: it relinks only when a source changed
  BUILD_BYPRODUCTS ${pgo_dir}/build/pagesim
  INSTALL_COMMAND "")
add_custom_command(OUTPUT ${pgo_stamp}
  COMMAND ${PROJECT_SOURCE_DIR}/tools/pgo-train ${pgo_dir}/build/pagesim ${pgo_profile} ${pgo_dir}/runs
  COMMAND ${CMAKE_COMMAND} -E touch ${pgo_stamp}
  DEPENDS ${pgo_dir}/build/pagesim ${PROJECT_SOURCE_DIR}/tools/pgo-train
  COMMENT "PGO: training the instrumented pagesim (tools/pgo-train)"
  VERBATIM)
add_custom_target(pgo_profile DEPENDS ${pgo_stamp})
add_dependencies(pgo_profile pgo_instrumented)

add_compile_options(-fprofile-use=${pgo_profile} -fprofile-prefix-path=${CMAKE_BINARY_DIR} -fprofile-correction
                    -Wno-missing-profile -Wno-coverage-mismatch)

# Called once every target exists: each compiled target waits for the profile, and each of
# its objects is rebuilt when the profile is remade.
function(pagesim_pgo_depend dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      add_dependencies(${t} pgo_profile)
      get_target_property(sources ${t} SOURCES)
      get_target_property(source_dir ${t} SOURCE_DIR)
      set(paths "")
      foreach(src IN LISTS sources)  # relative to the target's directory, not this one
        cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${source_dir})
        list(APPEND paths ${src})
      endforeach()
      set_source_files_properties(${paths} TARGET_DIRECTORY ${t} PROPERTIES OBJECT_DEPENDS ${pgo_stamp})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d IN LISTS subdirs)
    pagesim_pgo_depend(${d})
  endforeach()
endfunction()
