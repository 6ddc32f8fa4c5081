package runner

import (
	"slices"
	"sync"

	"github.com/sitepush/sitepush/internal/channel"
)

// answers keeps, per channel of a run, which URLs were due there and which of them an outcome
// answered — sent, failed, skipped or held back by a preflight: their delivery states say when
// they are due again. A URL due and not answered (a quota held it back, the run's budget ran out)
// is found again only by reading its sitemap again, so the read is settled — its memos may spare
// the runs after its pages — only when every due URL was answered. It is what happened that
// decides, URL by URL: the record's counters are only for display.
type answers struct {
	mu sync.Mutex
	// owed and answered hold hashes per channel, in no order and possibly repeated: 8 bytes a URL.
	owed, answered map[string][]int64
}

func newAnswers() *answers {
	return &answers{owed: map[string][]int64{}, answered: map[string][]int64{}}
}

// owe records the URLs of q as due on channel ch, before the queue is handed to the channel or
// dropped: every queue of due URLs goes through here once it leaves the collector.
func (a *answers) owe(ch string, q *channel.Queue) {
	if q == nil || q.Len() == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for from := 0; from < q.Len(); from += lookUpBatch {
		for _, d := range q.Refs(from, from+lookUpBatch) {
			a.owed[ch] = append(a.owed[ch], d.Hash)
		}
	}
}

// answer records the URLs of an outcome as answered on its channel.
func (a *answers) answer(o channel.Outcome) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range o.URLs {
		a.answered[o.Channel] = append(a.answered[o.Channel], d.Hash)
	}
}

// all reports whether every URL owed on every channel was answered.
func (a *answers) all() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for ch, owed := range a.owed {
		answered := a.answered[ch]
		slices.Sort(answered)
		for _, h := range owed {
			if _, ok := slices.BinarySearch(answered, h); !ok {
				return false
			}
		}
	}
	return true
}
