include(CMakePackageConfigHelpers)

# Installed under the names the build tree's aliases use: kiln::framework, kiln::engine, ...
foreach(folder ${KILN_LIBRARY_FOLDERS})
  set_target_properties(kiln_${folder} PROPERTIES EXPORT_NAME ${folder})
endforeach()
install(TARGETS kiln kiln_framework kiln_layers kiln_losses kiln_optimizers kiln_datasets
                kiln_engine kiln_training kiln_configs
        EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Headers keep the source layout under kiln/: #include <kiln/framework/ops/ops.h>.
foreach(folder ${KILN_LIBRARY_FOLDERS})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/${folder} FILES_MATCHING PATTERN "*.h")
endforeach()
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/kilnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
