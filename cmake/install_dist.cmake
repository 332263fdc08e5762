# Install-time part of cmake/CuzkInstall.cmake (runs inside cmake_install.cmake, where
# CMAKE_INSTALL_PREFIX is the prefix of this install): the systemd unit and sysusers file with
# this install's paths, and the example config when none is in place.
# In: CUZK_DIST_DIR, CUZK_BUILD_DIR, CUZK_BINDIR_REL, CUZK_DOCDIR_REL.
set(prefix "${CMAKE_INSTALL_PREFIX}")
if(prefix STREQUAL "/" OR prefix STREQUAL "/usr")
    set(CUZK_SYSCONFDIR "/etc")
else()
    set(CUZK_SYSCONFDIR "${prefix}/etc")
endif()
string(REGEX REPLACE "/$" "" prefix "${prefix}")
set(CUZK_BINDIR "${prefix}/${CUZK_BINDIR_REL}")
set(CUZK_DOCDIR "${prefix}/${CUZK_DOCDIR_REL}")
set(CUZK_SYSUSERSDIR "${prefix}/lib/sysusers.d")
set(unitdir "${prefix}/lib/systemd/system")

set(gen "${CUZK_BUILD_DIR}/dist")
file(MAKE_DIRECTORY "${gen}")
configure_file("${CUZK_DIST_DIR}/cuzkd.service.in" "${gen}/cuzkd.service" @ONLY)
file(INSTALL DESTINATION "${unitdir}" TYPE FILE FILES "${gen}/cuzkd.service")
file(INSTALL DESTINATION "${CUZK_SYSUSERSDIR}" TYPE FILE RENAME cuzk.conf
     FILES "${CUZK_DIST_DIR}/cuzk.sysusers")

# The config belongs to the operator once installed: never overwritten, never listed in the
# manifest (so never uninstalled).
set(conf "$ENV{DESTDIR}${CUZK_SYSCONFDIR}/cuzk/cuzk.toml")
if(EXISTS "${conf}")
    message(STATUS "Keeping: ${conf} (the example is in ${CUZK_DOCDIR}/examples)")
else()
    file(MAKE_DIRECTORY "$ENV{DESTDIR}${CUZK_SYSCONFDIR}/cuzk")
    file(COPY_FILE "${CUZK_DIST_DIR}/cuzk.toml" "${conf}")
    message(STATUS "Installing: ${conf} (kept by upgrades and uninstall)")
endif()
