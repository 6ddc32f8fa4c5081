// Package kvstate keeps sitepush's state in a key-value namespace — Workers KV, for the
// Cloudflare Worker — behind the same ports as the SQL store: the runner's state, the feed's
// store, the Bing quota, and what the HTTP API reads. KV is billed and limited per operation and
// has no transaction, so a site's catalogue and delivery state live in a few shard values read
// and written whole, everything a run changes is written once when it ends (Flush), and every
// operation is counted against the budget of one invocation.
package kvstate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// KV is a key-value namespace as Workers KV offers one: values up to 25 MiB, an optional
// time-to-live (at least a minute), no atomic operation, and reads that may lag writes made
// elsewhere by up to a minute.
type KV interface {
	// Get returns the value of key; ok is false when there is none.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Put stores a value; ttl 0 keeps it until it is deleted. metadata, when not empty, is kept
	// with the value, written with it at once, and listed with its key (Workers KV takes 1,024
	// bytes of it).
	Put(ctx context.Context, key string, value []byte, ttl time.Duration, metadata string) error
	// Delete removes a key; a missing key is no error.
	Delete(ctx context.Context, key string) error
	// List returns the keys that begin with prefix, in order, each with its metadata.
	List(ctx context.Context, prefix string) ([]Key, error)
}

// Key is a key as List gives it.
type Key struct {
	Name, Metadata string
}

// Ops counts the operations made on a KV.
type Ops struct {
	Reads, Writes, Deletes, Lists int
}

// Total is every operation: what Workers counts against its limit per invocation.
func (o Ops) Total() int { return o.Reads + o.Writes + o.Deletes + o.Lists }

// MinTTL is the shortest time-to-live Workers KV takes.
const MinTTL = time.Minute

// MemKV is a KV in memory, for tests and for a Worker's local runs: it keeps what Workers KV
// keeps, including expiry, on the clock Now (time.Now when nil). It is safe for concurrent use.
type MemKV struct {
	Now func() time.Time

	mu     sync.Mutex
	values map[string]memValue
	ops    Ops
}

type memValue struct {
	value    []byte
	metadata string
	expires  time.Time // zero: never
}

func (m *MemKV) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// Get implements KV.
func (m *MemKV) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ops.Reads++
	v, ok := m.values[key]
	if !ok || !v.expires.IsZero() && !m.now().Before(v.expires) {
		return nil, false, nil
	}
	return slices.Clone(v.value), true, nil
}

// Put implements KV. Like Workers KV, it refuses a time-to-live under a minute.
func (m *MemKV) Put(_ context.Context, key string, value []byte, ttl time.Duration, metadata string) error {
	if ttl != 0 && ttl < MinTTL {
		return errors.New("kv: a time-to-live must be at least 60 seconds")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ops.Writes++
	if m.values == nil {
		m.values = map[string]memValue{}
	}
	v := memValue{value: slices.Clone(value), metadata: metadata}
	if ttl > 0 {
		v.expires = m.now().Add(ttl)
	}
	m.values[key] = v
	return nil
}

// Delete implements KV.
func (m *MemKV) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ops.Deletes++
	delete(m.values, key)
	return nil
}

// List implements KV.
func (m *MemKV) List(_ context.Context, prefix string) ([]Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ops.Lists++
	var out []Key
	for k, v := range m.values {
		if strings.HasPrefix(k, prefix) && (v.expires.IsZero() || m.now().Before(v.expires)) {
			out = append(out, Key{Name: k, Metadata: v.metadata})
		}
	}
	slices.SortFunc(out, func(a, b Key) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Ops returns the operations made so far.
func (m *MemKV) Ops() Ops {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ops
}

// Size returns how many keys hold a value, and their bytes.
func (m *MemKV) Size() (keys, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, v := range m.values {
		keys++
		bytes += len(v.value)
	}
	return keys, bytes
}
