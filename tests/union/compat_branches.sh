# compat_branches.sh - the branches both unions of the compatibility test
# start from, written under the current directory: up (writable), l1 and l2
# (read-only, l1 above l2). Sourced by compat.sh, with plain shell
# commands (under the preload on CephFS).
set -e
mkdir -p up l1 l2
echo "top from up" > up/top
echo "shadow from up" > up/shadowed
echo "shadow from l1" > l1/shadowed
echo "shadow from l2" > l2/shadowed
echo "mid from l1" > l1/mid
echo "low from l2" > l2/low
echo "low to delete" > l2/low_del
echo "mid to rename" > l1/mid_file
echo "up to rename" > up/up_file
echo "to truncate" > l2/trunc_me
echo "to chmod" > l2/chmod_me
chmod 644 l2/chmod_me
echo "to link" > l2/link_me
echo "upper to link" > up/up_link_me
mkdir up/dir_all l1/dir_all l2/dir_all
echo a-up > up/dir_all/a
echo a-l1 > l1/dir_all/a
echo b-l1 > l1/dir_all/b
echo c-l2 > l2/dir_all/c
mkdir -p l2/lower_dir/sub
echo x > l2/lower_dir/x
echo y > l2/lower_dir/sub/y
mkdir -p l1/lower_only_dir/inner
echo in1 > l1/lower_only_dir/inner/f
echo g1 > l1/lower_only_dir/g
mkdir l2/lower_only_dir2
echo z > l2/lower_only_dir2/z
mkdir up/up_dir
echo u > up/up_dir/u
ln -s low l1/low_link
set +e
