# exec_chain.sh - the current directory, descriptors and umask survive every
# chain of exec, with or without fork between them: programs that exec
# another (env, nice, timeout, a #!/usr/bin/env script), exec after exec,
# system(), popen(), posix_spawn() and Python's subprocess (vfork). Each
# chain creates a file by a relative name and appends a line to an
# inherited descriptor; a lost cwd puts the file elsewhere, a lost
# descriptor loses the line.
. "$PROGRAMS_LIB"
export LC_ALL=C

mkdir d
cd d || exit 1
exec 3>> log
umask 027
step env touch env1
step env env nice touch env2
step nice -n 1 touch nice1
step timeout 5 touch timeout1
step sh -c 'exec env touch exec-exec'
step env sh -c 'env touch env-sh-env; echo env-sh-env >&3'
step env bash -c '(echo subshell1 >&3); (echo subshell2 >&3); env touch bash1'
step timeout 5 sh -c 'echo timeout-sh >&3'
step env /bin/pwd
step env sh -c 'echo "umask $(umask)"'
cat > script <<'SCRIPT'
#!/usr/bin/env sh
touch by-script
echo script >&3
SCRIPT
chmod +x script
step ./script
step env ./script
python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None)
libc.popen.restype = ctypes.c_void_p
libc.pclose.argtypes = [ctypes.c_void_p]
print("system", os.system("touch by-system; echo system >&3") >> 8)
f = libc.popen(b"touch by-popen; echo popen >&3", b"r")
print("popen", libc.pclose(f) >> 8)
pid = os.posix_spawnp("env", ["env", "sh", "-c",
                      "touch by-spawn; echo spawn >&3"], os.environ)
print("posix_spawn", os.waitpid(pid, 0)[1] >> 8)
import subprocess  # vfork and exec in the child, where Python can
print("subprocess", subprocess.run(["sh", "-c",
      "touch by-subprocess; echo subprocess >&3"], close_fds=False).returncode)
PY
exec 3>&-
step cat log
cd .. || exit 1
tree d
