package config

import (
	"math"
	"strconv"
)

// DefaultPerSite is metrics.perSite when the file does not give it: enough for every site of most
// fleets, and a scrape of a fleet of any size stays under 500 KB.
const DefaultPerSite = 500

// Metrics are the settings of GET /metrics of `sitepush serve`.
type Metrics struct {
	// PerSite bounds the sites that have series of their own (a site label): "all", "none", or a
	// number N, the N sites with the most activity. Fleet-wide totals are shown whatever it says.
	PerSite PerSite `yaml:"perSite"`

	// sites is PerSite parsed by validation.
	sites int
}

// PerSite is metrics.perSite as written: "all", "none" or a whole number, which YAML may give as
// a number (500) or as text ("500").
type PerSite string

// Sites returns how many sites may have series of their own: math.MaxInt for all, 0 for none.
func (m Metrics) Sites() int { return m.sites }

// check parses perSite.
func (m *Metrics) check(p *problems) {
	switch v := string(m.PerSite); v {
	case "all":
		m.sites = math.MaxInt
	case "none":
		m.sites = 0
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			p.addf("metrics.perSite must be all, none or a whole number of sites (0 or more), like %d; got %q", DefaultPerSite, m.PerSite)
			return
		}
		m.sites = n
	}
}
