package scheduler

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestAHangingSiteDoesNotTakeTheSchedule checks that sites whose runs hang (their hosts never
// answer) hold the run slots for one turn at most: a healthy site due meanwhile runs while they
// still hang, and again at its next fire time.
func TestAHangingSiteDoesNotTakeTheSchedule(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.xml"), []byte("<urlset><url><loc>https://a.example/p</loc></url></urlset>"), 0o644)
	c, err := config.Parse([]byte(`sites:
  - {id: stuck-1, sitemaps: [s.xml], baseUrl: https://a.example}
  - {id: stuck-2, sitemaps: [s.xml], baseUrl: https://a.example}
  - {id: healthy, sitemaps: [s.xml], baseUrl: https://a.example}
`), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	stuck := &gate{open: make(chan struct{})} // never opens: the runs end with the test
	healthy := &gate{open: make(chan struct{})}
	close(healthy.open)
	done, log := &finishedRuns{}, &enginetest.Log{}
	runs := NewRuns(runner.New(storetest.Open(t)), func(site *config.Site, _ string) []channel.Channel {
		if site.ID == "healthy" {
			return []channel.Channel{healthy}
		}
		return []channel.Channel{stuck}
	}, done.add, slog.New(slog.NewTextHandler(log, nil)), 2)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", log)
		}
	})
	runs.pool.turn = 100 * time.Millisecond
	t.Cleanup(func() { runs.Shutdown(5 * time.Second) })

	at := time.Now()
	runs.Scheduled(&c.Sites[0], at)
	runs.Scheduled(&c.Sites[1], at)
	eventually(t, "both hanging sites to run", func() bool {
		_, one := runs.Active("stuck-1")
		_, two := runs.Active("stuck-2")
		return one && two
	})
	runs.Scheduled(&c.Sites[2], at) // both slots are held
	eventually(t, "the healthy site's run beside two hanging ones", func() bool { return len(done.all()) == 1 })
	runs.Scheduled(&c.Sites[2], time.Now())
	eventually(t, "the healthy site's next run", func() bool { return len(done.all()) == 2 })
	for _, rec := range done.all() {
		if rec.Site != "healthy" || rec.Status != model.StatusOK {
			t.Errorf("finished %s: %s", rec.Site, rec.Status)
		}
	}
	if _, ok := runs.Active("stuck-1"); !ok {
		t.Error("a hanging run ended: its turn must only give its slot up, not stop it")
	}
}
