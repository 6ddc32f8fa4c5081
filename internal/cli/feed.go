package cli

import (
	"bufio"
	"fmt"
	"path/filepath"

	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/config"
)

// runFeed writes a site's current RSS feed to a file, or to stdout, for static hosting. It
// reads the state and writes nothing to it.
func runFeed(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	path := configFlag(fs)
	id := fs.String("site", "", "the site `ID` (default: the only site with a feed)")
	out := fs.String("out", "", "write the feed to `FILE`, atomically, instead of stdout")
	if _, err := parseArgs(e, cmd, fs, args, 0, 0); err != nil {
		return err
	}
	st, site, err := readSite(e, *path, *id, config.Needs{Channel: "feed"}, siteWithFeed(cmd.name))
	if err != nil {
		return err
	}
	defer st.Close()
	items, err := st.FeedItems(e.ctx, site.ID, site.Feed.MaxItems)
	if err != nil {
		return err
	}
	_, changed, err := st.FeedState(e.ctx, site.ID)
	if err != nil {
		return err
	}
	if len(items) == 0 && !site.Feed.Enabled {
		return fmt.Errorf("site %q has no feed: set feed.enabled: true, then run it", site.ID)
	}
	if *out != "" {
		abs, err := filepath.Abs(*out)
		if err != nil {
			return err
		}
		return feed.WriteFile(e.ctx, st, site, abs)
	}
	w := bufio.NewWriter(e.stdout)
	if err := feed.Render(w, site, items, changed, feed.Generator()); err != nil {
		return err
	}
	return w.Flush()
}
