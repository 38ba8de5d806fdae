# Safe initialisation: libdanaus's first user is another library's
# constructor, or an allocator (jemalloc) opening files inside its own first
# malloc. Outputs on a Danaus mount are compared with a plain directory by
# test_preload_dir_compare (dir.cmake).
add_library(init_probe SHARED ${CMAKE_CURRENT_SOURCE_DIR}/preload/init_probe.c)

set(DANAUS_JEMALLOC /usr/lib/x86_64-linux-gnu/libjemalloc.so.2)
add_test(NAME preload_init_constructor COMMAND ${DANAUS_DIR_COMPARE} local -
  "cd \"$ROOT\" && echo first-line > f && LD_PRELOAD=\"$LD_PRELOAD $<TARGET_FILE:init_probe>\" PROBE_FILE=\"$ROOT/f\" cat f")
add_test(NAME preload_init_jemalloc COMMAND ${DANAUS_DIR_COMPARE} local -
  "cd \"$ROOT\" && echo hello > f && LD_PRELOAD=\"$LD_PRELOAD ${DANAUS_JEMALLOC}\" sh -c 'cat f; echo more >> f; ls; cat f; sort -o s f; cat s'")
set_tests_properties(preload_init_constructor preload_init_jemalloc
  PROPERTIES LABELS preload TIMEOUT 120)

# test_preload_dir_compare mounts at one fixed mount point: these tests
# never run at the same time.
set_property(TEST preload_init_constructor preload_init_jemalloc
             APPEND PROPERTY RESOURCE_LOCK danaus-preload-dir)
