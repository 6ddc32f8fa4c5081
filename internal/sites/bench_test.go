package sites

import (
	"fmt"
	"testing"

	"github.com/sitepush/sitepush/internal/store/storetest"
)

// benchSite is the JSON of the i-th site of a benchmark: its IndexNow key comes from the defaults.
func benchSite(i int) []byte {
	return fmt.Appendf(nil, `{"id": "fleet-%06d", "sitemaps": ["https://s%d.example/sitemap.xml"]}`, i, i)
}

// BenchmarkCreate measures one create through the API with 100 and with 10,000 sites already
// stored, and a read of the list of sites after it, as the scheduler makes: a create touches its
// own site, so both cost about the same.
func BenchmarkCreate(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			st := storetest.Open(b)
			for i := range n {
				if err := st.CreateSite(ctx, fmt.Sprintf("fleet-%06d", i), benchSite(i), t0); err != nil {
					b.Fatal(err)
				}
			}
			r, _ := newRegistry(b, st, "defaults:\n  indexnow: {enabled: true, key: 0123456789abcdef}\n")
			i := n
			for b.Loop() {
				if _, err := r.Create(ctx, benchSite(i), t0); err != nil || len(r.Sites()) == 0 {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkLoadUnchanged measures what serve does every 30 s with 10,000 stored sites none of
// which changed: it reads their versions, and no site.
func BenchmarkLoadUnchanged(b *testing.B) {
	st := storetest.Open(b)
	for i := range 10_000 {
		if err := st.CreateSite(ctx, fmt.Sprintf("fleet-%06d", i), benchSite(i), t0); err != nil {
			b.Fatal(err)
		}
	}
	r, _ := newRegistry(b, st, "defaults:\n  indexnow: {enabled: true, key: 0123456789abcdef}\n")
	for b.Loop() {
		if err := r.Load(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
