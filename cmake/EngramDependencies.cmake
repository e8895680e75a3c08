# Third-party dependencies. All come from Debian packages installed by scripts/setup;
# docs/ARCHITECTURE.md says why each was chosen.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)

# libstemmer ships neither a CMake package nor a pkg-config file.
find_path(STEMMER_INCLUDE_DIR libstemmer.h REQUIRED)
find_library(STEMMER_LIBRARY stemmer REQUIRED)
add_library(engram_dep_stemmer INTERFACE)
target_include_directories(engram_dep_stemmer SYSTEM INTERFACE ${STEMMER_INCLUDE_DIR})
target_link_libraries(engram_dep_stemmer INTERFACE ${STEMMER_LIBRARY})

if(ENGRAM_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(ENGRAM_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
