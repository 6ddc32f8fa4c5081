package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHealth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			w.Write([]byte(`{"status":"ok"}`))
		case "/sick":
			http.Error(w, `{"error":"the state does not answer (see the server's log)"}`, http.StatusServiceUnavailable)
		case "/slow":
			time.Sleep(time.Second)
		}
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/healthz"
	ln.Close()

	tests := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{srv.URL + "/healthz"}, exitOK, `{"status":"ok"}`, ""},
		{[]string{srv.URL + "/sick"}, exitFailed, "", "answered 503 Service Unavailable: {\"error\":\"the state does not answer"},
		{[]string{srv.URL + "/slow", "--timeout", "50ms"}, exitFailed, "", "no answer within 50ms: Get \"" + srv.URL + "/slow\""},
		{[]string{closed}, exitFailed, "", "is sitepush serve running, with listen: at that address and port?"},
		{[]string{"127.0.0.1:8080/healthz"}, exitUsage, "", `"127.0.0.1:8080/healthz" is not an http(s) URL`},
		{[]string{srv.URL, "--timeout", "0s"}, exitUsage, "", "--timeout must be positive"},
	}
	for _, tc := range tests {
		code, out, errOut := run(t, append([]string{"health"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) {
			t.Errorf("sitepush health %q: exit %d, stdout %q, stderr %q; want exit %d, stdout ~%q, stderr ~%q",
				tc.args, code, out, errOut, tc.code, tc.out, tc.err)
		}
	}
}
