# tar.sh - tar create and extract: plain, gzip through a pipe and through
# tar's own -z (a child gzip), listings, extraction over existing files.
. "$PROGRAMS_LIB"
export LC_ALL=C TZ=UTC

step mkdir -p tree/a/b tree/c out1 out2 out3
shstep 'seq 1 30000 > tree/a/numbers'
shstep 'for i in 1 2 3 4 5 6 7 8; do echo "file $i" > tree/c/f$i; done'
shstep 'head -c 200000 /dev/zero | tr "\0" x > tree/a/b/xs'
step ln -s ../c/f1 tree/a/link
step ln tree/c/f2 tree/c/f2-hard
step chmod 600 tree/c/f3
step touch -d '2020-05-06 07:08:09' tree tree/a tree/a/b tree/c tree/a/numbers tree/a/b/xs tree/c/f1 tree/c/f2 tree/c/f3 tree/c/f4 tree/c/f5 tree/c/f6 tree/c/f7 tree/c/f8
step touch -h -d '2020-05-06 07:08:09' tree/a/link

# A reproducible archive: its checksum is comparable.
TARFLAGS='--sort=name --owner=0 --group=0 --numeric-owner --format=gnu'
step tar $TARFLAGS -cf plain.tar tree
sum plain.tar
shstep "tar $TARFLAGS -cf - tree | gzip -n -1 > piped.tgz"
sum piped.tgz
step tar $TARFLAGS -czf own.tgz tree
step tar -tvf plain.tar
shstep 'tar -tzf own.tgz | sort'

step tar -xf plain.tar -C out1
step tar -xzf own.tgz -C out2
shstep 'gzip -dc piped.tgz | tar -xf - -C out3'
tree out1 out2 out3
step stat -c '%n %y' out1/tree/a/numbers out2/tree/c/f3
step tar -df plain.tar

# Extract again over what is there, then with --keep-old-files.
shstep 'echo changed > out1/tree/c/f4'
step tar -xf plain.tar -C out1
sum out1/tree/c/f4
step tar -xkf plain.tar -C out1
step tar -xf missing.tar
step tar -cf bad.tar no-such-file
step tar -tf tree/a/numbers
tree out1
