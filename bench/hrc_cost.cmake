# hrc-cost: the hit-ratio estimator's cpu time per page read, alone.
add_executable(hrc-cost ${CMAKE_CURRENT_LIST_DIR}/hrc_cost.c)
target_link_libraries(hrc-cost PRIVATE danaus_core)
