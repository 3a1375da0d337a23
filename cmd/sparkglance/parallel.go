package main

import "runtime"

// defaultParallel is the number of logs read at once when --parallel is 0:
// one per core Go may use.
func defaultParallel() int { return runtime.GOMAXPROCS(0) }
