# Faults (issue 11): a service killed and restarted, a backend that stops
# answering. Each test program starts its own danausd instances.
add_executable(service_restart_ceph
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/service_restart_ceph.c)
target_link_libraries(service_restart_ceph PRIVATE danaus
  danaus_test_harness PkgConfig::CMOCKA Threads::Threads)
add_test(NAME service_restart_ceph COMMAND service_restart_ceph
  $<TARGET_FILE:danausd> ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(service_restart_ceph PROPERTIES
  LABELS "integration;ceph" FIXTURES_REQUIRED ceph TIMEOUT 180)

# danausd_stuck: danausd whose local instances of root $DANAUS_STUCK_ROOT
# block every mkdir forever (stuck_shim.c, a shim registered as "local"),
# for service_stuck; test build only.
add_executable(danausd_stuck ${CMAKE_SOURCE_DIR}/fsservice/main.c
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/stuck_shim.c)
target_link_libraries(danausd_stuck PRIVATE danaus_service)

add_executable(service_stuck
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/service_stuck.c)
target_link_libraries(service_stuck PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
add_test(NAME service_stuck COMMAND service_stuck
  $<TARGET_FILE:danausd_stuck>)
set_tests_properties(service_stuck PROPERTIES LABELS integration TIMEOUT 120)

# service_resume: a preloaded program lives through SIGKILL and restart of
# its service (libfs/resume.h).
add_executable(service_resume
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/service_resume.c)
target_link_libraries(service_resume PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
add_test(NAME service_resume COMMAND service_resume
  $<TARGET_FILE:danausd> $<TARGET_FILE:danausd_stuck>)
set_tests_properties(service_resume PROPERTIES LABELS integration TIMEOUT 120)

# restart_programs: tar, db_bench and fsync'd records under LD_PRELOAD while
# danausd is killed and started again three times.
add_test(NAME restart_programs_local
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/restart_programs.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> local -)
set_tests_properties(restart_programs_local PROPERTIES
  LABELS "integration;preload" TIMEOUT 300)
# restart_new_programs: programs that start while danausd is killed and
# started again, 40 times.
add_test(NAME restart_new_programs
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/restart_new_programs.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
set_tests_properties(restart_new_programs PROPERTIES
  LABELS "integration;preload" TIMEOUT 300)
add_test(NAME restart_programs_ceph
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/restart_programs.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> ceph
    ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(restart_programs_ceph PROPERTIES
  LABELS "integration;preload;ceph" FIXTURES_REQUIRED ceph TIMEOUT 300)
# ceph_full: the cluster filled through a service; deletes, mkdir and
# reads go on. Alone, since it fills the cluster every test shares.
add_test(NAME ceph_full
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/ceph_full.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>
    ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
set_tests_properties(ceph_full PROPERTIES
  LABELS "integration;preload;ceph" FIXTURES_REQUIRED ceph RUN_SERIAL TRUE
  TIMEOUT 300)
