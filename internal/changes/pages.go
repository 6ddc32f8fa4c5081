package changes

import (
	"context"
	"fmt"
	"net/url"

	"github.com/sitepush/sitepush/internal/fingerprint"
	"github.com/sitepush/sitepush/internal/model"
)

// DirReader reads a site's pages for a run's content checks from its build on disk
// (changes.dir, channel.PageReader) instead of fetching them: a page is its file, as Dir maps
// it. It opens the directory for each page, so that it holds nothing open between runs.
type DirReader struct{ path string }

// NewDirReader returns the reader of the site built into path.
func NewDirReader(path string) *DirReader { return &DirReader{path: path} }

// ReadPage reads u's file and returns its fingerprint; a page with no file returns an error
// that wraps fs.ErrNotExist and names the paths tried. A file has no validators: it is read
// whole each time, which costs less than a fetch.
func (r *DirReader) ReadPage(ctx context.Context, u string, _ model.Validators) (model.PageRead, error) {
	if err := ctx.Err(); err != nil {
		return model.PageRead{}, err
	}
	pu, err := url.Parse(u)
	if err != nil {
		return model.PageRead{}, fmt.Errorf("not a URL to read from changes.dir (%v)", err)
	}
	d, err := OpenDir(r.path)
	if err != nil {
		return model.PageRead{}, err
	}
	defer d.Close()
	f, _, _, err := d.Open(pu)
	if err != nil {
		return model.PageRead{}, err
	}
	defer f.Close()
	sum, err := fingerprint.Of(f, "")
	if err != nil {
		return model.PageRead{}, err
	}
	return model.PageRead{Content: sum}, nil
}
