# Test firmware ELFs for photon_cli_tests (fault reports, watchdog, GDB Ctrl-C): one build of
# faults.c per fault, into build/test-firmware/.
set(fault_names illegal rom_store unmapped unmapped_register spin timer)
set(i 1)
set(fault_targets "")
foreach(n ${fault_names})
  photon_rv32_firmware(test_fw_${n} ${CMAKE_BINARY_DIR}/test-firmware/fw_${n}.elf
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/faults.c DEFINES FAULT=${i})
  list(APPEND fault_targets test_fw_${n})
  math(EXPR i "${i} + 1")
endforeach()
if(TARGET photon_cli_tests)
  add_dependencies(photon_cli_tests ${fault_targets})
endif()
