package switchboard

// Iter walks every item of a cursor-paginated list, fetching the next page (starting_after =
// next_cursor) only when the current one is used up:
//
//	it := client.ListMessagesAutoPaging(ctx, &switchboard.ListMessagesParams{Limit: switchboard.Int(100)})
//	for it.Next() {
//		m := it.Current()
//	}
//	if err := it.Err(); err != nil { ... }
type Iter[T any] struct {
	fetch   func(cursor *string) ([]T, bool, *string, error)
	items   []T
	index   int
	hasMore bool
	cursor  *string
	started bool
	current T
	err     error
}

func newIter[T any](fetch func(cursor *string) ([]T, bool, *string, error)) *Iter[T] {
	return &Iter[T]{fetch: fetch}
}

// Next advances to the next item; false at the end or on an error (see Err).
func (it *Iter[T]) Next() bool {
	for it.index >= len(it.items) {
		if it.err != nil || (it.started && (!it.hasMore || it.cursor == nil)) {
			return false
		}
		items, hasMore, cursor, err := it.fetch(it.cursor)
		it.started = true
		if err != nil {
			it.err = err
			return false
		}
		it.items, it.index, it.hasMore, it.cursor = items, 0, hasMore, cursor
	}
	it.current = it.items[it.index]
	it.index++
	return true
}

// Current is the item Next moved to.
func (it *Iter[T]) Current() T { return it.current }

// Err is the error that stopped the iteration, if any.
func (it *Iter[T]) Err() error { return it.err }

// All collects every remaining item.
func (it *Iter[T]) All() ([]T, error) {
	var out []T
	for it.Next() {
		out = append(out, it.Current())
	}
	return out, it.Err()
}
