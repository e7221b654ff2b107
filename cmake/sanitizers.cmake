# Instrumented builds, each in a build directory of its own (docs/fuzzing.md):
#
#   -DPHOTON_SANITIZE=ON   AddressSanitizer + UndefinedBehaviorSanitizer for the whole test suite
#                          (GCC or Clang); .ci/run builds build-asan this way and runs ctest there
#                          with tests/sanitizers/ (options and suppressions, each with its reason).
#   -DPHOTON_FUZZ=ON       Clang only: the same sanitizers plus libFuzzer's coverage
#                          instrumentation; the `fuzzers` target builds one libFuzzer binary per
#                          reader (fuzz/CMakeLists.txt); bench/fuzz.sh builds and runs them.
option(PHOTON_SANITIZE "build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(PHOTON_FUZZ "build the libFuzzer harnesses (Clang; implies the sanitizers)" OFF)

if(PHOTON_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "PHOTON_FUZZ needs Clang (libFuzzer): configure with "
                      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++")
endif()

if(PHOTON_SANITIZE OR PHOTON_FUZZ)
  # -fno-sanitize-recover: the first UB report ends the process, so a finding fails its test.
  set(PHOTON_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                             -fno-omit-frame-pointer -g1)  # -g1: line tables for the reports
  if(PHOTON_FUZZ)
    list(APPEND PHOTON_SANITIZER_FLAGS -fsanitize=fuzzer-no-link)
  endif()
  # No use-after-scope poisoning: SystemC runs each SC_THREAD on a coroutine stack of its own,
  # which ASan cannot follow; an exception thrown after a simulation then unwinds frames whose
  # scope poisoning ASan does not clear ("ignoring requested __asan_handle_no_return"), and later
  # calls on those bytes are reported as stack-use-after-scope that is no Photon memory error.
  if(PHOTON_SANITIZE)
    list(APPEND PHOTON_SANITIZER_FLAGS -fno-sanitize-address-use-after-scope)
  endif()
  add_compile_options(${PHOTON_SANITIZER_FLAGS})
  add_link_options(-fsanitize=address,undefined)
  # With any -fsanitize flag Debian's GCC leaves --as-needed out of its link spec; libsystemc then
  # stays a needed library of executables that never use it, and its main() wants an sc_main.
  add_link_options(LINKER:--as-needed)
endif()
