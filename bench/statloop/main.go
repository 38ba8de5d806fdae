// statloop - a static program's stat loop for bench/run-fuse-cache.sh:
// lstat every path read from stdin, ROUNDS times, and print the mean time
// per lstat in nanoseconds. Built with CGO_ENABLED=0, so no preload can
// reach it: its calls go through the kernel (a FUSE door's mount).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	rounds := 5
	if len(os.Args) > 1 {
		rounds, _ = strconv.Atoi(os.Args[1])
	}
	var paths []string
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		paths = append(paths, in.Text())
	}
	start := time.Now()
	for r := 0; r < rounds; r++ {
		for _, p := range paths {
			if _, err := os.Lstat(p); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	n := rounds * len(paths)
	fmt.Println(time.Since(start).Nanoseconds() / int64(n))
}
