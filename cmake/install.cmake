include(CMakePackageConfigHelpers)
install(EXPORT sowdbTargets NAMESPACE sowdb:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sowdb)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/sowdbConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/sowdbConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sowdb)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/sowdbConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/sowdbConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/sowdbConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sowdb)
# The .pc file finds the prefix from its own location, so the installed tree can be moved.
file(RELATIVE_PATH SOWDB_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" SOWDB_PC_TO_PREFIX "${SOWDB_PC_TO_PREFIX}")
# Static archives (the default) need zstd and the C++ runtime on every link line, not only with
# --static: plain `pkg-config --libs sowdb` (Meson, autotools) must link too.
if(BUILD_SHARED_LIBS)
  set(SOWDB_PC_REQUIRES "")
  set(SOWDB_PC_REQUIRES_PRIVATE "libzstd")
  set(SOWDB_PC_LIBS_EXTRA "")
  set(SOWDB_PC_LIBS_PRIVATE "-lstdc++ -lm")
else()
  set(SOWDB_PC_REQUIRES "libzstd")
  set(SOWDB_PC_REQUIRES_PRIVATE "")
  set(SOWDB_PC_LIBS_EXTRA " -lstdc++ -lm")
  set(SOWDB_PC_LIBS_PRIVATE "")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/sowdb.pc.in ${CMAKE_CURRENT_BINARY_DIR}/sowdb.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/sowdb.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
