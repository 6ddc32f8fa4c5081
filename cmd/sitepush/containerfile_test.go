package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/cli"
)

// instruction is one instruction of the Containerfile: its keyword, upper case, and the rest.
type instruction struct {
	keyword, rest string
}

// readContainerfile returns the Containerfile's instructions, continuation lines joined and
// comments left out.
func readContainerfile(t *testing.T) []instruction {
	t.Helper()
	var out []instruction
	var line string
	for raw := range strings.SplitSeq(read(t, filepath.Join(root, "Containerfile")), "\n") {
		trimmed := strings.TrimSpace(raw)
		if strings.HasPrefix(trimmed, "#") || trimmed == "" && line == "" {
			continue
		}
		if cont, ok := strings.CutSuffix(trimmed, "\\"); ok {
			line += cont + " "
			continue
		}
		line += trimmed
		keyword, rest, _ := strings.Cut(line, " ")
		out = append(out, instruction{strings.ToUpper(keyword), strings.TrimSpace(rest)})
		line = ""
	}
	return out
}

// only returns the rest of the one instruction with keyword, failing when there is not one.
func only(t *testing.T, ins []instruction, keyword string) string {
	t.Helper()
	var found []string
	for _, in := range ins {
		if in.keyword == keyword {
			found = append(found, in.rest)
		}
	}
	if len(found) != 1 {
		t.Fatalf("Containerfile: %d %s instructions %q; want one", len(found), keyword, found)
	}
	return found[0]
}

// execForm decodes an instruction's exec form, a JSON array: a scratch image has no shell to run
// the shell form.
func execForm(t *testing.T, keyword, rest string) []string {
	t.Helper()
	var argv []string
	if err := json.Unmarshal([]byte(rest), &argv); err != nil || len(argv) == 0 {
		t.Fatalf("Containerfile: %s %s is not in exec form, a JSON array (the image has no shell)", keyword, rest)
	}
	return argv
}

func TestContainerfile(t *testing.T) {
	ins := readContainerfile(t)
	if from := only(t, ins, "FROM"); from != "scratch" {
		t.Errorf("Containerfile: FROM %s; want FROM scratch: nothing in the image but sitepush, and no registry to build it", from)
	}
	if user := only(t, ins, "USER"); user != "65532" && user != "65532:65532" {
		t.Errorf("Containerfile: USER %s; want 65532, not root", user)
	}
	if w := only(t, ins, "WORKDIR"); w != "/data" {
		t.Errorf("Containerfile: WORKDIR %s; want /data, the volume", w)
	}
	if v := strings.Fields(only(t, ins, "VOLUME")); !slices.Contains(v, "/data") && !slices.Contains(v, `["/data"]`) {
		t.Errorf("Containerfile: VOLUME %s; want /data", v)
	}
	entry := execForm(t, "ENTRYPOINT", only(t, ins, "ENTRYPOINT"))
	if !slices.Equal(entry, []string{"/sitepush"}) {
		t.Errorf("Containerfile: ENTRYPOINT %q; want [\"/sitepush\"]", entry)
	}
	if cmd := strings.Join(execForm(t, "CMD", only(t, ins, "CMD")), " "); cmd != "serve --config /config/sitepush.yaml" {
		t.Errorf("Containerfile: CMD %q; want serve --config /config/sitepush.yaml", cmd)
	}
	checkHealthcheck(t, ins, entry[0])
	checkCopies(t, ins, entry[0])
}

// checkHealthcheck checks that the HEALTHCHECK asks serve through the binary, at a port the image
// exposes.
func checkHealthcheck(t *testing.T, ins []instruction, binary string) {
	t.Helper()
	hc := only(t, ins, "HEALTHCHECK")
	_, form, ok := strings.Cut(hc, " CMD ")
	if !ok {
		t.Fatalf("Containerfile: HEALTHCHECK %s; want HEALTHCHECK [OPTIONS] CMD [\"%s\", \"health\"]", hc, binary)
	}
	argv := execForm(t, "HEALTHCHECK CMD", form)
	if len(argv) < 2 || argv[0] != binary || argv[1] != "health" {
		t.Fatalf("Containerfile: HEALTHCHECK CMD %q; want [\"%s\", \"health\"]: the image has no curl", argv, binary)
	}
	target := defaultHealthURL(t)
	if len(argv) > 2 {
		target = argv[2]
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	if exposed := strings.Fields(only(t, ins, "EXPOSE")); !slices.Contains(exposed, u.Port()) && !slices.Contains(exposed, u.Port()+"/tcp") {
		t.Errorf("Containerfile: the HEALTHCHECK asks %s, and the image exposes %v", target, exposed)
	}
}

// defaultHealthURL is the URL sitepush health asks by default, as its help says.
func defaultHealthURL(t *testing.T) string {
	t.Helper()
	var out, errOut bytes.Buffer
	cli.Main(context.Background(), []string{"help", "health"}, &out, &errOut)
	m := regexp.MustCompile(`default (http://\S+/healthz)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("sitepush help health names no default URL: %q %q", out.String(), errOut.String())
	}
	return m[1]
}

// checkCopies checks that the binary is the one GoReleaser built for TARGETARCH, and that /data
// comes from a directory of the repository owned by the image's user.
func checkCopies(t *testing.T, ins []instruction, binary string) {
	t.Helper()
	g := readGoreleaser(t)
	if arg := only(t, ins, "ARG"); arg != "TARGETARCH=amd64" {
		t.Errorf("Containerfile: ARG %s; want TARGETARCH=amd64, the platform's, amd64 when none is given", arg)
	}
	var binSrc, dataSrc string
	for _, in := range ins {
		f := strings.Fields(in.rest)
		if in.keyword != "COPY" || len(f) < 2 {
			continue
		}
		switch dst := f[len(f)-1]; {
		case dst == binary:
			binSrc = f[len(f)-2]
		case strings.TrimSuffix(dst, "/") == "/data" && f[0] == "--chown=65532:65532":
			dataSrc = f[len(f)-2]
		}
	}
	// GoReleaser builds into dist/ID_OS_ARCH_VARIANT: amd64's v1, arm64's v8.0.
	for arch, dir := range map[string]string{"amd64": "linux_amd64_v1", "arm64": "linux_arm64_v8.0"} {
		pattern := strings.ReplaceAll(binSrc, "${TARGETARCH}", arch)
		built := "dist/" + g.Builds[0].ID + "_" + dir + "/" + g.Builds[0].Binary
		if ok, _ := filepath.Match(pattern, built); !ok {
			t.Errorf("Containerfile: COPY %s %s with TARGETARCH=%s does not take GoReleaser's %s", binSrc, binary, arch, built)
		}
	}
	if st, err := os.Stat(filepath.Join(root, dataSrc)); dataSrc == "" || err != nil || !st.IsDir() {
		t.Errorf("Containerfile: no COPY --chown=65532:65532 of a directory of the repository to /data (%q): "+
			"scratch has no shell to make it, and a volume there would be root's", dataSrc)
	}
}
