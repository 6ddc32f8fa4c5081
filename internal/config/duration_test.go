package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestDurationYAML(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "100ms", want: 100 * time.Millisecond},
		{in: "720h", want: 720 * time.Hour},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "0", want: 0},
		{in: `"30s"`, want: 30 * time.Second},
		{in: "-1s", want: -time.Second},
		{in: "30", wantErr: `line 1: "30" is not a duration; use Go syntax like 30s`},
		{in: "30d", wantErr: `line 1: "30d" is not a duration`},
		{in: "[1s]", wantErr: "line 1: a duration must be a single value, got a list"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d Duration
			err := yaml.Unmarshal([]byte(tt.in), &d)
			checkErr(t, err, tt.wantErr)
			if tt.wantErr == "" && d.D() != tt.want {
				t.Errorf("got %v, want %v", d.D(), tt.want)
			}
		})
	}
}

func TestDurationYAMLRoundTrip(t *testing.T) {
	in := Sitemap{Timeout: Duration(100 * time.Second), RetryInterval: Duration(1500 * time.Millisecond)}
	out, err := yaml.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "timeout: 1m40s") {
		t.Errorf("marshalled %q, want timeout: 1m40s", out)
	}
	var back Sitemap
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back != in {
		t.Errorf("round trip gave %+v, want %+v", back, in)
	}
}

func TestDurationJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: `"1m40s"`, want: 100 * time.Second},
		{in: `"0s"`, want: 0},
		{in: `0`, want: 0},
		{in: `5`, wantErr: `a duration must be a string like "30s", got 5`},
		{in: `"5"`, wantErr: `"5" is not a duration`},
		{in: `true`, wantErr: `got true`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d := Duration(time.Hour)
			err := json.Unmarshal([]byte(tt.in), &d)
			checkErr(t, err, tt.wantErr)
			if tt.wantErr == "" && d.D() != tt.want {
				t.Errorf("got %v, want %v", d.D(), tt.want)
			}
		})
	}
}

func TestDurationJSONRoundTrip(t *testing.T) {
	in := IndexNow{Interval: Duration(100 * time.Second), Backoff: []Duration{Duration(time.Second), 0}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"interval":"1m40s"`) || !strings.Contains(string(b), `"backoff":["1s","0s"]`) {
		t.Errorf("marshalled %s", b)
	}
	var back IndexNow
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Interval != in.Interval || len(back.Backoff) != 2 || back.Backoff[0] != in.Backoff[0] || back.Backoff[1] != 0 {
		t.Errorf("round trip gave %+v, want %+v", back, in)
	}
	if got := Duration(100 * time.Second).String(); got != "1m40s" {
		t.Errorf("String() = %q, want 1m40s", got)
	}
}
