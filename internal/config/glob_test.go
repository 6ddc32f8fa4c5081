package config

import (
	"testing"
)

func TestPathAllowed(t *testing.T) {
	tests := []struct {
		name             string
		include, exclude []string
		allowed, denied  []string
	}{
		{name: "no globs", allowed: []string{"/", "/a/b", ""}},
		{name: "double star at the end", include: []string{"/blog/**"},
			allowed: []string{"/blog", "/blog/", "/blog/a", "/blog/a/b/c"}, denied: []string{"/", "/blogger", "/news/blog/a"}},
		{name: "star stays in one segment", include: []string{"/blog/*"},
			allowed: []string{"/blog/a", "/blog/"}, denied: []string{"/blog", "/blog/a/b"}},
		{name: "double star in the middle", include: []string{"/a/**/z"},
			allowed: []string{"/a/z", "/a/b/z", "/a/b/c/z"}, denied: []string{"/a/zz", "/a/b/z/x", "/az"}},
		{name: "leading double star", include: []string{"/**/*.html"},
			allowed: []string{"/x.html", "/a/b/x.html"}, denied: []string{"/a/b/x.htm", "/a/xhtml"}},
		{name: "question mark", include: []string{"/p?"},
			allowed: []string{"/p1", "/pa"}, denied: []string{"/p", "/p12", "/p/"}},
		{name: "regexp characters are literal", include: []string{"/a.b/(c)+[d]"},
			allowed: []string{"/a.b/(c)+[d]"}, denied: []string{"/axb/(c)+[d]", "/a.b/cc"}},
		{name: "exact root", include: []string{"/"}, allowed: []string{"/", ""}, denied: []string{"/a"}},
		{name: "exclude only", exclude: []string{"/tag/**", "/*.pdf"},
			allowed: []string{"/", "/blog/tag/x", "/a/b.pdf"}, denied: []string{"/tag", "/tag/a/b", "/x.pdf"}},
		{name: "exclude wins", include: []string{"/blog/**"}, exclude: []string{"/blog/drafts/**"},
			allowed: []string{"/blog/a"}, denied: []string{"/blog/drafts", "/blog/drafts/x", "/about"}},
		{name: "several includes", include: []string{"/a/**", "/b/**"},
			allowed: []string{"/a/x", "/b/x"}, denied: []string{"/c/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Site{ID: "x", Sitemaps: []string{"https://x.example/s.xml"}, Settings: Builtin()}
			s.Include, s.Exclude = tt.include, tt.exclude
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.allowed {
				if !s.PathAllowed(p) {
					t.Errorf("PathAllowed(%q) = false, want true", p)
				}
			}
			for _, p := range tt.denied {
				if s.PathAllowed(p) {
					t.Errorf("PathAllowed(%q) = true, want false", p)
				}
			}
		})
	}
}
