package runner_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/runner"
)

// sqlParts are the optional parts of the SQL store, as internal/cli asserts them.
type sqlParts interface {
	runner.NewSiteLoader
	runner.ResubmitSettler
	runner.RemovalLog
}

// withSQLParts is a decorated state with the optional parts of the SQL store it wraps.
type withSQLParts struct {
	runner.State
	sqlParts
}

// withKVParts is a decorated state with the optional part of the KV state it wraps.
type withKVParts struct {
	runner.State
	runner.LazyLease
}

// optionalParts names the optional interfaces of the runner that s implements.
func optionalParts(s runner.State) []string {
	var out []string
	if _, ok := s.(runner.NewSiteLoader); ok {
		out = append(out, "NewSiteLoader")
	}
	if _, ok := s.(runner.ResubmitSettler); ok {
		out = append(out, "ResubmitSettler")
	}
	if _, ok := s.(runner.LazyLease); ok {
		out = append(out, "LazyLease")
	}
	if _, ok := s.(runner.RemovalLog); ok {
		out = append(out, "RemovalLog")
	}
	return out
}

// decorate returns d, a test's decorator of base (a type embedding runner.State that takes some
// of its methods), as the state of a run with the optional parts of base: a decorator that embeds
// runner.State alone hides them, and the run would take a path no real state makes it take. The
// optional parts are base's own: d cannot take their methods. It fails t when base has optional
// parts no decorated type here keeps.
func decorate(t testing.TB, d, base runner.State) runner.State {
	t.Helper()
	out := d
	switch b := base.(type) {
	case sqlParts:
		out = withSQLParts{d, b}
	case runner.LazyLease:
		out = withKVParts{d, b}
	}
	if got, want := optionalParts(out), optionalParts(base); !slices.Equal(got, want) {
		t.Fatalf("decorated, a %T has the optional parts %v, not its own %v: add a decorated type for them to decorate", base, got, want)
	}
	return out
}

// TestADecoratedStateKeepsItsOptionalParts: a test's decorator of each real state (scanned, which
// counts what PendingDeliveries finds) hands the run the optional parts of the state it wraps, so
// that the run takes the path it takes on that state: the SQL store's fast first run, floors and
// log of removal notices; the KV state's lazy lease.
func TestADecoratedStateKeepsItsOptionalParts(t *testing.T) {
	want := map[string][]string{
		"sql": {"NewSiteLoader", "ResubmitSettler", "RemovalLog"},
		"kv":  {"LazyLease"},
	}
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			base := open(time.Now())
			if got := optionalParts(base); !slices.Equal(got, want[name]) {
				t.Fatalf("the %s state has the optional parts %v, want %v", name, got, want[name])
			}
			sc := &scanned{State: base}
			if got := optionalParts(sc.state(t)); !slices.Equal(got, want[name]) {
				t.Errorf("decorated, the %s state has the optional parts %v, want %v", name, got, want[name])
			}
		})
	}
}
