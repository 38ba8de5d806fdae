# protections.sh DIR - the kernel's protections as uid 65534 in DIR (made
# here, mode 0777), one line each: trusted.* and security.capability xattrs,
# setuid/setgid cleared by writes, O_TRUNC, truncate, ftruncate, chgrp and
# chown, and fs.protected_hardlinks. Run as root by creds.sh on a plain
# directory and through each door; the transcripts must be the same.
d=$1
py=/usr/bin/python3
as() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
mode() { stat -c %a "$d/f"; }
reset() {
    rm -f "$d/f"; echo data > "$d/f"
    chown 65534:65534 "$d/f"; chmod "${1:-6755}" "$d/f"
}
mkdir -p "$d" && chmod 777 "$d" || exit 1
reset
for n in trusted.x security.capability user.x; do
    as $py -c "
import os
try:
    os.setxattr('$d/f', '$n', b'\x01\x00\x00\x02' + bytes(16))
    print('setxattr $n: ok')
except OSError as e:
    print('setxattr $n:', e.strerror)"
done
reset; as sh -c "echo x >> '$d/f'"; echo "owner append: $(mode)"
reset; as sh -c "echo x > '$d/f'"; echo "owner O_TRUNC: $(mode)"
reset; as truncate -s 1 "$d/f"; echo "owner truncate: $(mode)"
reset; as $py -c "import os; os.ftruncate(os.open('$d/f', os.O_RDWR), 1)"
echo "owner ftruncate: $(mode)"
reset; as $py -c "import os; os.write(os.open('$d/f', os.O_WRONLY | os.O_APPEND), b'z')"
echo "owner O_APPEND write: $(mode)"
reset; as chgrp 65534 "$d/f"; echo "owner chgrp: $(mode)"
reset; chown 0 "$d/f"; echo "root chown: $(mode)"
reset; echo y >> "$d/f"; echo "root append: $(mode)"
reset; chown 0:0 "$d/f"; chmod 6777 "$d/f"; as sh -c "echo x >> '$d/f'"
echo "other append: $(mode)"
reset 2755; as sh -c "echo x >> '$d/f'"; echo "append, setgid g+x: $(mode)"
reset 2745; as sh -c "echo x >> '$d/f'"; echo "append, setgid g-x: $(mode)"
rm -f "$d/f" "$d/l"; echo s > "$d/f"; chmod 600 "$d/f"
echo "link of unreadable: $(as ln "$d/f" "$d/l" 2>&1 | sed 's/.*: //')"
touch "$d/l"
echo "link of unreadable onto existing: $(as ln "$d/f" "$d/l" 2>&1 | sed 's/.*: //')"
rm -f "$d/l"; chmod 666 "$d/f"
as ln "$d/f" "$d/l" && echo "link of read-write file: ok"
rm -f "$d/f" "$d/l"
echo s > "$d/f"; chmod 644 "$d/f"
/usr/bin/python3 -c "import os; os.setxattr('$d/f', 'trusted.t', b'v')"
as $py -c "
import os
try:
    print('other getxattr trusted.t:', os.getxattr('$d/f', 'trusted.t'))
except OSError as e:
    print('other getxattr trusted.t:', e.strerror)
print('other listxattr:', sorted(os.listxattr('$d/f')))"
echo "root listxattr: $($py -c "import os; print(sorted(os.listxattr('$d/f')))")"
rm -f "$d/f"
mkdir "$d/s"; chmod 1777 "$d/s"
as sh -c "echo a > '$d/s/a'"
other() { setpriv --reuid 65533 --regid 65533 --clear-groups "$@"; }
echo "sticky: other unlinks: $(other rm -f "$d/s/a" 2>&1 | sed 's/.*: //')"
echo "sticky: other renames over: $(other sh -c "echo b > '$d/s/b'; mv -f '$d/s/b' '$d/s/a'" 2>&1 | sed 's/.*: //')"
echo "sticky: owner unlinks: $(as rm -f "$d/s/a" 2>&1 | sed 's/.*: //')"
rm -rf "$d/s"
