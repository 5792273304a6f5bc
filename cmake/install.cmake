# `cmake --install build/native --prefix P` gives P/include/tracelab/tracelab.h, P/lib/libtracelab.a and a
# package config, so that find_package(tracelab CONFIG) yields the target tracelab::core.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tracelab_core EXPORT tracelabTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY core/include/tracelab DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/tracelab/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tracelab)
install(EXPORT tracelabTargets NAMESPACE tracelab:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tracelab)
configure_package_config_file(cmake/tracelabConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tracelabConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tracelab)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tracelabConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tracelabConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tracelabConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tracelab)
