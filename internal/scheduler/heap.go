package scheduler

// placed is an item of a heapOf: it keeps its place in the heap (-1 out of it), for heap.Fix and
// heap.Remove.
type placed interface{ place(i int) }

// heapOf is a min-heap (container/heap) of items that know their place in it, in the order less
// says: the scheduler's fire times and the pool's queue of due sites.
type heapOf[T placed] struct {
	items []T
	less  func(a, b T) bool
}

func (h *heapOf[T]) Len() int { return len(h.items) }

func (h *heapOf[T]) Less(a, b int) bool { return h.less(h.items[a], h.items[b]) }

func (h *heapOf[T]) Swap(a, b int) {
	h.items[a], h.items[b] = h.items[b], h.items[a]
	h.items[a].place(a)
	h.items[b].place(b)
}

func (h *heapOf[T]) Push(x any) {
	item := x.(T)
	item.place(len(h.items))
	h.items = append(h.items, item)
}

func (h *heapOf[T]) Pop() any {
	last := len(h.items) - 1
	item := h.items[last]
	var zero T
	h.items[last] = zero // the heap's array no longer holds it
	item.place(-1)
	h.items = h.items[:last]
	return item
}
