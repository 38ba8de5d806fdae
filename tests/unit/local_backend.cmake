# Unit tests of the local-directory backend (fsservice/libservice/local/local.c).
danaus_unit_test(test_local_backend
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_local_backend.c
  LIBS danaus_backend_local)

# The per-thread identity switch against the kernel's view of the thread.
danaus_unit_test(test_local_cred
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_local_cred.c
  LIBS danaus_backend_local)
set_tests_properties(test_local_cred PROPERTIES LABELS "unit;creds"
  SKIP_RETURN_CODE 77)
