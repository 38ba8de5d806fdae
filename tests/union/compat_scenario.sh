# compat_scenario.sh - the union compatibility scenario: run with the
# working directory at a union's root (unionfs-fuse -o cow, or Danaus under
# the preload) over the branches of compat_branches.sh; prints a transcript
# of every step (output, error messages, exit status) and then the whole
# tree as the union shows it (type, mode, size, links, contents).
t() {
    echo "\$ $*"
    "$@" 2>&1
    echo "-> $?"
}

# Reading from each branch; the topmost copy wins.
t cat top mid low shadowed
t ls dir_all
t cat dir_all/a dir_all/b dir_all/c

# Writing, appending to and truncating lower files.
echo appended >> low
t cat low
echo rewritten > mid
t cat mid
t truncate -s 3 trunc_me
t cat trunc_me
t chmod 600 chmod_me
t stat -c %a chmod_me

# Deleting lower files and directories, and making them again.
t rm low_del
t cat low_del
echo "made again" > low_del
t cat low_del
t rm -r lower_dir
t ls lower_dir
t mkdir lower_dir
t ls -A lower_dir
t rmdir dir_all
t rm dir_all/c
t ls dir_all

# Renaming lower and upper files and directories.
t mv mid_file renamed_mid
t mv up_file renamed_up
t mv up_dir renamed_up_dir
t mv lower_only_dir renamed_lower_dir
t ls -R renamed_lower_dir
t cat renamed_lower_dir/inner/f renamed_mid

# Creating files in a directory only lower branches have.
echo new > lower_only_dir2/new_file
t ls lower_only_dir2

# Symlinks and hard links.
t ln -s low sym
t readlink sym low_link
t cat sym low_link
t ln link_me hard
echo "through lower hard" >> hard
t cat link_me hard
t stat -c %h link_me hard
t ln up_link_me up_hard
echo "through hard" >> up_hard
t cat up_link_me
t stat -c %h up_link_me up_hard

# Calls that fail.
t mkdir dir_all
t rm dir_all
t rmdir renamed_lower_dir
t cat missing
t cat top/x
t ln -s x sym

echo "== tree"
find . -mindepth 1 | LC_ALL=C sort | while read -r p; do
    if [ -L "$p" ]; then
        echo "$p link $(readlink "$p")"
    elif [ -d "$p" ]; then
        echo "$p dir $(stat -c %a "$p")"
    else
        echo "$p file $(stat -c '%a %s' "$p") $(cat "$p")"
    fi
done
