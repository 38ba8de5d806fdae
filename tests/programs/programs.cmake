# Real programs under LD_PRELOAD (issue "Proof with real programs"): each
# scenario script in tests/programs runs on a plain directory and on a
# Danaus mount (tests/programs/run-scenario.sh), transcripts compared. One
# ctest per program family and backend, label "programs". They all mount
# the FUSE door at /danaus-programs, so they never run at the same time.
set(DANAUS_PROGRAMS coreutils tar shell python sqlite git db_bench
  exec_chain)
set(DANAUS_PROGRAMS_DRIVER ${CMAKE_CURRENT_SOURCE_DIR}/programs/run-scenario.sh)

foreach(program ${DANAUS_PROGRAMS})
  set(script ${CMAKE_CURRENT_SOURCE_DIR}/programs/${program}.sh)
  add_test(NAME programs_${program}_local
    COMMAND ${DANAUS_PROGRAMS_DRIVER} $<TARGET_FILE:danausd>
      $<TARGET_FILE:danaus> local - ${script})
  set_tests_properties(programs_${program}_local PROPERTIES
    LABELS programs TIMEOUT 180 RESOURCE_LOCK danaus-programs-mount)
  danaus_ceph_test(programs_${program}_ceph LABELS programs
    PROPERTIES TIMEOUT 300 RESOURCE_LOCK danaus-programs-mount
    COMMAND ${DANAUS_PROGRAMS_DRIVER} $<TARGET_FILE:danausd>
      $<TARGET_FILE:danaus> ceph ${DANAUS_CEPH_CONF} ${script})
endforeach()
