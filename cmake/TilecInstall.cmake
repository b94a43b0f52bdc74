# Install rules: the two tools, the CMake package and the docs. The prefix
# is relocatable: nothing installed names it (the package finds tilec next
# to itself, tilec finds CUDA/ROCm at run time, see Toolchain.h), and the
# only RPATH entries are LLVM 22's library folder, outside the prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILEC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/tilec")

# libLLVM/libMLIR live in LLVM 22's lib/, which is not on the loader's
# default path: keep it in the installed tools' RPATH.
set_target_properties(tilec tilec-opt PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
install(TARGETS tilec tilec-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tilec-header)
  set_target_properties(tilec-header PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  install(TARGETS tilec-header RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# tilecConfig.cmake reaches the prefix from its own folder.
file(RELATIVE_PATH TILEC_CONFIG_TO_PREFIX
     "/prefix/${TILEC_INSTALL_CMAKEDIR}" "/prefix")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/tilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_INSTALL_CMAKEDIR}
  NO_SET_AND_CHECK_MACRO NO_CHECK_REQUIRED_COMPONENTS_MACRO)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/tilecConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/tilecConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/tilecConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/tilecAddKernel.cmake
  DESTINATION ${TILEC_INSTALL_CMAKEDIR})

install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")
