package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// defaultHealthURL is where sitepush serve answers /healthz with the image's listen: :8080.
const defaultHealthURL = "http://127.0.0.1:8080/healthz"

// runHealth asks a running sitepush serve whether it is healthy. It is the container image's
// HEALTHCHECK, so it needs nothing but the binary: a scratch image has no curl and no shell.
func runHealth(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer (`D`, like 5s)")
	pos, err := parseArgs(e, cmd, fs, args, 0, 1)
	if err != nil {
		return err
	}
	target := defaultHealthURL
	if len(pos) == 1 {
		target = pos[0]
	}
	if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("sitepush health: %q is not an http(s) URL; give the server's /healthz, like %s", target, defaultHealthURL)
	}
	if *timeout <= 0 {
		return usageError("sitepush health: --timeout must be positive, like 5s, not %s", *timeout)
	}
	return checkHealth(e, target, *timeout)
}

// checkHealth GETs target and says whether it answered 200; any other answer, or none within
// timeout, is an error naming what to look at.
func checkHealth(e *env, target string, timeout time.Duration) error {
	client := &http.Client{Timeout: timeout}
	req, err := http.NewRequestWithContext(e.ctx, http.MethodGet, target, nil)
	if err != nil {
		return usageError("sitepush health: %q: %v; give the server's /healthz, like %s", target, err, defaultHealthURL)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("no answer within %s: %w (is sitepush serve running, with listen: at that address and port?)",
			timeout, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s: %s (sitepush serve's log says why)",
			target, resp.Status, strings.TrimSpace(string(body)))
	}
	_, err = fmt.Fprintf(e.stdout, "%s: %s\n", target, strings.TrimSpace(string(body)))
	return err
}
