# `make uninstall`: removes every file listed in the manifest of the last install
# (cmake -DCUZK_MANIFEST=build/install_manifest.txt -P cmake/uninstall.cmake), then the
# directories of ours left empty. The manifest names the paths without DESTDIR: give the same
# DESTDIR (environment) as to the install. The config in <sysconfdir>/cuzk is not in the manifest and
# stays.
if(NOT EXISTS "${CUZK_MANIFEST}")
    message(FATAL_ERROR "no install manifest at ${CUZK_MANIFEST}: nothing was installed from "
                        "this build directory")
endif()
file(STRINGS "${CUZK_MANIFEST}" files)
set(dirs "")
foreach(f IN LISTS files)
    set(f "$ENV{DESTDIR}${f}")
    if(EXISTS "${f}" OR IS_SYMLINK "${f}")
        message(STATUS "Removing: ${f}")
        file(REMOVE "${f}")
    endif()
    get_filename_component(d "${f}" DIRECTORY)
    list(APPEND dirs "${d}")
endforeach()
# Directories named after us (include/cuzk, share/doc/cuzk, .../examples) go when empty.
list(REMOVE_DUPLICATES dirs)
list(SORT dirs ORDER DESCENDING) # children before parents
foreach(d IN LISTS dirs)
    if(d MATCHES "/cuzk(/examples)?$" AND IS_DIRECTORY "${d}")
        file(GLOB left "${d}/*")
        if(NOT left)
            file(REMOVE_RECURSE "${d}")
            message(STATUS "Removing: ${d}/")
        endif()
    endif()
endforeach()
