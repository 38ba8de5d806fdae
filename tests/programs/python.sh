# python.sh - /usr/bin/python3 file I/O: open modes, os.walk,
# shutil.copytree/rmtree/move, tempfile, pathlib, os.scandir, errors, and
# the sqlite3 module.
. "$PROGRAMS_LIB"

cat > prog.py <<'PY'
import hashlib, os, shutil, sqlite3, stat, sys, tempfile
from pathlib import Path

def digest(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]

def show(top):
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs):
            st = os.lstat(os.path.join(root, name))
            print('dir ', os.path.join(root, name), oct(st.st_mode & 0o7777))
        for name in sorted(files):
            p = os.path.join(root, name)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                print('link', p, '->', os.readlink(p))
            else:
                print('file', p, oct(st.st_mode & 0o7777), st.st_size,
                      st.st_nlink, digest(p))

def fcntl_append(fd):
    import fcntl
    return bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND)

def attempt(what, fn):
    try:
        r = fn()
        print(what, 'ok', r if r is not None else '')
    except OSError as e:
        print(what, type(e).__name__, e.errno, e.strerror,
              os.path.basename(e.filename or ''))

os.makedirs('tree/a/b', exist_ok=True)
with open('tree/text.txt', 'w') as f:
    for i in range(5000):
        f.write(f'line {i}\n')
with open('tree/a/bin', 'wb') as f:
    f.write(bytes(range(256)) * 400)
with open('tree/a/bin', 'r+b') as f:
    f.seek(1000)
    f.write(b'XYZ')
    f.seek(0, os.SEEK_END)
    f.write(b'tail')
    f.truncate(90000)
with open('tree/text.txt', 'a') as f:
    f.write('appended\n')
with open('tree/text.txt') as f:
    lines = f.readlines()
print('lines', len(lines), lines[0].strip(), lines[-1].strip())
with open('tree/text.txt', 'rb') as f:
    f.seek(-9, os.SEEK_END)
    print('tail', f.read())
os.symlink('../text.txt', 'tree/a/link')
os.chmod('tree/a/bin', 0o640)
Path('tree/a/b/p.txt').write_text('pathlib\n')
print('glob', sorted(str(p) for p in Path('tree').rglob('*.txt')))
print('scandir', sorted((e.name, e.is_dir(), e.is_symlink())
                        for e in os.scandir('tree/a')))
show('tree')

shutil.copytree('tree', 'copy', symlinks=True)
shutil.copy2('tree/text.txt', 'copy/text2.txt')
shutil.move('copy/a/b', 'copy/moved')
os.replace('copy/text2.txt', 'copy/text3.txt')
os.rename('copy/text3.txt', 'copy/text4.txt')
show('copy')
print('same', digest('tree/a/bin') == digest('copy/a/bin'))
print('exists', os.path.exists('copy/a/link'), os.path.islink('copy/a/link'),
      os.path.realpath('copy/a/link') == os.path.realpath('copy/text.txt'))

with tempfile.NamedTemporaryFile(dir='.', prefix='tmp-', delete=False) as t:
    t.write(b'temporary')
    tname = t.name
print('tempfile', os.path.basename(tname).startswith('tmp-'),
      open(tname, 'rb').read())
os.unlink(tname)
d = tempfile.mkdtemp(dir='.')
with tempfile.TemporaryFile(dir=d) as t:
    t.write(b'anonymous')
    t.seek(0)
    print('TemporaryFile', t.read())
with tempfile.TemporaryDirectory(dir='.') as td:
    Path(td, 'x').write_text('x')
    print('TemporaryDirectory', os.listdir(td))
print('tempdirs left', sorted(os.listdir('.')) == sorted(['tree', 'copy', 'prog.py', os.path.basename(d)]))
os.rmdir(d)
print('cwd', os.getcwd() == os.environ['ROOT'])
os.chdir('tree/a')
print('relative', os.path.exists('../text.txt'), os.getcwd().endswith('tree/a'))
os.chdir(os.environ['ROOT'])

# libc's mkstemp and mkdtemp (git and many C programs use them) and
# sync_file_range (RocksDB) through ctypes and os.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.mkdtemp.restype = ctypes.c_char_p
tmpl = ctypes.create_string_buffer(b'tree/mkstemp-XXXXXX')
fd = libc.mkstemp(tmpl)
print('mkstemp', fd >= 0, tmpl.value[:13], len(tmpl.value))
os.write(fd, b'made by mkstemp')
print('mkstemp mode', oct(os.fstat(fd).st_mode & 0o777))
libc.sync_file_range.argtypes = [ctypes.c_int, ctypes.c_longlong,
                                 ctypes.c_longlong, ctypes.c_uint]
def sync_range(fd, offset, flags):
    if libc.sync_file_range(fd, offset, 0, flags) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
sync_range(fd, 0, 7)
attempt('sync_file_range bad flags', lambda: sync_range(fd, 0, 8))
attempt('sync_file_range negative', lambda: sync_range(fd, -1, 0))
os.close(fd)
attempt('sync_file_range closed', lambda: sync_range(fd, 0, 2))
attempt('sync_file_range closed wait', lambda: sync_range(fd, 0, 1))
print('mkstemp content', open(tmpl.value, 'rb').read())
os.unlink(tmpl.value)
bad = ctypes.create_string_buffer(b'tree/no-x')
print('mkstemp invalid', libc.mkstemp(bad), ctypes.get_errno(), bad.value)
dtmpl = ctypes.create_string_buffer(b'tree/a/dir-XXXXXX')
made = libc.mkdtemp(dtmpl)
print('mkdtemp', made[:11], oct(os.stat(made).st_mode & 0o777))
os.rmdir(made)
stmpl = ctypes.create_string_buffer(b'tree/s-XXXXXX.txt')
fd = libc.mkostemps(stmpl, 4, os.O_APPEND)
print('mkostemps', stmpl.value[:7], stmpl.value[-4:],
      os.get_blocking(fd), fcntl_append(fd))
os.close(fd)
os.unlink(stmpl.value)

attempt('open missing', lambda: open('missing'))
attempt('mkdir existing', lambda: os.mkdir('tree'))
attempt('rmdir non-empty', lambda: os.rmdir('tree'))
attempt('unlink dir', lambda: os.unlink('tree'))
attempt('open dir for write', lambda: open('tree', 'w'))
attempt('listdir file', lambda: os.listdir('tree/text.txt'))
attempt('rename missing', lambda: os.rename('missing', 'x'))
attempt('exclusive create', lambda: open('tree/text.txt', 'x'))
attempt('readlink file', lambda: os.readlink('tree/text.txt'))

db = sqlite3.connect('module.db', timeout=0.5)
db.execute('create table t (k integer primary key, v text)')
with db:
    db.executemany('insert into t values (?, ?)',
                   ((i, f'value {i}') for i in range(3000)))
with db:
    db.execute("update t set v = 'even' where k % 2 = 0")
print('sqlite3 rows', db.execute('select count(*), sum(k) from t').fetchone())
print('sqlite3 even', db.execute("select count(*) from t where v = 'even'").fetchone())
print('sqlite3 check', db.execute('pragma integrity_check').fetchone())
db.close()
db = sqlite3.connect('module.db', timeout=0.5)
print('sqlite3 reopen', db.execute('select v from t where k = 2999').fetchone())
db.close()

shutil.rmtree('copy')
print('after rmtree', sorted(os.listdir('.')))
PY

step /usr/bin/python3 prog.py
tree tree
