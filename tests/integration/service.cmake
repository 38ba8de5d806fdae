# Service-level behaviour users rely on (tests/integration/service_*.c):
# each test program starts its own danausd instances.
foreach(t service_lifecycle service_clients)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/integration/${t}.c)
  target_link_libraries(${t} PRIVATE danaus danaus_test_harness
    PkgConfig::CMOCKA Threads::Threads)
  add_test(NAME ${t} COMMAND ${t} $<TARGET_FILE:danausd>)
  set_tests_properties(${t} PROPERTIES LABELS integration TIMEOUT 180)
endforeach()
