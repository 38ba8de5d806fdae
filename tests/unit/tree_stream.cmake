# The receiving end of danaus cp (engine/tree_stream.c) against a sender
# that forges its records.
danaus_unit_test(test_tree_stream
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tree_stream.c
                 LIBS danaus_engine_lib)
# The tar end of danaus cp (engine/tar_stream.c) against a container's
# side that forges its records, and an honest one read back by tar(1).
danaus_unit_test(test_tar_stream
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tar_stream.c
                 LIBS danaus_engine_lib)
