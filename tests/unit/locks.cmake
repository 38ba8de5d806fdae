# Unit tests of danausd's record-lock table (fsservice/core/locks.c).
danaus_unit_test(test_locks SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_locks.c
                 LIBS danaus_service)
