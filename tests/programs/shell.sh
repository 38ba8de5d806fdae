# shell.sh - sh (dash) and bash redirections and pipelines on files:
# >, >>, <, 2>, <>, here-documents, exec'd descriptors, noclobber, globbing,
# cd and pwd, command substitution, and their error messages.
. "$PROGRAMS_LIB"
export LC_ALL=C

cat > script.sh <<'SCRIPT'
echo one > f
echo two >> f
cat < f
ls no-such-file 2> err; echo "ls status $?"
cat err | sed 's/^ls: //'
{ echo a; echo b; echo c; } > abc
while read -r line; do echo "read $line"; done < abc
exec 3> fd3
echo "to three" >&3
echo "again" >&3
exec 3>&-
cat fd3
exec 4< abc
read -r first <&4
read -r second <&4
echo "first=$first second=$second"
exec 4<&-
exec 5<> rw
echo "read-write" >&5
exec 5>&-
cat rw
cat <<EOT > heredoc
here $((6 * 7))
EOT
cat heredoc
seq 1 1000 | sort -r | head -3 > top
cat top
seq 1 5000 | tee copy | wc -l
cat copy | sort -n | tail -1
cat f f f | sort | uniq -c
set -C
echo clobber > f; echo "noclobber status $?"
echo clobber >| f
set +C
cat f
mkdir -p d/e
cd d/e && pwd | sed "s|^$ROOT|ROOT|" && echo hi > here && cd ../..
cat d/e/here
echo g* d/*
for x in d/e/*; do echo "glob $x"; done
n=$(wc -c < copy); echo "bytes $n"
echo "$(cat f)-$(cat heredoc)"
echo > d; echo "write to directory status $?"
cat < missing; echo "redirect missing status $?"
: > empty; [ -s empty ] || echo "empty is empty"
[ -f f ] && [ -d d ] && [ ! -e nothing ] && echo "tests ok"
test f -ef f && echo "same file"
SCRIPT

shstep 'sh script.sh 2>&1 | sed "s/^script.sh: [0-9]*: //"'
tree .
step rm -r d f abc fd3 rw heredoc top copy empty err
shstep 'bash script.sh 2>&1 | sed "s/^script.sh: line [0-9]*: //"'
tree .
shstep 'bash -c "set -o pipefail; seq 1 100 > p; cat p | grep 7 | wc -l > count; cat count"'
shstep 'bash -c "mapfile -t lines < p; echo \${#lines[@]}; printf \"%s\n\" \"\${lines[@]:0:3}\" >> count; cat count"'
shstep 'bash -c "diff <(seq 1 5) <(seq 1 6); echo diff \$?"'
shstep 'bash -c "echo hello &> both; cat both; ls missing &>> both; cat both"'
