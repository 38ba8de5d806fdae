# git.sh - git init, add, commit, status, log, branch, checkout, diff, rm,
# mv, tag, gc and fsck in a repository on the mount. Author, committer and
# dates are fixed, so commit hashes must be equal on both sides.
. "$PROGRAMS_LIB"
export LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=Danaus GIT_AUTHOR_EMAIL=danaus@example.org
export GIT_COMMITTER_NAME=Danaus GIT_COMMITTER_EMAIL=danaus@example.org
export GIT_AUTHOR_DATE='2021-01-01T00:00:00Z' GIT_COMMITTER_DATE='2021-01-01T00:00:00Z'
export GIT_CONFIG_NOSYSTEM=1 HOME="$ROOT/home" GIT_TEMPLATE_DIR=
mkdir -p home
git() {
    command git -c init.defaultBranch=main -c gc.auto=0 \
        -c core.fsmonitor=false -c maintenance.auto=false \
        -c core.untrackedCache=false -c advice.detachedHead=false "$@"
}

step git init -q repo
cd repo || exit 1
shstep 'seq 1 3000 > numbers; echo "# readme" > README; mkdir -p src; echo "int main(void) { return 0; }" > src/main.c'
step git add .
step git status --short
step git commit -q -m 'first'
step git log --format='%H %an %s'
shstep 'echo 3001 >> numbers; echo "two" > src/two.c; rm README'
step git status --short
step git diff --stat
step git add -A
step git commit -q -m 'second'
step git branch topic
step git checkout -q topic
shstep 'echo topic > topic.txt && git add topic.txt && git commit -q -m topic'
step git checkout -q main
step git mv src/two.c src/three.c
step git rm -q numbers
step git commit -q -m 'third'
step git merge -q --no-edit topic
step git tag v1
step git log --format='%H %P %s' --all
step git ls-files -s
step git show --stat --format='%H %s' HEAD~1
step git cat-file -p HEAD
step git status --short --branch
step git gc -q
step git fsck --no-progress
step git count-objects -v
step git log --oneline --graph --all
step git stash list
shstep 'echo dirty > topic.txt; git stash -q; git stash list; cat topic.txt'
step git rev-parse HEAD v1 topic
step git checkout -q nonexistent
step git add missing-file
cd .. || exit 1
shstep 'git clone -q repo clone 2>&1 && git -C clone log --format="%H %s"'
tree repo/src clone/src
