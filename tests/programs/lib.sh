# lib.sh - helpers for the real-program scenarios (tests/programs/*.sh),
# sourced by each scenario. They print a transcript that must not depend on
# where the scenario runs: exit statuses, messages, sorted listings, and the
# stat fields users rely on (type, mode, size and link count of files,
# symbolic link targets, sha256 of contents), never inode numbers, times
# that were not set explicitly, block counts, or directory sizes and link
# counts (each file system has its own).

# step COMMAND...: prints the command, runs it with stderr joined to stdout,
# prints its exit status.
step() {
    echo "\$ $*"
    "$@" 2>&1
    echo "-> exit $?"
}

# shstep 'SHELL TEXT': step for a command line with redirections or pipes.
shstep() {
    echo "\$ $1"
    sh -c "$1" 2>&1
    echo "-> exit $?"
}

# tree PATH...: one line per entry under each PATH, sorted.
tree() {
    echo "tree $*:"
    find "$@" -printf '%p|%y|%m|%n|%s|%l\n' | LC_ALL=C sort |
        while IFS='|' read -r path type mode links size target; do
            case $type in
            f) echo "  $path file $mode size=$size links=$links" \
                    "sha256=$(sha256sum < "$path" | cut -c1-16)" ;;
            d) echo "  $path dir $mode" ;;
            l) echo "  $path symlink -> $target" ;;
            *) echo "  $path type=$type $mode" ;;
            esac
        done
}

# sum FILE...: the sha256 of each file's contents.
sum() {
    for f in "$@"; do
        echo "sha256 $f $(sha256sum < "$f" | cut -c1-16)"
    done
}
