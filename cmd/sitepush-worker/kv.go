//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"math"
	"syscall/js"
	"time"

	"github.com/sitepush/sitepush/internal/kvstate"
)

// namespace is a Workers KV namespace binding as the core's KV (internal/kvstate).
type namespace struct{ ns js.Value }

func (n namespace) Get(_ context.Context, key string) ([]byte, bool, error) {
	v, err := call(n.ns, "get", key, map[string]any{"type": "arrayBuffer"})
	switch {
	case err != nil:
		return nil, false, fmt.Errorf("KV get %q: %w", key, err)
	case v.IsNull() || v.IsUndefined():
		return nil, false, nil
	}
	return bytesOf(v), true, nil
}

func (n namespace) Put(_ context.Context, key string, value []byte, ttl time.Duration, metadata string) error {
	opts := map[string]any{}
	if ttl > 0 {
		opts["expirationTtl"] = int(math.Ceil(max(ttl, time.Minute).Seconds())) // KV's shortest is 60 s
	}
	if metadata != "" {
		opts["metadata"] = metadata
	}
	if _, err := call(n.ns, "put", key, toJSBytes(value), opts); err != nil {
		return fmt.Errorf("KV put %q: %w", key, err)
	}
	return nil
}

func (n namespace) Delete(_ context.Context, key string) error {
	if _, err := call(n.ns, "delete", key); err != nil {
		return fmt.Errorf("KV delete %q: %w", key, err)
	}
	return nil
}

// List pages through the keys with prefix, 1,000 a page, as KV gives them, with their metadata.
func (n namespace) List(_ context.Context, prefix string) ([]kvstate.Key, error) {
	var keys []kvstate.Key
	cursor := ""
	for {
		opts := map[string]any{"prefix": prefix}
		if cursor != "" {
			opts["cursor"] = cursor
		}
		page, err := call(n.ns, "list", opts)
		if err != nil {
			return nil, fmt.Errorf("KV list %q: %w", prefix, err)
		}
		list := page.Get("keys")
		for i := range list.Length() {
			k := kvstate.Key{Name: list.Index(i).Get("name").String()}
			if meta := list.Index(i).Get("metadata"); meta.Type() == js.TypeString {
				k.Metadata = meta.String()
			}
			keys = append(keys, k)
		}
		if page.Get("list_complete").Truthy() || page.Get("cursor").Type() != js.TypeString {
			return keys, nil
		}
		cursor = page.Get("cursor").String()
	}
}
