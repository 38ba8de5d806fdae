# O_PATH descriptors on Danaus (fsservice/calls_fd.c, dispatch.c): cp with
# several sources opens its target directory O_PATH; Python's os.open shows
# what such a descriptor answers. Compared with a plain directory by
# test_preload_dir_compare.
add_test(NAME preload_opath COMMAND ${DANAUS_DIR_COMPARE} local -
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
set_tests_properties(preload_opath PROPERTIES LABELS preload TIMEOUT 60)
