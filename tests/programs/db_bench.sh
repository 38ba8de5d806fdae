# db_bench.sh - RocksDB's db_bench (Debian rocksdb-tools), a small run:
# fillseq then readrandom on a database on the mount, without mmap. What
# must agree: exit status, the number of keys readrandom finds, and the
# files the database ends with.
. "$PROGRAMS_LIB"

echo "\$ db_bench fillseq,readrandom"
db_bench --benchmarks=fillseq,readrandom --num=20000 --reads=20000 \
    --db="$ROOT/db" --use_existing_db=0 --mmap_read=0 --mmap_write=0 \
    --threads=1 --seed=42 --compression_type=none --statistics=0 \
    > bench.out 2>&1
echo "-> exit $?"
# Timings differ; what readrandom found must not.
grep -o '([0-9]* of [0-9]* found)' bench.out
grep -i 'error\|corrupt\|failed\|IO error' bench.out
echo "\$ db_bench readrandom on the existing database"
db_bench --benchmarks=readrandom --num=20000 --reads=5000 \
    --db="$ROOT/db" --use_existing_db=1 --mmap_read=0 --mmap_write=0 \
    --threads=1 --seed=7 --statistics=0 > bench2.out 2>&1
echo "-> exit $?"
grep -o '([0-9]* of [0-9]* found)' bench2.out
grep -i 'error\|corrupt\|failed' bench2.out
shstep 'ls db | sed "s/[0-9][0-9]*/N/g" | sort | uniq -c'
