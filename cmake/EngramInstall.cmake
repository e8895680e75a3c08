# The installed C++ package: the public headers (include/engram/), one shared library
# libengram.so holding the whole engine, engramConfig.cmake (target engram::engram) and
# engram.pc. Third-party libraries (SQLite, utf8proc, libstemmer, ...) are linked into
# libengram.so as its own dependencies, so a program needs only `find_package(engram)` and
# `target_link_libraries(app PRIVATE engram::engram)`:
#
#   cmake --install build --prefix /opt/engram
#   cmake -S app -B app/build -DCMAKE_PREFIX_PATH=/opt/engram
#
# tests/package/ builds and runs such a program against a fresh install.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The engine's static libraries, in dependency order; libengram.so holds all of their code.
set(ENGRAM_ENGINE_LIBRARIES engram_core engram_config engram_text engram_lexicon engram_embed engram_store
    engram_bm25 engram_vector engram_write engram_read engram_engine)

file(WRITE ${CMAKE_BINARY_DIR}/engram_library.cc
     "// libengram: the engine's static libraries, linked whole into one shared library.\n")
# The target is engram_shared (the `engram` command owns the name engram); the file is
# libengram.so and the exported target engram::engram.
add_library(engram_shared SHARED ${CMAKE_BINARY_DIR}/engram_library.cc)
add_library(engram::engram ALIAS engram_shared)
# --whole-archive keeps every object of the engine's libraries (not only those this empty source
# needs); linking engram_engine afterwards brings in their third-party dependencies.
set(_engram_whole_archive "LINKER:--whole-archive")
foreach(_library ${ENGRAM_ENGINE_LIBRARIES})
  list(APPEND _engram_whole_archive "$<TARGET_FILE:${_library}>")
endforeach()
list(APPEND _engram_whole_archive "LINKER:--no-whole-archive")
target_link_options(engram_shared PRIVATE ${_engram_whole_archive})
target_link_libraries(engram_shared PRIVATE engram_engine)
add_dependencies(engram_shared ${ENGRAM_ENGINE_LIBRARIES})
target_include_directories(engram_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(engram_shared INTERFACE cxx_std_20)
set_target_properties(engram_shared PROPERTIES
  OUTPUT_NAME engram
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  EXPORT_NAME engram)

install(TARGETS engram_shared EXPORT engramTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/engram DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")

set(ENGRAM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/engram)
install(EXPORT engramTargets NAMESPACE engram:: DESTINATION ${ENGRAM_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/engramConfig.cmake.in
  ${CMAKE_BINARY_DIR}/engramConfig.cmake INSTALL_DESTINATION ${ENGRAM_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/engramConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/engramConfig.cmake ${CMAKE_BINARY_DIR}/engramConfigVersion.cmake
        DESTINATION ${ENGRAM_CMAKE_INSTALL_DIR})

# engram.pc finds the prefix relative to itself, so `cmake --install --prefix DIR` works too.
file(RELATIVE_PATH ENGRAM_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" ENGRAM_PC_TO_PREFIX "${ENGRAM_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/engram.pc.in ${CMAKE_BINARY_DIR}/engram.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/engram.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The engram command, when it is built.
if(TARGET engram)
  install(TARGETS engram RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
