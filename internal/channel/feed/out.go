package feed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sitepush/sitepush/internal/config"
)

// WriteFile writes a site's current feed to path through a temporary file beside it, synced and
// renamed over it: readers see the old file or the new one, never half of one, even after a
// crash. A path that is a symbolic link has its target replaced; the file keeps its mode (0644
// for a new one: it is meant to be published).
func WriteFile(ctx context.Context, store Store, site *config.Site, path string) error {
	items, err := store.FeedItems(ctx, site.ID, site.Feed.MaxItems)
	if err != nil {
		return err
	}
	_, changed, err := store.FeedState(ctx, site.ID)
	if err != nil {
		return err
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	fail := func(err error) error {
		return fmt.Errorf("writing the feed of site %q to %s: %w (check that %s exists and is writable)", site.ID, path, err, filepath.Dir(path))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	err = Render(tmp, site, items, changed, Generator())
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fail(err)
	}
	return nil
}
