// Package inorder runs independent pieces of work on a bounded pool of
// goroutines and hands their results over in the order of the inputs, so
// that a command reading many logs at once prints exactly what reading them
// one after the other prints. (sourcegraph/conc's stream keeps the order
// too, but cannot stop early nor let the pool run past a slow item.)
package inorder

import (
	"sync"
	"sync/atomic"
)

// Each runs work(i) for every i in [0, n) on up to workers
// goroutines and hands each result to use in index order, as soon as it
// and every one before it are done: the output is the sequential one
// whatever finishes first. At most ahead items are being worked on or
// waiting for use at once (ahead < workers is raised to workers), which
// bounds the memory of big results. When use returns false no further work starts; work already
// started finishes and is dropped. It returns once every goroutine it
// started has ended.
func Each[T any](n, workers, ahead int, work func(i int) T, use func(i int, r T) bool) {
	if n <= 0 {
		return
	}
	workers = max(1, min(workers, n))
	ahead = max(ahead, workers)
	results := make([]T, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	// A slot is taken before claiming an index and given back once use is
	// done with its result, so no worker runs more than ahead indexes past
	// use.
	slots := make(chan struct{}, ahead)
	stop := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case slots <- struct{}{}:
				case <-stop:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				select {
				case <-stop:
					return
				default:
				}
				results[i] = work(i)
				close(done[i])
			}
		})
	}
	defer wg.Wait()
	defer close(stop)
	for i := range n {
		<-done[i]
		r := results[i]
		var zero T
		results[i] = zero // use owns it now
		keep := use(i, r)
		<-slots
		if !keep {
			return
		}
	}
}
