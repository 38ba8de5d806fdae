#!/bin/sh
# after_boot.sh PROGRAM [ARGS...]: runs PROGRAM as on a machine booted a
# minute ago, in a time namespace whose monotonic and boot-time clocks
# read about 60 s. CI may run on a machine booted minutes ago: a test that
# takes the machine's uptime for granted fails here on any machine.
up=$(cut -d. -f1 /proc/uptime)
offset=$((60 - up))
[ "$offset" -lt 0 ] || offset=0
exec unshare --fork --time --monotonic "$offset" --boottime "$offset" "$@"
