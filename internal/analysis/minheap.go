package analysis

// keyed is a value with an int64 key (a time); minHeap keeps keyed values
// with the smallest key first. It is written out rather than through
// container/heap, whose interface calls cost more than the rest of a push
// or pop: the what-if replay pushes and pops two events per task for every
// executor count it tries, and the local-cores sweep one span per task.
type keyed[V any] struct {
	key int64
	val V
}

type minHeap[V any] []keyed[V]

func (h *minHeap[V]) push(e keyed[V]) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p].key <= q[i].key {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
}

func (h *minHeap[V]) pop() keyed[V] {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < n && q[l].key < q[small].key {
			small = l
		}
		if r := l + 1; r < n && q[r].key < q[small].key {
			small = r
		}
		if small == i {
			break
		}
		q[i], q[small] = q[small], q[i]
		i = small
	}
	*h = q
	return top
}
