# danausd keeps to the cpus it is given (issue 18): every thread's affinity
# under taskset, in a cgroup cpuset, with `cpus` in its configuration, and
# after its cpus were taken away; a `cpus` outside them refused. Label
# "cpuset"; one test per backend, the Ceph one for libcephfs's threads.
set(DANAUS_CPUSET_TEST ${CMAKE_CURRENT_SOURCE_DIR}/cpuset/affinity.sh
  $<TARGET_FILE:danausd> $<TARGET_FILE:danaus>)
add_test(NAME cpuset_affinity_local COMMAND ${DANAUS_CPUSET_TEST} local -)
set_tests_properties(cpuset_affinity_local PROPERTIES
  LABELS cpuset TIMEOUT 120 SKIP_RETURN_CODE 77)
danaus_ceph_test(cpuset_affinity_ceph LABELS cpuset
  PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77
  COMMAND ${DANAUS_CPUSET_TEST} ceph ${DANAUS_CEPH_CONF})
