package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/server"
)

// runInspect prints what sitepush knows of one URL of a site: its story, the document GET
// /api/sites/{id}/urls?url= answers. It reads the state and writes nothing to it.
func runInspect(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	path := configFlag(fs)
	id := fs.String("site", "", "the site `ID` (default: the site on the URL's host)")
	asJSON := fs.Bool("json", false, "print the story as JSON, as the API answers it")
	pos, err := parseArgs(e, cmd, fs, args, 1, 1)
	if err != nil {
		return err
	}
	st, site, err := readSite(e, *path, *id, config.Needs{}, siteOfURL(cmd.name, pos[0]))
	if err != nil {
		return err
	}
	defer st.Close()
	doc, err := server.StoryOf(e.ctx, st, site, pos[0], time.Now())
	if errors.Is(err, server.ErrNoURL) {
		return &exitError{code: exitFailed, err: err}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	writeStory(e.stdout, doc)
	return nil
}

// writeStory writes a URL's story for a person.
func writeStory(w io.Writer, doc *server.URLStory) {
	fmt.Fprintln(w, doc.URL)
	in := "not known yet (no run has read the sitemaps whole)"
	if doc.InSitemaps != nil {
		in = map[bool]string{true: "yes", false: "no: no sitemap lists it now"}[*doc.InSitemaps]
	}
	fmt.Fprintf(w, "  in the sitemaps: %s\n", in)
	fmt.Fprintf(w, "  first seen:      %s\n", doc.FirstSeen.Format(time.RFC3339))
	lastmod := "none given"
	if doc.Lastmod != nil {
		lastmod = doc.Lastmod.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "  lastmod:         %s\n", lastmod)
	fmt.Fprintf(w, "  content:         %s\n", doc.ContentLine(func(t time.Time) string { return t.Format(time.RFC3339) }))
	if rm := doc.Removed; rm != nil {
		gone := "left the sitemaps " + rm.LeftAt.Format(time.RFC3339) + "; not asked yet"
		if rm.Status != nil {
			gone = fmt.Sprintf("left the sitemaps %s; answered %d", rm.LeftAt.Format(time.RFC3339), *rm.Status)
		}
		if rm.AnnouncedAt != nil {
			gone += "; removal announced through IndexNow " + rm.AnnouncedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  removed:         %s\n", gone)
	}
	for _, name := range config.Channels {
		c, ok := doc.Channels[name]
		if !ok {
			continue
		}
		line := "never attempted"
		switch {
		case c.NotSent != "":
			line = c.NotSent + " (taken as known " + c.TakenAt.Format(time.RFC3339) + ")"
			if c.LastDelivery != nil {
				line += "; last delivered " + c.LastDelivery.Format(time.RFC3339)
			}
		case c.LastOutcome != nil:
			line = "last attempt " + c.LastAttempt.Format(time.RFC3339) + ": " + outcomeWord(*c.LastOutcome)
			if c.LastError != "" {
				line += " (" + c.LastError + ")"
			}
			if c.LastDelivery != nil {
				line += "; last delivered " + c.LastDelivery.Format(time.RFC3339)
			}
		}
		due := "not due"
		if c.Due {
			due = "due: " + *c.Why
			if c.HeldByQuota != "" {
				due += ", held by quota (" + c.HeldByQuota + "), resets at 00:00 UTC"
			}
		}
		fmt.Fprintf(w, "  %-8s %s; %s\n", name+":", line, due)
	}
	if b := doc.Bing; b != nil {
		crawled := "never crawled"
		if b.LastCrawled != nil {
			crawled = fmt.Sprintf("last crawled %s (HTTP %d)", b.LastCrawled.Format(time.RFC3339), b.HTTPStatus)
		}
		if b.HoursToCrawl != nil {
			crawled += fmt.Sprintf(", %.1f h after its submission", *b.HoursToCrawl)
		}
		fmt.Fprintf(w, "  crawled by Bing: %s; asked %s\n", crawled, b.CheckedAt.Format(time.RFC3339))
	}
	if g := doc.Google; g != nil {
		crawl := "never crawled"
		if g.LastCrawl != nil {
			crawl = "last crawled " + g.LastCrawl.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  google:  %s (%s), %s; asked %s\n", g.CoverageState, g.IndexingState, crawl, g.CheckedAt.Format(time.RFC3339))
	}
	if p := doc.Preflight; p != nil {
		verdict := "eligible"
		if p.Reason != nil {
			verdict = "not eligible: " + *p.Reason
			if p.Detail != nil {
				verdict += " (" + *p.Detail + "); " + p.Fix
			}
		}
		fmt.Fprintf(w, "  preflight:       %s, checked %s for %s\n", verdict, p.CheckedAt.Format(time.RFC3339), p.Channel)
	}
}

// outcomeWord is a delivery's outcome in a person's words, as the summary and the dashboard say
// it: ineligible is "not eligible".
func outcomeWord(outcome string) string {
	if outcome == "ineligible" {
		return "not eligible"
	}
	return outcome
}
