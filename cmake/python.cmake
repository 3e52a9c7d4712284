# Finds what the Python module (python/, `import sowdb`) needs: a Python 3 interpreter with its
# headers and numpy, and pybind11. Sets SOWDB_PYTHON_FOUND, and SOWDB_PYTHON_MISSING to what
# is missing when it is not.
#
# The interpreter: -DPython3_EXECUTABLE=... when given; else Debian's /usr/bin/python3 when it
# exists (the `python3` first on PATH may be another one, e.g. pyenv's, without numpy or
# pybind11's Debian packages); else the first found.
if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python interpreter of the sowdb module")
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
set(SOWDB_PYTHON_FOUND OFF)
set(SOWDB_PYTHON_MISSING "")
if(NOT Python3_Interpreter_FOUND OR NOT Python3_Development.Module_FOUND)
  set(SOWDB_PYTHON_MISSING "a Python 3 interpreter with its headers (Debian: python3-dev)")
else()
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy; print(numpy.get_include())"
    OUTPUT_VARIABLE SOWDB_NUMPY_INCLUDE RESULT_VARIABLE numpy_status
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_package(pybind11 CONFIG QUIET)
  if(NOT numpy_status EQUAL 0)
    set(SOWDB_PYTHON_MISSING "numpy for ${Python3_EXECUTABLE} (Debian: python3-numpy)")
  elseif(NOT pybind11_FOUND)
    set(SOWDB_PYTHON_MISSING "pybind11 (Debian: pybind11-dev)")
  else()
    set(SOWDB_PYTHON_FOUND ON)
  endif()
endif()
