# The preload's name and attribute cache (libfs/namecache.h) stays
# coherent with changes made by other processes, through either door.
add_executable(namecache_probe
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/namecache_probe.c)
add_test(NAME preload_name_cache_local COMMAND
  ${CMAKE_CURRENT_SOURCE_DIR}/preload/name-cache.sh $<TARGET_FILE:danausd>
  $<TARGET_FILE:danaus> $<TARGET_FILE:namecache_probe>)
set_tests_properties(preload_name_cache_local PROPERTIES
  LABELS preload TIMEOUT 180)
