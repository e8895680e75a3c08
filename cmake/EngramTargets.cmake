# Helpers that give every engram target the same standard, warnings and sanitizers.

set(ENGRAM_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
    # Designated initializers ({.k = 5}) are the intended way to fill option structs.
    -Wno-missing-field-initializers)

function(engram_apply_common target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE ${ENGRAM_WARNINGS})
  if(ENGRAM_SANITIZE)
    target_compile_options(${target} PUBLIC -fsanitize=${ENGRAM_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PUBLIC -fsanitize=${ENGRAM_SANITIZE})
  endif()
endfunction()

# engram_library(NAME SOURCES ... DEPS ...): one static library per source folder.
function(engram_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  engram_apply_common(${name})
endfunction()

# engram_test(NAME SOURCES ... DEPS ... [LABELS ...] [FIXTURES ...] [SERIAL_TESTS ...]): a
# GoogleTest executable registered with ctest; FIXTURES names ctest fixtures its tests require
# (e.g. postgres_cluster); SERIAL_TESTS names tests (Suite.Name) that ctest runs while no other
# test runs (RUN_SERIAL), e.g. one whose outcome another process's open transaction would change.
function(engram_test name)
  if(NOT ENGRAM_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS;FIXTURES;SERIAL_TESTS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  engram_apply_common(${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set(_properties TIMEOUT ${ARG_TIMEOUT} ENVIRONMENT "ENGRAM_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  if(ARG_LABELS)
    list(APPEND _properties LABELS "${ARG_LABELS}")
  endif()
  if(ARG_FIXTURES)
    list(APPEND _properties FIXTURES_REQUIRED "${ARG_FIXTURES}")
  endif()
  if(NOT ARG_SERIAL_TESTS)
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES ${_properties})
    return()
  endif()
  list(JOIN ARG_SERIAL_TESTS ":" _serial_filter)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_FILTER "-${_serial_filter}"
                       PROPERTIES ${_properties})
  foreach(_serial IN LISTS ARG_SERIAL_TESTS)
    add_test(NAME ${_serial} COMMAND ${name} --gtest_filter=${_serial})
    set_tests_properties(${_serial} PROPERTIES ${_properties} RUN_SERIAL TRUE
                         SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  endforeach()
endfunction()
