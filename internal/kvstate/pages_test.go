package kvstate_test

import (
	"context"
	"encoding/json"
	"testing"
)

// TestMemoPagesOfABadLengthAreDropped: a memos value that decodes as JSON but whose pages are not
// whole 16-byte pages (cut short, written by hand or by another tool) is dropped as damaged, and
// the run reads the sitemap whole.
func TestMemoPagesOfABadLengthAreDropped(t *testing.T) {
	d := newDamaged(t)
	d.tick()
	d.tick() // memos are used from memosSettle after they were written
	ctx := context.Background()
	b, _, err := d.kv.Get(ctx, "memos:a")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	memos := v["memos"].([]any)
	memo := memos[0].(map[string]any)
	var pages []byte
	if err := json.Unmarshal([]byte(`"`+memo["Pages"].(string)+`"`), &pages); err != nil || len(pages) != 20*16 {
		t.Fatalf("the memo's pages: %d bytes, %v", len(pages), err)
	}
	memo["Pages"] = pages[:len(pages)-4] // the last page cut short
	b, _ = json.Marshal(v)
	d.kv.Put(ctx, "memos:a", b, 0, "")
	writeSitemap(d.dirs["a"], 21, "2026-01-01")
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("a run over a memo whose pages are cut short panicked: %v", p)
		}
	}()
	recs, sent := d.tick()
	if len(sent["a"]) != 1 || sent["a"][0] != "https://a.example/p/20" {
		t.Errorf("with memos:a cut short: %s %q, sent %v; want the one new page", recs["a"].Status, recs["a"].Errors, sent["a"])
	}
}
