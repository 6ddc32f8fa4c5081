package cli

import (
	"net/http"

	"github.com/sitepush/sitepush/internal/sitemap"
)

// httpClient is the client every request to engines and sites goes through.
func httpClient() *http.Client { return sitemap.NewClient(16) }
