# Write-back (issue 41, item 1): small writes kept in the client's area,
# seen by the writer, written for another opener, a killed writer, and
# through a killed and restarted danausd; local backend, plain and under
# a union (a container's root), and with a keeper that holds the pages
# over a kill (kept).
add_executable(writeback ${CMAKE_CURRENT_SOURCE_DIR}/integration/writeback.c)
target_compile_definitions(writeback PRIVATE _FILE_OFFSET_BITS=64)
target_link_libraries(writeback PRIVATE danaus danaus_test_harness
  PkgConfig::CMOCKA Threads::Threads)
foreach(mode local union kept)
  add_test(NAME writeback_${mode}
    COMMAND writeback $<TARGET_FILE:danausd> ${mode})
  set_tests_properties(writeback_${mode} PROPERTIES
    LABELS integration TIMEOUT 240)
endforeach()
