# Large writes in pieces (issue 12): every byte of writes of any size and
# iovec layout, also when the application's pages come in late.
add_executable(write_pieces ${CMAKE_CURRENT_SOURCE_DIR}/integration/write_pieces.c)
target_compile_definitions(write_pieces PRIVATE _FILE_OFFSET_BITS=64)
target_link_libraries(write_pieces PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
add_test(NAME write_pieces COMMAND write_pieces $<TARGET_FILE:danausd>)
set_tests_properties(write_pieces PROPERTIES LABELS integration TIMEOUT 120)
