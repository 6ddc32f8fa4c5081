package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
)

// Any 2xx of an IndexNow endpoint accepts: Bing's endpoint answers 203 Non-Authoritative
// Information to some networks. What it accepted is not sent again.
func TestA203Accepts(t *testing.T) {
	w := newTestWorld(t, "")
	w.eng.AcceptStatus = 203
	w.publish(10)
	code, out, errOut := run(t, "run", "--config", w.config, "--json")
	var rec model.Record
	json.Unmarshal([]byte(out), &rec)
	ep := rec.Channels["indexnow"].Endpoints[w.engine.URL+"/indexnow"]
	if c := rec.Channels["indexnow"]; code != exitOK || c.Submitted != 10 || c.Failed != 0 || ep == nil || ep.Accepted != 1 || ep.Failed != 0 {
		t.Fatalf("an endpoint answering 203: exit %d, %+v, endpoint %+v: %s", code, c, ep, errOut)
	}
	n := len(w.eng.Submissions())
	if code, _, _ := run(t, "run", "--config", w.config); code != exitOK || len(w.eng.Submissions()) != n {
		t.Errorf("the next run: exit %d, %d requests more; want none", code, len(w.eng.Submissions())-n)
	}
}

// A request accepted after a 429 counts once, as accepted: the 429 is a wait, shown as a retry
// and among the answers, never as a failure — in the record and in the summary.
func TestARequestAcceptedAfterA429CountsOnce(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(10)
	w.eng.Fail(enginetest.Fault{Status: 429, RetryAfter: "0"})
	code, out, errOut := run(t, "run", "--config", w.config, "--json")
	var rec model.Record
	json.Unmarshal([]byte(out), &rec)
	c := rec.Channels["indexnow"]
	ep := c.Endpoints[w.engine.URL+"/indexnow"]
	if code != exitOK || c.Submitted != 10 || c.Failed != 0 || ep == nil {
		t.Fatalf("429 then 202: exit %d, %+v: %s", code, c, errOut)
	}
	if ep.Requests != 1 || ep.Accepted != 1 || ep.Failed != 0 || ep.Retries != 1 || ep.Statuses["429"] != 1 || ep.Statuses["202"] != 1 {
		t.Errorf("429 then 202: endpoint %+v; want 1 request, accepted, 0 failed, 1 retry, answers 429 and 202", ep)
	}
	w.publish(20)
	w.eng.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 429, RetryAfter: "0"})
	code, out, _ = run(t, "run", "--config", w.config)
	failed := regexp.MustCompile(`([\d,]+) failed`).FindAllStringSubmatch(out, -1)
	if code != exitOK || len(failed) != 2 || !strings.Contains(out, "1 request, 1 accepted, 0 failed, 2 retries") {
		t.Fatalf("503, 429, then 202: exit %d\n%s", code, out)
	}
	for _, f := range failed {
		if f[1] != "0" {
			t.Errorf("the summary counts %s failed:\n%s", f[1], out)
		}
	}
}
