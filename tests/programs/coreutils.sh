# coreutils.sh - cp -a, mv, rm -r, ls -l, find, du, stat, touch, ln -s,
# chmod, dd, tee and sort -o on a small tree, with their error messages.
. "$PROGRAMS_LIB"
export LC_ALL=C TZ=UTC

step mkdir -p src/sub/deep dst
shstep 'seq 1 20000 > src/numbers'
shstep 'printf "b\na\nc\nb\n" > src/letters'
shstep 'echo hello > src/sub/hello'
step touch -d '2021-02-03 04:05:06' src/sub/hello src/letters
step ln -s ../letters src/sub/to-letters
step ln -s nowhere src/dangling
step chmod 640 src/letters
step chmod 750 src/sub/deep
step dd if=src/numbers of=src/sub/deep/part bs=1000 skip=3 count=5 status=none
step dd if=src/numbers of=src/sub/deep/part bs=10 seek=7 count=2 conv=notrunc status=none
step dd if=/dev/zero of=src/zeros bs=4096 count=16 conv=fsync status=none
shstep 'echo tee-line | tee src/t1 src/t2 >/dev/null'
shstep 'echo more | tee -a src/t1'
step sort -o src/letters src/letters
step sort -u -o src/sorted src/letters src/sub/hello
step stat -c '%n %F %a %s %h %N' src/letters src/sub/hello src/sub/to-letters src/dangling
step stat -c '%n %y' src/sub/hello
step stat -L -c '%n %F %s' src/sub/to-letters
step ln src/t1 src/t1-hard
step stat -c '%n %h' src/t1 src/t1-hard
tree src

step cp -a src copy
step stat -c '%n %a %y' copy/sub/hello
step stat -c '%n %a' copy/letters
shstep 'test copy/letters -nt src/letters || test copy/letters -ot src/letters || echo same mtime'
step cmp src/numbers copy/numbers
step cp src/numbers src/sub/hello dst/
step cp -r src/sub dst/sub-copy
step mv copy/numbers copy/renamed
step mv copy/sub dst/moved-sub
step mv copy/t2 "$OUTSIDE/t2"
step mv "$OUTSIDE/t2" copy/t2-back
tree copy dst

shstep 'ls -l --time-style=+ src/sub src/letters | awk "/^total/ {next} /^d/ {print \$1, \$3, \$4, \$NF; next} {\$1 = \$1; print}"' 
shstep 'ls -la --time-style=+ src | awk "/^total/ {next} /^d/ {print \$1, \$3, \$4, \$NF; next} {\$1 = \$1; print}"'
step ls -R src
shstep 'ls -1 -S src | while read p; do [ -d "src/$p" ] || echo "$p"; done'
shstep "find src -name '*.txt' -o -type l -print | sort"
step find src -type f -newer src/letters -name 't*'
shstep 'find src -type f -size +10k | sort'
shstep 'find src -depth | sort'
shstep 'du -abl --apparent-size src | while read n p; do [ -d "$p" ] || echo "$n $p"; done | sort -k2'
step du -s --inodes src
shstep 'wc -l src/numbers; head -3 src/letters; tail -c 6 src/numbers'

# Error messages.
step cat missing
step rm src
step rmdir src
step mkdir src
step ln -s x src/dangling
step cp missing dst/
step mv missing dst/
step chmod 600 missing
step touch nodir/file
step dd if=missing of=x status=none
step ls missing
step stat missing

step rm -r copy dst/moved-sub
step rm -rf src/sub
step rm src/t1 src/dangling
tree .
