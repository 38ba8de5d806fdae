# Faults (issue 11): a service killed and restarted, a backend that stops
# answering. Each test program starts its own danausd instances.
if(DANAUS_WITH_CEPH)
  add_executable(service_restart_ceph
    ${CMAKE_CURRENT_SOURCE_DIR}/integration/service_restart_ceph.c)
  target_link_libraries(service_restart_ceph PRIVATE danaus
    danaus_test_harness PkgConfig::CMOCKA Threads::Threads)
  danaus_ceph_test(service_restart_ceph LABELS integration
    PROPERTIES TIMEOUT 180
    COMMAND service_restart_ceph $<TARGET_FILE:danausd> ${DANAUS_CEPH_CONF})
endif()

# danausd_stuck: danausd whose local instances of root $DANAUS_STUCK_ROOT
# block every mkdir forever (stuck_shim.c, a shim registered as "local"),
# for service_stuck; test build only.
add_executable(danausd_stuck ${CMAKE_SOURCE_DIR}/fsservice/main.c
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/stuck_shim.c)
target_link_libraries(danausd_stuck PRIVATE danaus_service)

add_executable(service_stuck
  ${CMAKE_CURRENT_SOURCE_DIR}/integration/service_stuck.c
  ${CMAKE_CURRENT_SOURCE_DIR}/security/raw_client.c)
target_include_directories(service_stuck PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/security)
target_link_libraries(service_stuck PRIVATE danaus danaus_ipc
  danaus_test_harness PkgConfig::CMOCKA Threads::Threads)
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
danaus_ceph_test(restart_programs_ceph LABELS integration preload
  PROPERTIES TIMEOUT 300
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/restart_programs.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> ceph ${DANAUS_CEPH_CONF})
# ceph_full: the cluster filled through a service; deletes, mkdir and
# reads go on. Alone, since it fills the cluster every test shares.
danaus_ceph_test(ceph_full LABELS integration preload
  PROPERTIES RUN_SERIAL TRUE TIMEOUT 300
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/ceph_full.sh
    $<TARGET_FILE:danausd> $<TARGET_FILE:danaus> ${DANAUS_CEPH_CONF})
