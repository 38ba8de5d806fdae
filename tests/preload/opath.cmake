# O_PATH descriptors on Danaus (fsservice/core/calls_fd.c, dispatch.c): cp with
# several sources opens its target directory O_PATH; Python's os.open shows
# what such a descriptor answers. Compared with a plain directory by
# test_preload_dir_compare.
set(DANAUS_OPATH_SCRIPT
  "cd \"$ROOT\" && mkdir d && echo a > a && echo b > b && cp a b d/ && ls d && /usr/bin/python3 -c \"
import os
def attempt(what, f):
    try:
        print(what, f())
    except OSError as e:
        print(what, e.strerror)
d = os.open('d', os.O_PATH | os.O_DIRECTORY)
attempt('fstat', lambda: oct(os.fstat(d).st_mode))
attempt('read', lambda: os.read(d, 1))
a = os.open('a', os.O_PATH)
attempt('fchmod', lambda: os.fchmod(a, 0o600))
attempt('stat a', lambda: os.stat('a').st_size)
attempt('dir fd', lambda: os.open('a', os.O_PATH | os.O_DIRECTORY))
\"")
add_test(NAME preload_opath COMMAND ${DANAUS_DIR_COMPARE} local -
  "${DANAUS_OPATH_SCRIPT}")
# test_preload_dir_compare mounts at one fixed mount point: these tests
# never run at the same time.
set_tests_properties(preload_opath PROPERTIES LABELS preload TIMEOUT 60
  RESOURCE_LOCK danaus-preload-dir)
danaus_ceph_test(preload_opath_ceph LABELS preload
  PROPERTIES TIMEOUT 120 RESOURCE_LOCK danaus-preload-dir
  COMMAND ${DANAUS_DIR_COMPARE} ceph ${DANAUS_CEPH_CONF}
    "${DANAUS_OPATH_SCRIPT}")
