package config

import (
	"strconv"
	"time"

	"github.com/sitepush/sitepush/internal/version"
)

// Builtin returns the settings every site starts from, before the file's defaults and the site's
// own keys are laid over them. It returns a fresh value on each call, so callers may change it.
// The feed's title and description are not here: they are derived from each site's id and baseUrl.
func Builtin() Settings {
	return Settings{
		Schedule:       "0 0 * * *",
		RunBudget:      Duration(5 * time.Minute),
		ResubmitAfter:  Duration(720 * time.Hour),
		PreflightAfter: Duration(168 * time.Hour),
		Backlog:        BacklogAll,
		Sitemap: Sitemap{
			Timeout:       Duration(30 * time.Second),
			Retries:       3,
			RetryInterval: Duration(2 * time.Second),
			MaxBytes:      50 << 20,
			MaxDepth:      5,
		},
		Changes: Changes{
			Detect:       DetectAuto,
			ChecksPerRun: 1000,
		},
		IndexNow: IndexNow{
			Endpoints:     []string{"https://api.indexnow.org/indexnow"},
			Method:        "post",
			BatchSize:     10000,
			MaxConcurrent: 3,
			Interval:      Duration(100 * time.Millisecond),
			MaxRetries:    3,
			Backoff:       []Duration{Duration(time.Second), Duration(2 * time.Second), Duration(4 * time.Second)},
			ThrottleWait:  Duration(60 * time.Second),
			Removed:       true,
		},
		Bing: Bing{
			DailyQuota:  100,
			Priority:    "newest",
			Endpoint:    "https://ssl.bing.com/webmaster/api.svc/json",
			BatchSize:   100,
			Track:       true,
			TrackPerRun: 50,
			Preflight:   true,
		},
		Google: Google{
			Sitemaps:      true,
			Inspect:       true,
			InspectPerDay: 500,
			Endpoint:      "https://www.googleapis.com",
		},
		Feed: Feed{
			MaxItems:      50,
			FetchTitles:   true,
			BaselineItems: 10,
			KeepDays:      30,
		},
	}
}

// defaultFailureRate is the webhook's failureRate when a webhook is given without one.
const defaultFailureRate = 0.10

// defaultConcurrency is serve.concurrency when the file does not give it.
const defaultConcurrency = 4

// builtinConfig returns the top-level values a file does not have to give.
func builtinConfig() Config {
	return Config{
		State:     "sqlite:sitepush.db",
		Listen:    "127.0.0.1:8080",
		UserAgent: version.UserAgent(),
		Metrics:   Metrics{PerSite: PerSite(strconv.Itoa(DefaultPerSite))},
		Serve:     Serve{Concurrency: defaultConcurrency},
		Defaults:  Builtin(),
	}
}
