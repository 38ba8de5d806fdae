# Unit tests of the local-directory backend (fsservice/libservice/local/local.c).
danaus_unit_test(test_local_backend
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_local_backend.c
  LIBS danaus_backend_local)
