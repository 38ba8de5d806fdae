# The receiving end of danaus cp (engine/tree_stream.c) against a sender
# that forges its records.
danaus_unit_test(test_tree_stream
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tree_stream.c
                 LIBS danaus_engine_lib)
