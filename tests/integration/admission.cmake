# A pool's rate on its backend (issue 15): name-space changes and bytes
# written at the configured rate, cached calls never held.
add_executable(admission ${CMAKE_CURRENT_SOURCE_DIR}/integration/admission.c)
target_compile_definitions(admission PRIVATE _FILE_OFFSET_BITS=64)
target_link_libraries(admission PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
add_test(NAME admission COMMAND admission $<TARGET_FILE:danausd>)
set_tests_properties(admission PROPERTIES LABELS integration TIMEOUT 120)
