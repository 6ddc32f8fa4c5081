package feed

import (
	"encoding/xml"
	"io"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// The RSS 2.0 document, with the atom:link rel="self" that feed validators ask for. Written with
// encoding/xml and types of our own: no RSS library sets that link.
type rssDoc struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	Atom    string     `xml:"xmlns:atom,attr"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title         string    `xml:"title"`
	Link          string    `xml:"link"`
	Description   string    `xml:"description"`
	AtomLink      atomLink  `xml:"atom:link"`
	LastBuildDate string    `xml:"lastBuildDate,omitempty"`
	Generator     string    `xml:"generator"`
	Items         []rssItem `xml:"item"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr"`
}

type rssItem struct {
	Title       string  `xml:"title"`
	Link        string  `xml:"link"`
	GUID        rssGUID `xml:"guid"`
	PubDate     string  `xml:"pubDate"`
	Description string  `xml:"description"`
}

type rssGUID struct {
	IsPermaLink bool   `xml:"isPermaLink,attr"`
	Value       string `xml:",chardata"`
}

// Render writes the RSS 2.0 feed of a site: its items newest first, lastBuildDate the time the
// feed last changed.
func Render(w io.Writer, site *config.Site, items []model.FeedItem, changed time.Time, generator string) error {
	doc := rssDoc{Version: "2.0", Atom: "http://www.w3.org/2005/Atom", Channel: rssChannel{
		Title: site.Feed.Title, Link: site.BaseURL + "/", Description: site.Feed.Description,
		AtomLink:      atomLink{Href: site.Feed.URL, Rel: "self", Type: "application/rss+xml"},
		LastBuildDate: rssDate(changed), Generator: generator,
		Items: make([]rssItem, len(items)),
	}}
	for i, it := range items {
		desc := it.Description
		if desc == "" {
			desc = it.Title
		}
		doc.Channel.Items[i] = rssItem{Title: it.Title, Link: it.URL, GUID: rssGUID{IsPermaLink: true, Value: it.URL},
			PubDate: it.Published.UTC().Format(time.RFC1123Z), Description: desc}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// rssDate writes a time as RSS wants it; a feed never built has no date.
func rssDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC1123Z)
}
