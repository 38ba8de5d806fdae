# Unit tests of the union libservice (fsservice/union*.c) over the local
# backend.
danaus_unit_test(test_union
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_union.c
  LIBS danaus_union danaus_backend_local)
set_tests_properties(test_union PROPERTIES LABELS "unit;union")
