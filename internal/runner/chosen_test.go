package runner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestRefused: a chosen URL is refused with the reason that is true of it, and what an engine
// would take as the page is not refused.
func TestRefused(t *testing.T) {
	s := newSite(t, "    exclude: [/private/**]\n    indexnow: {enabled: true, key: abcdef0123456789}\n").site
	for _, tc := range []struct{ url, reason string }{
		{"https://a.example/x", ""},
		{"HTTPS://A.EXAMPLE/x", ""},
		{"https://a.example/x?q=1", ""},
		{"https://b.example/x", "on host b.example"},
		{"https://a.example:8443/x", "on host a.example:8443"},
		{"/x", "not an absolute http(s) URL"},
		{"ftp://a.example/x", "not an absolute http(s) URL"},
		{"https://a.example/private/x", "left out by the site's include/exclude globs"},
		{"https://a.example/" + strings.Repeat("a", 2048), "longer than 2048 characters"},
		{"https://user:secret@a.example/x", "user information"},
		{"https://a.example/x#part", "fragment"},
		{"https://a.example/a b", "space"},
		{"http://a.example/x", "http://, not https:// as the site's baseUrl: the site's pages are at https://; write it so"},
		{"HTTP://a.example/x", "http://, not https:// as the site's baseUrl"},
	} {
		if got := runner.Refused(s, tc.url); tc.reason == "" && got != "" || !strings.Contains(got, tc.reason) {
			t.Errorf("Refused(%q) = %q, want %q", tc.url, got, tc.reason)
		}
	}
}

// TestChosenURLsWaitWhileADamagedMemoIsRead: a first read over several runs whose memo of a
// sitemap was damaged (its pages cut short) is still a read going on: chosen URLs wait for it,
// so that the run that ends it is still the channel's first, and follows backlog: none.
func TestChosenURLsWaitWhileADamagedMemoIsRead(t *testing.T) {
	f := newFiles(t)
	f.set("/a.xml", false, "https://a.example/a1", "https://a.example/a2")
	f.set("/b.xml", false, "https://a.example/b1", "https://a.example/b2")
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "    backlog: none\n    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{f.url("/a.xml"), f.url("/b.xml")}
	ch := &fakeChannel{name: "indexnow", batch: 100}
	run(t, r, s, limited(r, 2, ch)) // a.xml read whole, then the budget cuts the read
	r.Client = nil
	ctx := context.Background()
	memos, err := st.SitemapMemos(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var all []model.SitemapMemo
	for name, m := range memos {
		if m.Unfinished && !m.Index {
			p, err := st.SitemapPages(ctx, "s", name)
			if err != nil || len(p) < 16 {
				t.Fatalf("pages of %s: %d bytes, %v", name, len(p), err)
			}
			m.Pages = p[:len(p)-4]
		}
		all = append(all, m)
	}
	if err := st.SaveSitemapMemos(ctx, "s", all); err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(ctx, s.site, runner.Options{Trigger: "manual", Channels: []channel.Channel{ch}, URLs: urls("/a1")})
	if !errors.Is(err, runner.ErrFirstRunPending) {
		t.Errorf("a chosen URL while the first read goes on (a memo damaged): %v, sent %v; want ErrFirstRunPending", err, ch.take())
	}
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); len(got) != 0 {
		t.Errorf("backlog none: the run that ended the first read sent %v; want none of the URLs already there", got)
	}
}
