# Shared build helpers: warnings, module libraries, tests and benchmarks.

set(CUZK_C_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wvla -Wcast-align -Wformat=2)
if(CUZK_WERROR)
    list(APPEND CUZK_C_WARNINGS -Werror)
endif()

# __FILE__ relative to the source tree ("src/groth16/params.c"), so that diagnostics (cz_fail,
# CZ_CHECK) name the file without the build machine's directory. Only the macro is remapped
# (-fmacro-prefix-map, not -ffile-prefix-map): debug information keeps absolute paths, so a
# debugger finds the sources without being told where they are. CUDA passes it to the host
# compiler, which preprocesses .cu files for nvcc.
function(cuzk_relative_file_macro)
    include(CheckCCompilerFlag)
    set(flag "-fmacro-prefix-map=${CMAKE_SOURCE_DIR}/=")
    check_c_compiler_flag("${flag}" CUZK_HAVE_MACRO_PREFIX_MAP)
    if(NOT CUZK_HAVE_MACRO_PREFIX_MAP)
        return()
    endif()
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:${flag}>)
    if(CUZK_HAVE_CUDA)
        add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${flag}>)
    endif()
endfunction()

# Flags every C target gets.
function(cuzk_target_defaults target)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${CUZK_C_WARNINGS}>)
    if(CUZK_WERROR)
        # The C++ shims choose their own warnings; CUDA code has --Werror=all-warnings always.
        target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
    endif()
    target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/src
                                                ${CMAKE_SOURCE_DIR}/include)
    if(CUZK_SANITIZE)
        # Every finding stops the program (UBSan would otherwise report and carry on, and the
        # test would still pass).
        target_compile_options(${target} PRIVATE -fsanitize=${CUZK_SANITIZE}
                                                 -fno-sanitize-recover=all -fno-omit-frame-pointer)
        target_link_options(${target} PUBLIC -fsanitize=${CUZK_SANITIZE})
    endif()
endfunction()

# cuzk_add_module(NAME SOURCES ... DEPS ...): one static library per src/ directory.
# DEPS states the layer graph; an upward dependency then fails to link.
function(cuzk_add_module name)
    cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
    add_library(cuzk_${name} STATIC ${M_SOURCES})
    cuzk_target_defaults(cuzk_${name})
    set_target_properties(cuzk_${name} PROPERTIES C_VISIBILITY_PRESET hidden)
    if(CUZK_VERIFY)
        target_compile_definitions(cuzk_${name} PRIVATE CUZK_VERIFY=1)
    endif()
    target_link_libraries(cuzk_${name} PUBLIC ${M_DEPS})
endfunction()

# cuzk_add_twin_module(NAME SOURCES ... DEPS ... GPU real EMU emulated): a module whose objects
# do not depend on the GPU backend, compiled once (cuzk_<name>_obj) and archived twice:
# cuzk_<name> over `real` and cuzk_<name>_emu over `emulated` (tests only, not built by default).
function(cuzk_add_twin_module name)
    cmake_parse_arguments(M "" "GPU;EMU" "SOURCES;DEPS" ${ARGN})
    add_library(cuzk_${name}_obj OBJECT ${M_SOURCES})
    cuzk_target_defaults(cuzk_${name}_obj)
    set_target_properties(cuzk_${name}_obj PROPERTIES C_VISIBILITY_PRESET hidden)
    if(CUZK_VERIFY)
        target_compile_definitions(cuzk_${name}_obj PRIVATE CUZK_VERIFY=1)
    endif()
    target_link_libraries(cuzk_${name}_obj PUBLIC ${M_DEPS})
    add_library(cuzk_${name} STATIC $<TARGET_OBJECTS:cuzk_${name}_obj>)
    cuzk_target_defaults(cuzk_${name})
    target_link_libraries(cuzk_${name} PUBLIC ${M_GPU} ${M_DEPS})
    add_library(cuzk_${name}_emu STATIC EXCLUDE_FROM_ALL $<TARGET_OBJECTS:cuzk_${name}_obj>)
    cuzk_target_defaults(cuzk_${name}_emu)
    target_link_libraries(cuzk_${name}_emu PUBLIC ${M_EMU} ${M_DEPS})
endfunction()

# cuzk_add_test(NAME SOURCES ... LIBS ... LABELS ... [TIMEOUT s] [ARGS ...]):
# a CUZK_VERIFY test executable registered with CTest; exit code 77 means "skipped".
function(cuzk_add_test name)
    cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
    add_executable(${name} ${T_SOURCES} ${CMAKE_SOURCE_DIR}/tests/harness/test.c)
    cuzk_target_defaults(${name})
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
    target_compile_definitions(${name} PRIVATE CUZK_VERIFY=1
        CUZK_SOURCE_DIR="${CMAKE_SOURCE_DIR}" CUZK_BINARY_DIR="${CMAKE_BINARY_DIR}")
    target_link_libraries(${name} PRIVATE ${T_LIBS} Threads::Threads m)
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
    if(NOT T_LABELS)
        set(T_LABELS unit)
    endif()
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 600)
    endif()
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" SKIP_RETURN_CODE 77
                                            TIMEOUT ${T_TIMEOUT})
endfunction()

# cuzk_add_bench(NAME SOURCES ... LIBS ...): a benchmark executable in build/bin.
function(cuzk_add_bench name)
    cmake_parse_arguments(B "" "" "SOURCES;LIBS" ${ARGN})
    add_executable(${name} ${B_SOURCES} ${CMAKE_SOURCE_DIR}/bench/bench.c)
    cuzk_target_defaults(${name})
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/bench)
    target_link_libraries(${name} PRIVATE ${B_LIBS} Threads::Threads m)
endfunction()
