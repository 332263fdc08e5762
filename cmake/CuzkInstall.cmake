# Install rules: `make install` (PREFIX, DESTDIR) or `cmake --install build --prefix P`.
#   <prefix>/bin                     cuzkd, cuzk-bench
#   <prefix>/include/cuzk            the public headers (cuzk.h, err.h)
#   <prefix>/lib                     libcuzk.so (-> libcuzk.so.<CUZK_API_VERSION>), libcuzk.a,
#                                    pkgconfig/cuzk.pc
#   <prefix>/share/doc/cuzk          README.md, docs/*.md, spec/ (docs/spec/*.md),
#                                    examples/cuzk.toml, examples/prove_wpost.c
#   <prefix>/lib/systemd/system      cuzkd.service (paths of this install)
#   <prefix>/lib/sysusers.d          cuzk.conf (the service's user)
#   <sysconfdir>/cuzk/cuzk.toml      the example config, only when no such file exists yet;
#                                    upgrades and `make uninstall` leave it alone
# The service file and the config are placed at install time (cmake/install_dist.cmake), so
# that `--prefix` given to `cmake --install` is the one they name. <sysconfdir> is /etc for the
# prefixes /usr and /, else <prefix>/etc (as GNUInstallDirs decides). Every file but the config
# is listed in build/install_manifest.txt, which `make uninstall` reads (cmake/uninstall.cmake).
include(GNUInstallDirs)

foreach(tool cuzkd cuzk-bench)
    if(TARGET ${tool})
        install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    endif()
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/cuzk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# The library (src/api). cuzk.pc names its prefix relative to its own directory (pkg-config's
# ${pcfiledir}), so it holds wherever the tree is installed or staged.
if(TARGET cuzk)
    install(TARGETS cuzk LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
    install(FILES ${CMAKE_ARCHIVE_OUTPUT_DIRECTORY}/libcuzk.a DESTINATION ${CMAKE_INSTALL_LIBDIR})
    file(RELATIVE_PATH CUZK_PC_PREFIX_REL /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
    string(REGEX REPLACE "/$" "" CUZK_PC_PREFIX_REL "${CUZK_PC_PREFIX_REL}")
    configure_file(${CMAKE_SOURCE_DIR}/cmake/cuzk.pc.in ${CMAKE_BINARY_DIR}/cuzk.pc @ONLY)
    install(FILES ${CMAKE_BINARY_DIR}/cuzk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
    install(FILES ${CMAKE_SOURCE_DIR}/examples/prove_wpost.c
            DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
endif()
file(GLOB CUZK_DOCS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CUZK_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB CUZK_SPEC_DOCS ${CMAKE_SOURCE_DIR}/docs/spec/*.md)
install(FILES ${CUZK_SPEC_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/spec)
install(FILES ${CMAKE_SOURCE_DIR}/dist/cuzk.toml DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(CODE "set(CUZK_DIST_DIR \"${CMAKE_SOURCE_DIR}/dist\")
    set(CUZK_BUILD_DIR \"${CMAKE_BINARY_DIR}\")
    set(CUZK_BINDIR_REL \"${CMAKE_INSTALL_BINDIR}\")
    set(CUZK_DOCDIR_REL \"${CMAKE_INSTALL_DOCDIR}\")
    include(\"${CMAKE_SOURCE_DIR}/cmake/install_dist.cmake\")")

add_custom_target(uninstall
    COMMAND ${CMAKE_COMMAND} -DCUZK_MANIFEST=${CMAKE_BINARY_DIR}/install_manifest.txt
            -P ${CMAKE_SOURCE_DIR}/cmake/uninstall.cmake
    COMMENT "Removing the files of the last install (install_manifest.txt)")
