package runner

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// Follower does what comes after a run's URLs are sent, beside the channels: Search Console is
// told of the sitemaps that changed and asked what it made of the URLs sent (internal/google).
// It is no channel — it delivers no queue of due URLs, and keeps no delivery state — and the
// runner knows it only by this interface, which names none of its types, so that the core
// imports nothing of what a follower calls (docs/architecture.md).
type Follower interface {
	// Name names the follower in the record's notes ("google").
	Name() string
	// Sitemaps is told, once the read is over and before the channels deliver, of the sitemaps
	// the run read whole whose content is new or changed since the runs before read them, in
	// the order read; it is not called when there are none. Before the channels, so that a
	// budget the channels spend does not lose a change: the runs after find it unchanged.
	Sitemaps(ctx context.Context, site *config.Site, changed []string) (note string, err error)
	// Follow is told, once the channels delivered, when the run started: it follows up the URLs
	// the runs before sent.
	Follow(ctx context.Context, site *config.Site, start time.Time) (note string, err error)
}

// followersOf returns the followers of a run of site: none for a run that writes nothing.
func (r *Runner) followersOf(site *config.Site, m mode) []Follower {
	if !m.writes || r.Followers == nil {
		return nil
	}
	return r.Followers(site)
}

// followSitemaps tells each follower of the sitemaps the run found changed, if any.
func followSitemaps(ctx context.Context, site *config.Site, followers []Follower, changed []string, rep *recorder) {
	if len(changed) == 0 {
		return
	}
	for _, f := range followers {
		note, err := f.Sitemaps(ctx, site, changed)
		rep.followed(f.Name(), note, err)
	}
}

// follow lets each follower follow the run up once its channels delivered.
func follow(ctx context.Context, site *config.Site, followers []Follower, rep *recorder) {
	for _, f := range followers {
		note, err := f.Follow(ctx, site, rep.rec.StartedAt)
		rep.followed(f.Name(), note, err)
	}
}

// followed records what a follower did: its note, and its failure as a note too — what follows a
// run up is no part of delivering it, so its failure neither fails the run nor holds a channel
// up (sitepush check tells a refused account).
func (rep *recorder) followed(name, note string, err error) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	if note != "" {
		rep.rec.AddNote(name + ": " + note)
	}
	if err != nil {
		rep.rec.AddNote(name + ": failed: " + err.Error())
	}
}
