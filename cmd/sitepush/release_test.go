package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"

	"github.com/sitepush/sitepush/internal/config"
)

// The release is built by GoReleaser, which CI does not run (docs/release.md, "What CI checks
// instead"): these tests hold .goreleaser.yaml and the Containerfile to what the docs promise.

// root is the repository's root, seen from this package's directory.
const root = "../.."

// goreleaser is the part of .goreleaser.yaml the promises are about.
type goreleaser struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		NameTemplate    string   `yaml:"name_template"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		Files []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"checksum"`
	NFPMs []nfpm `yaml:"nfpms"`
}

// nfpm is one entry of nfpms: the deb and rpm packages.
type nfpm struct {
	Formats  []string  `yaml:"formats"`
	Bindir   string    `yaml:"bindir"`
	Contents []content `yaml:"contents"`
	Scripts  struct {
		Preinstall  string `yaml:"preinstall"`
		Postinstall string `yaml:"postinstall"`
		Preremove   string `yaml:"preremove"`
	} `yaml:"scripts"`
}

// content is one file of the packages.
type content struct {
	Src      string `yaml:"src"`
	Dst      string `yaml:"dst"`
	Type     string `yaml:"type"`
	FileInfo struct {
		Mode  uint32 `yaml:"mode"`
		Owner string `yaml:"owner"`
		Group string `yaml:"group"`
	} `yaml:"file_info"`
}

func readGoreleaser(t *testing.T) goreleaser {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.Unmarshal(data, &g); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if g.Version != 2 || g.ProjectName != "sitepush" {
		t.Fatalf(".goreleaser.yaml: version %d, project_name %q; want version: 2 (GoReleaser v2) and project_name: sitepush", g.Version, g.ProjectName)
	}
	return g
}

// platforms are the six the release is built for.
var platforms = [][2]string{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"},
	{"darwin", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"},
}

func TestReleaseBuild(t *testing.T) {
	g := readGoreleaser(t)
	if len(g.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: %d builds; want the one of ./cmd/sitepush", len(g.Builds))
	}
	b := g.Builds[0]
	if b.Main != "./cmd/sitepush" || b.Binary != "sitepush" {
		t.Errorf("builds: main %q, binary %q; want ./cmd/sitepush and sitepush", b.Main, b.Binary)
	}
	for _, p := range platforms {
		if !slices.Contains(b.Goos, p[0]) || !slices.Contains(b.Goarch, p[1]) {
			t.Errorf("builds: goos %v, goarch %v leave out %s/%s", b.Goos, b.Goarch, p[0], p[1])
		}
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("builds: env %v, flags %v; want CGO_ENABLED=0 (a static binary for the scratch image) and -trimpath", b.Env, b.Flags)
	}
	bin := filepath.Join(t.TempDir(), "sitepush")
	ldflags := render(t, strings.Join(b.Ldflags, " "), map[string]string{
		"Version": "1.2.3-test", "FullCommit": "0123456789abcdef0123456789abcdef01234567",
	})
	// Only the link differs from the test's own build: the packages come from the build cache.
	build := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build with the ldflags of .goreleaser.yaml: %v\n%s", err, out)
	}
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil || !strings.HasPrefix(string(out), "sitepush 1.2.3-test (commit 0123456789ab,") {
			t.Errorf("sitepush %s, built with the ldflags of .goreleaser.yaml: %q, %v; want the version and the commit they stamp "+
				"(-X github.com/sitepush/sitepush/internal/version.version={{ .Version }}, ….commit={{ .FullCommit }})", arg, out, err)
		}
	}
}

// render executes a GoReleaser template with the fields given; any other field is an error.
func render(t *testing.T, text string, fields map[string]string) string {
	t.Helper()
	tmpl, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, fields); err != nil {
		t.Fatalf("template %q uses a field the test does not know: %v", text, err)
	}
	return b.String()
}

func TestReleaseArchives(t *testing.T) {
	g := readGoreleaser(t)
	if len(g.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: %d archives; want one, of every platform", len(g.Archives))
	}
	a := g.Archives[0]
	names := map[string]bool{}
	for _, p := range platforms {
		format := a.Formats
		for _, o := range a.FormatOverrides {
			if o.Goos == p[0] {
				format = o.Formats
			}
		}
		want := "tar.gz"
		if p[0] == "windows" {
			want = "zip"
		}
		if !slices.Equal(format, []string{want}) {
			t.Errorf("archives: %s/%s in %v; want %s", p[0], p[1], format, want)
		}
		name := render(t, a.NameTemplate, map[string]string{"ProjectName": g.ProjectName, "Version": "1.2.3", "Os": p[0], "Arch": p[1]})
		if !strings.HasPrefix(name, "sitepush_") || names[name] {
			t.Errorf("archives: name_template gives %q for %s/%s; want sitepush_…, one name a platform", name, p[0], p[1])
		}
		names[name] = true
	}
	for _, f := range a.Files {
		if m, _ := filepath.Glob(filepath.Join(root, f)); len(m) == 0 {
			t.Errorf("archives: files: %s matches nothing in the repository", f)
		}
	}
	if g.Checksum.NameTemplate != "checksums.txt" {
		t.Errorf("checksum: name_template %q; want checksums.txt, which the docs tell users to check", g.Checksum.NameTemplate)
	}
}

