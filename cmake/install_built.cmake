# Install rules for what a partial build may leave out. `scripts/run.sh` builds the program
# only (`--target sowdb`), and a user then runs `cmake --install`: that must install what was
# built (the libraries, the headers, the package files and the program) and say what it skips,
# rather than stop half way on a file that was never asked for.

# Installs `target` (a program or module of the build, not a library of the exported package,
# whose files sowdbTargets.cmake promises) with the install() arguments that follow, OPTIONAL:
# skipped, with a line saying so and which target builds it, when its file is not there.
# `what` names it for that line.
function(sowdb_install_if_built target what)
  install(TARGETS ${target} ${ARGN} OPTIONAL)
  install(CODE "if(NOT EXISTS \"$<TARGET_FILE:${target}>\")
  message(STATUS \"sowdb: skipping ${what}: it was not built \"
    \"(cmake --build ${CMAKE_BINARY_DIR} --target ${target} builds it)\")
endif()")
endfunction()
