# fallocate modes through the preload and the FUSE door against ext4, and
# in a union's partial copy-up (issue 38 item 3): fallocate.sh with
# fallocate_probe, on the local backend (ext4 is the reference).
add_executable(fallocate_probe
  ${CMAKE_CURRENT_SOURCE_DIR}/conformance/fallocate_probe.c)
add_test(NAME fallocate_local
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/fallocate.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>
    $<TARGET_FILE:fallocate_probe>)
set_tests_properties(fallocate_local PROPERTIES
  LABELS "conformance;fuse;union" TIMEOUT 120)
