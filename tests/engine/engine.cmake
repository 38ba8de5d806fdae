# The container engine end to end (tests/engine/engine.sh): pools, a
# busybox-static image, containers, bad input. Needs root and /dev/fuse.
# Label "engine"; the ceph variant needs the ceph fixture.
add_test(NAME engine_local
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/engine.sh
    $<TARGET_FILE:danaus_engine> local)
set_tests_properties(engine_local PROPERTIES LABELS engine TIMEOUT 300
  RUN_SERIAL TRUE ENVIRONMENT DANAUS_WITH_CEPH=${DANAUS_WITH_CEPH})
danaus_ceph_test(engine_ceph LABELS engine
  PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/engine.sh
    $<TARGET_FILE:danaus_engine> ceph ${DANAUS_CEPH_CONF})
# Images from podman, skopeo and mmdebstrap (tests/engine/images.sh); the
# Debian tarball is cached in the build tree across runs.
add_test(NAME engine_images_local
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/images.sh
    $<TARGET_FILE:danaus_engine> local ${CMAKE_BINARY_DIR}/engine-image-cache)
set_tests_properties(engine_images_local PROPERTIES LABELS engine TIMEOUT 600
  RUN_SERIAL TRUE)
danaus_ceph_test(engine_images_ceph LABELS engine
  PROPERTIES TIMEOUT 900 RUN_SERIAL TRUE
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/images.sh
    $<TARGET_FILE:danaus_engine> ceph ${CMAKE_BINARY_DIR}/engine-image-cache
    ${DANAUS_CEPH_CONF})
# A hostile tenant against the container's confinement
# (tests/engine/confinement.sh, with the static attacker.c it builds).
add_test(NAME engine_confinement
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/confinement.sh
    $<TARGET_FILE:danaus_engine>)
set_tests_properties(engine_confinement PROPERTIES LABELS engine
  TIMEOUT 300 RUN_SERIAL TRUE)
# Containers on their pools' bridges against another pool's tenant, and
# ports published from the host (tests/engine/network.sh).
add_test(NAME engine_network
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/network.sh
    $<TARGET_FILE:danaus_engine>)
set_tests_properties(engine_network PROPERTIES LABELS engine
  TIMEOUT 300 RUN_SERIAL TRUE)
# Images and containers as an attacker writes them (issue 34): import
# refuses what it cannot trust; host users get nothing from the backend.
add_test(NAME engine_hostile_images
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/hostile_images.sh
    $<TARGET_FILE:danaus_engine>)
set_tests_properties(engine_hostile_images PROPERTIES LABELS engine
  TIMEOUT 300 RUN_SERIAL TRUE)
# danaus-runtime under podman (tests/engine/runtime.sh): podman run, exec,
# logs, stop, start, rm, pools by annotation, kills of the pool's danausd.
# Skipped (77) without podman or runc.
add_test(NAME engine_runtime
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/runtime.sh
    $<TARGET_FILE:danaus_runtime> $<TARGET_FILE:danaus_engine>)
set_tests_properties(engine_runtime PROPERTIES LABELS engine TIMEOUT 300
  RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
# The same in a pool on Ceph: the writable branch in Ceph, over podman's
# root in a host directory.
danaus_ceph_test(engine_runtime_ceph LABELS engine
  PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE SKIP_RETURN_CODE 77
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/runtime.sh
    $<TARGET_FILE:danaus_runtime> $<TARGET_FILE:danaus_engine>
    ${DANAUS_CEPH_CONF})
# danaus cp, and a container's links to host files (tests/engine/cp.sh).
add_test(NAME engine_cp
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/cp.sh $<TARGET_FILE:danaus_engine>)
set_tests_properties(engine_cp PROPERTIES LABELS engine TIMEOUT 300
  RUN_SERIAL TRUE)
danaus_ceph_test(engine_cp_ceph LABELS engine
  PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/cp.sh
    $<TARGET_FILE:danaus_engine> ${DANAUS_CEPH_CONF})
# A build without Ceph refuses a ceph backend (tests/engine/no_ceph.sh).
if(NOT DANAUS_WITH_CEPH)
  add_test(NAME engine_no_ceph
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/no_ceph.sh
      $<TARGET_FILE:danaus_engine> $<TARGET_FILE:danausd>)
  set_tests_properties(engine_no_ceph PROPERTIES LABELS engine TIMEOUT 60)
endif()
# danaus volume create, ls, rm, inspect (tests/engine/volume.sh).
add_test(NAME engine_volume
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/volume.sh
    $<TARGET_FILE:danaus_engine>)
set_tests_properties(engine_volume PROPERTIES LABELS engine TIMEOUT 300
  RUN_SERIAL TRUE)
# A pool whose FUSE door takes requests over io_uring
# (tests/engine/uring.sh); skipped (77) on a kernel without it.
add_test(NAME engine_uring
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/uring.sh
    $<TARGET_FILE:danaus_engine>)
set_tests_properties(engine_uring PROPERTIES LABELS engine TIMEOUT 180
  RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
# A run --rm container's root (danaus run, and podman run through
# danaus-runtime) takes syncs without the disk; kept containers and
# volumes reach it (tests/engine/volatile.sh).
add_test(NAME engine_volatile
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/engine/volatile.sh
    $<TARGET_FILE:danaus_engine> $<TARGET_FILE:danaus_runtime>)
set_tests_properties(engine_volatile PROPERTIES LABELS engine TIMEOUT 300
  RUN_SERIAL TRUE)
