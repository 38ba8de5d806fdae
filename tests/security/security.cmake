# Hostile clients against a real danausd (tests/security/attacks.c, issue
# 10): local backend, and Ceph with the `ceph` fixture. The fuzzer runs
# 30 s here; the bench-security-fuzz target runs it for 5 minutes.
add_executable(security_attacks
  ${CMAKE_CURRENT_SOURCE_DIR}/security/attacks.c
  ${CMAKE_CURRENT_SOURCE_DIR}/security/raw_client.c)
target_include_directories(security_attacks PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/integration)
target_link_libraries(security_attacks PRIVATE danaus_ipc danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
add_test(NAME security_local COMMAND security_attacks $<TARGET_FILE:danausd>)
set_tests_properties(security_local PROPERTIES LABELS security TIMEOUT 300)
# On a ThreadSanitizer build (tests/run.sh), the fairness tests: the cpu
# groups of long calls, a uid's shares (its handles and locks too, whose
# service takes most of a minute to stop under TSan: the harness waits
# longer there) and the floods, each test a service run under TSan with
# the suite's TSAN_OPTIONS.
if(DANAUS_SANITIZE STREQUAL "thread")
  add_test(NAME security_tsan_cpu_groups
           COMMAND security_attacks $<TARGET_FILE:danausd>)
  add_test(NAME security_tsan_uids
           COMMAND security_attacks $<TARGET_FILE:danausd>)
  add_test(NAME security_tsan_floods
           COMMAND security_attacks $<TARGET_FILE:danausd>)
  set_tests_properties(security_tsan_cpu_groups PROPERTIES LABELS tsan
    TIMEOUT 300 ENVIRONMENT "DANAUS_SECURITY_FILTER=*cpu_groups*")
  set_tests_properties(security_tsan_uids PROPERTIES LABELS tsan
    TIMEOUT 600 ENVIRONMENT "DANAUS_SECURITY_FILTER=*uid*")
  set_tests_properties(security_tsan_floods PROPERTIES LABELS tsan
    TIMEOUT 300 ENVIRONMENT "DANAUS_SECURITY_FILTER=*floods*")
endif()
danaus_ceph_test(security_ceph LABELS security PROPERTIES TIMEOUT 400
  COMMAND security_attacks $<TARGET_FILE:danausd> ceph ${DANAUS_CEPH_CONF})
add_custom_target(bench-security-fuzz
  COMMAND ${CMAKE_COMMAND} -E env DANAUS_FUZZ_SECONDS=300
          $<TARGET_FILE:security_attacks> $<TARGET_FILE:danausd>
  DEPENDS security_attacks danausd
  USES_TERMINAL)

# How much a flooding client slows another (tests/security/fairness.c): a
# benchmark that prints figures, run by hand or by bench-fairness, never by
# ctest.
add_executable(security_fairness
  ${CMAKE_CURRENT_SOURCE_DIR}/security/fairness.c
  ${CMAKE_CURRENT_SOURCE_DIR}/security/raw_client.c)
target_include_directories(security_fairness PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/integration)
target_link_libraries(security_fairness PRIVATE danaus danaus_ipc
  danaus_test_harness Threads::Threads)
add_custom_target(bench-fairness
  COMMAND $<TARGET_FILE:security_fairness> $<TARGET_FILE:danausd> 5
  DEPENDS security_fairness danausd
  USES_TERMINAL)

# The door's thread takes no mmap_lock as a writer while programs attach
# and detach (client.h, the spares thread): traced with the kernel's
# syscall events. Labelled preload too: it preloads libdanaus.so into cat,
# which the sanitizer builds cannot run.
add_executable(hello_burst
  ${CMAKE_CURRENT_SOURCE_DIR}/security/hello_burst.c
  ${CMAKE_CURRENT_SOURCE_DIR}/security/raw_client.c)
target_link_libraries(hello_burst PRIVATE danaus_ipc)
add_test(NAME security_door_mmap COMMAND
  ${CMAKE_CURRENT_SOURCE_DIR}/security/door-mmap.sh $<TARGET_FILE:danausd>
  $<TARGET_FILE:danaus> $<TARGET_FILE:hello_burst>)
set_tests_properties(security_door_mmap PROPERTIES
  LABELS "security;preload" TIMEOUT 120)
