// Command sitepush watches sitemaps and submits new and changed URLs to IndexNow and the Bing
// Webmaster API, and publishes a feed of new pages. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	// Mozilla's CA roots, used only where the system has none: the container image is FROM
	// scratch, with no /etc/ssl, and sitepush speaks HTTPS to every engine and sitemap.
	_ "golang.org/x/crypto/x509roots/fallback"

	"github.com/sitepush/sitepush/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal stops gracefully; restoring the default handling makes a second one
		// stop the process at once.
		<-ctx.Done()
		stop()
	}()
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
