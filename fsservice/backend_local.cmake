# Local-directory backend: target danaus_backend_local.
add_library(danaus_backend_local STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/backend_local.c
  ${CMAKE_CURRENT_SOURCE_DIR}/local_cred.c
  ${CMAKE_CURRENT_SOURCE_DIR}/local_path.c)
target_link_libraries(danaus_backend_local PUBLIC Threads::Threads)
