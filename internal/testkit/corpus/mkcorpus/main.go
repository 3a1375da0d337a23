// Command mkcorpus writes a History-Server-like directory of n real event
// logs, each under its own application id, copied from a tree of logs
// (package corpus); the directory runs of docs/performance.md use it:
//
//	go run ./internal/testkit/corpus/mkcorpus -n 2000 -src ../shared/spark-events -o /tmp/corpus-2000
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sparkglance/sparkglance/internal/testkit/corpus"
)

func main() {
	n := flag.Int("n", 2000, "how many logs to write")
	src := flag.String("src", "../shared/spark-events", "tree of event logs to copy")
	out := flag.String("o", "", "directory to write (must not exist or be empty)")
	cached := flag.Bool("cached", false, "build into (or reuse from) the user cache directory and print its path, as the benchmarks do")
	flag.Parse()
	if *cached {
		dir, err := corpus.Cached(*src, *n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkcorpus:", err)
			os.Exit(1)
		}
		fmt.Println(dir)
		return
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "mkcorpus: -o DIR is needed")
		os.Exit(2)
	}
	paths, err := corpus.Build(*out, *src, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkcorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("%d logs in %s\n", len(paths), *out)
}
