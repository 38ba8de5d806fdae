// stat_loop.go - the Go program of bench/run-workloads.sh: built static
// (CGO_ENABLED=0), so that in a Danaus container every call it makes goes
// through the FUSE door, as a Go program's do. It lists the tree DIR once,
// then lstats every name in it ROUNDS times, and prints how many lstat
// calls it made.
//
//	stat-loop DIR ROUNDS
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: stat-loop DIR ROUNDS")
		os.Exit(2)
	}
	rounds, err := strconv.Atoi(os.Args[2])
	if err != nil || rounds < 1 {
		fmt.Fprintln(os.Stderr, "stat-loop: ROUNDS must be a positive number")
		os.Exit(2)
	}
	var names []string
	err = filepath.WalkDir(os.Args[1], func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		names = append(names, path)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "stat-loop:", err)
		os.Exit(1)
	}
	calls := 0
	for r := 0; r < rounds; r++ {
		for _, name := range names {
			if _, err := os.Lstat(name); err != nil {
				fmt.Fprintln(os.Stderr, "stat-loop:", err)
				os.Exit(1)
			}
			calls++
		}
	}
	fmt.Println(calls)
}
