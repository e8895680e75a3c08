# Finds the Python interpreter the module is built for, its headers, and pybind11; sets
# ENGRAM_PYTHON_FOUND.
#
# The interpreter: Python3_EXECUTABLE when given (pip install passes the one running it);
# otherwise Debian's python3 when present, because scripts/setup installs pybind11 and pytest for
# that one; otherwise whichever python3 CMake finds first. The tests run with the same one.
if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter the module is built for")
endif()
find_package(Python3 3.8 QUIET COMPONENTS Interpreter Development.Module)
set(ENGRAM_PYTHON_FOUND OFF)
if(Python3_FOUND)
  find_package(pybind11 2.6 CONFIG QUIET)
  if(pybind11_FOUND)
    set(ENGRAM_PYTHON_FOUND ON)
    message(STATUS "engram: Python module for ${Python3_EXECUTABLE} (${Python3_VERSION}), "
                   "pybind11 ${pybind11_VERSION}")
  endif()
endif()
if(NOT ENGRAM_PYTHON_FOUND)
  message(STATUS "engram: pybind11 or Python's headers not found; the Python module is not built")
endif()
