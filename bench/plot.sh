#!/bin/bash
# plot.sh - draws a bench script's results as a PNG with gnuplot, from a
# small CSV whose header row names the columns: the first column is the x
# label (a category for bars, a number for lines), every further column a
# series (a stack). Empty cells are left out.
#
#   bench/plot.sh bars  IN.csv OUT.png TITLE YLABEL [log]
#   bench/plot.sh lines IN.csv OUT.png TITLE XLABEL YLABEL [log]
#
# bars: one group per row, one bar per series (latency per op by stack,
# throughput alone vs with a neighbour). lines: one line per series over a
# numeric x (startup time vs N, copy-up time vs file size, scale-out).
# "log" draws the y axis on a log scale.
set -euo pipefail

die() { echo "plot: error: $*" >&2; exit 1; }

[ $# -ge 5 ] || die "usage: plot.sh bars|lines IN.csv OUT.png TITLE ..."
kind=$1 in=$2 out=$3 title=$4
command -v gnuplot >/dev/null || die "gnuplot not found (deploy/install-deps.sh)"
[ -r "$in" ] || die "$in not readable"
series=$(head -n 1 "$in" | awk -F, '{print NF}')
[ "$series" -ge 2 ] || die "$in: no series"

logscale=""
case $kind in
bars)
    ylabel=$5
    [ "${6:-}" = log ] && logscale="set logscale y"
    style="set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 left
set yrange [0:*]"
    [ -n "$logscale" ] && style=${style/set yrange \[0:\*\]/set yrange [*:*]}
    plotcmd="plot for [i=2:$series] '$in' using i:xtic(1) title columnheader(i)"
    ;;
lines)
    xlabel=$5 ylabel=$6
    [ "${7:-}" = log ] && logscale="set logscale y"
    style="set style data linespoints
set xlabel '$xlabel'"
    plotcmd="plot for [i=2:$series] '$in' using 1:i title columnheader(i) pointsize 1.3 linewidth 2"
    ;;
*) die "unknown kind '$kind'" ;;
esac

gnuplot <<EOF
set terminal pngcairo size 1000,560 font 'sans,10'
set output '$out'
set datafile separator ','
set datafile missing ''
set key outside right top
set grid ytics
set title "$title"
set ylabel '$ylabel'
set bmargin 8
$logscale
$style
$plotcmd
EOF
