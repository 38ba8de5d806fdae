# Faults (issue 11): a service killed and restarted, a backend that stops
# answering. Each test program starts its own danausd instances.
if(TARGET danaus_backend_ceph)
  add_executable(service_restart_ceph
    ${CMAKE_CURRENT_SOURCE_DIR}/integration/service_restart_ceph.c)
  target_link_libraries(service_restart_ceph PRIVATE danaus
    danaus_test_harness PkgConfig::CMOCKA Threads::Threads)
  add_test(NAME service_restart_ceph COMMAND service_restart_ceph
    $<TARGET_FILE:danausd> ${CMAKE_BINARY_DIR}/ceph-cluster/ceph.conf)
  set_tests_properties(service_restart_ceph PROPERTIES
    LABELS "integration;ceph" FIXTURES_REQUIRED ceph TIMEOUT 180)
endif()