func TestReleasePackages(t *testing.T) {
	g := readGoreleaser(t)
	if len(g.NFPMs) != 1 {
		t.Fatalf(".goreleaser.yaml: %d nfpms; want one, of the deb and the rpm", len(g.NFPMs))
	}
	n := g.NFPMs[0]
	if !slices.Contains(n.Formats, "deb") || !slices.Contains(n.Formats, "rpm") || n.Bindir != "/usr/bin" {
		t.Errorf("nfpms: formats %v, bindir %q; want deb and rpm, and /usr/bin", n.Formats, n.Bindir)
	}
	src := map[string]string{} // dst → the repository's file
	var conf string
	for _, c := range n.Contents {
		if _, err := os.Stat(filepath.Join(root, c.Src)); err != nil {
			t.Errorf("nfpms: contents: %v", err)
		}
		src[c.Dst] = filepath.Join(root, c.Src)
		if c.Type == "config|noreplace" && strings.HasSuffix(c.Dst, ".yaml") {
			conf = c.Dst
		}
	}
	unit := read(t, src["/usr/lib/systemd/system/sitepush.service"])
	for _, line := range []string{"ExecStart=/usr/bin/sitepush serve --config " + conf, "User=sitepush", "StateDirectory=sitepush"} {
		if conf == "" || !slices.Contains(strings.Split(unit, "\n"), line) {
			t.Errorf("nfpms: /usr/lib/systemd/system/sitepush.service (a config|noreplace .yaml: %q) has no line %s", conf, line)
		}
	}
	if conf != "" {
		checkPackagedConfig(t, src[conf])
	}
	checkSecretFiles(t, n, unit)
	if !regexp.MustCompile(`(?m)^u sitepush `).MatchString(read(t, src["/usr/lib/sysusers.d/sitepush.conf"])) {
		t.Error("nfpms: /usr/lib/sysusers.d/sitepush.conf declares no user sitepush (u sitepush - …)")
	}
	if !regexp.MustCompile(`(?m)^\s*useradd .*sitepush$`).MatchString(read(t, filepath.Join(root, n.Scripts.Preinstall))) {
		t.Errorf("nfpms: the preinstall script %q makes no sitepush user with useradd", n.Scripts.Preinstall)
	}
	for _, s := range []string{n.Scripts.Postinstall, n.Scripts.Preremove} {
		if _, err := os.Stat(filepath.Join(root, s)); err != nil {
			t.Errorf("nfpms: scripts: %v", err)
		}
	}
}

// checkSecretFiles holds the package to what docs/release.md promises of the two files that may
// hold secrets: /etc/sitepush/sitepush.yaml (a postgres:// URL has a password) is 0640, root's
// and readable by the group sitepush, whom the unit runs as; /etc/sitepush/env, which the unit
// reads as root, is 0600. Both are configuration files an upgrade leaves alone once edited, and
// the preinstall script makes the group before the package's files are unpacked with it.
func checkSecretFiles(t *testing.T, n nfpm, unit string) {
	t.Helper()
	want := map[string]struct {
		mode         uint32
		owner, group string
	}{
		"/etc/sitepush/sitepush.yaml": {0o640, "root", "sitepush"},
		"/etc/sitepush/env":           {0o600, "root", "root"},
	}
	for dst, w := range want {
		i := slices.IndexFunc(n.Contents, func(c content) bool { return c.Dst == dst })
		if i < 0 {
			t.Errorf("nfpms: contents has no %s (docs/release.md lists it)", dst)
			continue
		}
		c := n.Contents[i]
		if c.Type != "config|noreplace" || c.FileInfo.Mode != w.mode || c.FileInfo.Owner != w.owner || c.FileInfo.Group != w.group {
			t.Errorf("nfpms: %s is type %q, file_info mode %#o, owner %q, group %q; want config|noreplace, mode %#o, owner %s, group %s",
				dst, c.Type, c.FileInfo.Mode, c.FileInfo.Owner, c.FileInfo.Group, w.mode, w.owner, w.group)
		}
	}
	if !slices.Contains(strings.Split(unit, "\n"), "EnvironmentFile=-/etc/sitepush/env") {
		t.Error("nfpms: /usr/lib/systemd/system/sitepush.service has no line EnvironmentFile=-/etc/sitepush/env")
	}
	if !regexp.MustCompile(`(?m)^\s*groupadd .*sitepush$`).MatchString(read(t, filepath.Join(root, n.Scripts.Preinstall))) {
		t.Errorf("nfpms: the preinstall script %q makes no sitepush group with groupadd (the configuration is unpacked with it)", n.Scripts.Preinstall)
	}
}

// checkPackagedConfig loads the packaged configuration as serve would, its state under
// /var/lib/sitepush, the unit's StateDirectory.
func checkPackagedConfig(t *testing.T, path string) {
	t.Helper()
	env := func(name string) (string, bool) {
		if name == "SITEPUSH_ADMIN_TOKEN" {
			return "a-token-of-the-test", true
		}
		return "", false
	}
	cfg, err := config.Load(path, env)
	if err != nil {
		t.Fatalf("the packaged configuration does not load: %v", err)
	}
	if !strings.HasPrefix(cfg.State, "sqlite:/var/lib/sitepush/") {
		t.Errorf("the packaged configuration's state is %q; want sqlite:/var/lib/sitepush/…, the unit's StateDirectory", cfg.State)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
	}
	return string(data)
}

func TestReleaseDocs(t *testing.T) {
	const snapshot = "go run github.com/goreleaser/goreleaser/v2@v2.15.1 release --snapshot --clean --skip=publish"
	for _, f := range []string{"docs/release.md", ".goreleaser.yaml", "Containerfile"} {
		if !strings.Contains(read(t, filepath.Join(root, f)), snapshot) {
			t.Errorf("%s does not show the snapshot command %s", f, snapshot)
		}
	}
	const image = "buildah bud --format docker -f Containerfile -t sitepush ."
	if !slices.Contains(strings.Split(read(t, filepath.Join(root, "docs/release.md")), "\n"), image) {
		t.Errorf("docs/release.md does not show the image's build command on a line of its own: %s", image)
	}
}
