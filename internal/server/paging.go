package server

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/sites"
)

// The lists of sites, GET /api/sites and GET /status, come in pages (docs/api.md, "Pages of
// sites"): ?limit=N sites at most, and a cursor to the next page. The order is the registry's —
// the file's sites in file order, then the API's by id — so that an answer without limit is
// what it was before pages, while there are at most maxPage sites.

// maxPage is the most sites a page holds, and how many an answer without limit holds: a client
// that never asks for pages gets every site as before, up to maxPage sites.
const maxPage = 500

// pageKey is what a cursor names of a site: where it comes from, and its id.
type pageKey struct{ source, id string }

// cursorOf is the cursor of the page after the site k: opaque to clients, so that the order's
// rules may change without breaking them.
func cursorOf(k pageKey) string {
	return base64.RawURLEncoding.EncodeToString([]byte(k.source + ":" + k.id))
}

// pageOfSites reads ?limit and ?cursor and returns the part [from, to) of a list of n sites (key
// gives each one's) that the page holds, and the cursor of the next page ("" after the last);
// it answers 400 and returns false when either is wrong.
func pageOfSites(w http.ResponseWriter, r *http.Request, n int, key func(int) pageKey) (from, to int, next string, ok bool) {
	limit, ok := answer.IntParam(w, r, "limit", maxPage, 1, maxPage)
	if !ok {
		return 0, 0, "", false
	}
	if c := r.URL.Query().Get("cursor"); c != "" {
		var err error
		if from, err = resume(c, n, key); err != nil {
			answer.WriteError(w, http.StatusBadRequest, err.Error())
			return 0, 0, "", false
		}
	}
	to = min(n, from+limit)
	if to < n {
		next = cursorOf(key(to - 1))
	}
	return from, to, next, true
}

// resume returns where the page after cursor starts: after its site, or, when that site of the
// API was deleted since, at the first site of the API whose id comes after its id; or why the
// cursor cannot be followed.
func resume(cursor string, n int, key func(int) pageKey) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	source, id, found := strings.Cut(string(raw), ":")
	if err != nil || !found || source != sites.FromFile && source != sites.FromAPI {
		return 0, fmt.Errorf("cursor %q is not one this server gave: pass the nextCursor of the last page as it is, or leave cursor out to start from the first page", cursor)
	}
	for i := range n {
		if k := key(i); k.source == source && k.id == id {
			return i + 1, nil
		}
	}
	if source == sites.FromFile {
		return 0, fmt.Errorf("the cursor follows site %q, which the configuration file no longer declares: leave cursor out to start from the first page", id)
	}
	for i := range n {
		if k := key(i); k.source == sites.FromAPI && k.id > id {
			return i, nil
		}
	}
	return n, nil
}

// linkNext says where the next page is in a Link header too, for clients that follow it.
func linkNext(w http.ResponseWriter, r *http.Request, next string) {
	if next == "" {
		return
	}
	q := r.URL.Query()
	q.Set("cursor", next)
	w.Header().Set("Link", "<"+r.URL.Path+"?"+q.Encode()+`>; rel="next"`)
}
