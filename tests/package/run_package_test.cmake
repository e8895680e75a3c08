# run_package_test.cmake: installs the build into ENGRAM_WORK_DIR/prefix, builds app/ against it
# with find_package (and with pkg-config when present), runs both programs and checks what they
# print. Run by ctest (tests/package/CMakeLists.txt) with cmake -P.
foreach(_variable ENGRAM_BUILD_DIR ENGRAM_WORK_DIR ENGRAM_APP_DIR ENGRAM_GENERATOR
                  ENGRAM_CXX_COMPILER)
  if(NOT DEFINED ${_variable})
    message(FATAL_ERROR "package test: ${_variable} is not set")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _result OUTPUT_VARIABLE _output
                  ERROR_VARIABLE _output)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "package test: `${ARGN}` failed (${_result}):\n${_output}")
  endif()
  set(run_output "${_output}" PARENT_SCOPE)
endfunction()

set(_prefix ${ENGRAM_WORK_DIR}/prefix)
file(REMOVE_RECURSE ${ENGRAM_WORK_DIR})
file(MAKE_DIRECTORY ${ENGRAM_WORK_DIR}/store)

run(${CMAKE_COMMAND} --install ${ENGRAM_BUILD_DIR} --prefix ${_prefix})
foreach(_installed include/engram/engine.h lib/cmake/engram/engramConfig.cmake
                   lib/pkgconfig/engram.pc)
  string(REPLACE "lib/" "lib*/" _pattern "${_installed}")
  file(GLOB _found ${_prefix}/${_pattern})
  if(NOT _found)
    message(FATAL_ERROR "package test: ${_installed} was not installed under ${_prefix}")
  endif()
endforeach()
file(GLOB_RECURSE _private_headers ${_prefix}/include/*/api_json.h ${_prefix}/include/core/*)
if(_private_headers)
  message(FATAL_ERROR "package test: private headers were installed: ${_private_headers}")
endif()

# find_package in a separate project.
run(${CMAKE_COMMAND} -S ${ENGRAM_APP_DIR} -B ${ENGRAM_WORK_DIR}/app-build -G ${ENGRAM_GENERATOR}
    -DCMAKE_CXX_COMPILER=${ENGRAM_CXX_COMPILER} -DCMAKE_PREFIX_PATH=${_prefix})
run(${CMAKE_COMMAND} --build ${ENGRAM_WORK_DIR}/app-build)
run(${ENGRAM_WORK_DIR}/app-build/engram_package_app ${ENGRAM_WORK_DIR}/store/cmake.db)
if(NOT run_output MATCHES "recalled: My sister Maya lives in Porto\\.")
  message(FATAL_ERROR "package test: the find_package program printed:\n${run_output}")
endif()
message(STATUS "find_package program:\n${run_output}")

# pkg-config flags, compiled by hand.
if(ENGRAM_PKG_CONFIG)
  file(GLOB _pc_dirs ${_prefix}/lib*/pkgconfig)
  string(REPLACE ";" ":" _pc_path "${_pc_dirs}")
  set(ENV{PKG_CONFIG_PATH} "${_pc_path}")
  run(${ENGRAM_PKG_CONFIG} --cflags --libs engram)
  string(STRIP "${run_output}" _flags)
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  string(REGEX REPLACE "-L([^ ;]+)" "\\1" _libdir "${_flags}")
  list(FILTER _libdir INCLUDE REGEX "^/")
  run(${ENGRAM_CXX_COMPILER} ${ENGRAM_APP_DIR}/main.cc -o ${ENGRAM_WORK_DIR}/pkg-config-app
      ${_flags} -Wl,-rpath,${_libdir})
  run(${ENGRAM_WORK_DIR}/pkg-config-app ${ENGRAM_WORK_DIR}/store/pkg-config.db)
  if(NOT run_output MATCHES "recalled: My sister Maya lives in Porto\\.")
    message(FATAL_ERROR "package test: the pkg-config program printed:\n${run_output}")
  endif()
endif()
message("package test: ok")
