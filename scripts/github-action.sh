#!/usr/bin/env bash
# The GitHub Action's step (action.yml), as a script that runs anywhere: it gets sitepush, makes a
# configuration from the inputs (unless one is given), runs sitepush once — with the state the
# Actions cache kept of the earlier runs, else with the baseline — and writes the outputs. Its
# inputs come in the environment, as action.yml's step passes them:
#
#   SITEPUSH_SITEMAP        the sitemap just built: a path or a URL
#   SITEPUSH_BASELINE       the sitemap before the deploy: a path or a URL (default: the live one)
#   SITEPUSH_INDEXNOW_KEY   the site's IndexNow key
#   SITEPUSH_BING_API_KEY   a Bing Webmaster API key (optional)
#   SITEPUSH_SITE_DIR       the directory the site was built into: its pages are compared from there
#   SITEPUSH_CONFIG_FILE    a whole configuration instead of the one made from the above
#   SITEPUSH_DRY_RUN        true: read and compare, submit nothing
#   SITEPUSH_VERSION        the release to install (latest, or a tag)
#   SITEPUSH_INSTALL        release (download the archive, checksum verified) or go (go install)
#   SITEPUSH_BINARY         use this sitepush binary instead of installing one (offline, tests)
#   SITEPUSH_CACHE          true (the default): keep the state in SITEPUSH_STATE_DIR, false: none
#   SITEPUSH_STATE_DIR      the directory the Actions cache restores before the step and saves
#                           after it; unset, nothing is kept between runs (state: memory)
#
# The state is sitepush.db in SITEPUSH_STATE_DIR. When it is there (restored), the earlier runs'
# record says what was sent, and no baseline is read: it would take a page it lists without a
# lastmod for unchanged, whatever its content. A configuration given whole reads the file as
# ${SITEPUSH_STATE_FILE}, and the site's directory as ${SITEPUSH_SITE_DIR}, made absolute.
#
# It prints sitepush's summary of the run, with a GitHub annotation per error (::error: the
# engine's answer and the fix) and per channel that held URLs back (::warning), and appends the
# run's account in Markdown to $GITHUB_STEP_SUMMARY when set. It writes submitted, failed and
# record to $GITHUB_OUTPUT when set, else to stdout, and state (the directory, when a run that
# was no dry run left a state to keep), and exits as sitepush run does: 0 when everything due was
# submitted, 1 when something failed, 2 on bad input.
set -euo pipefail

repo=sitepush/sitepush
work=${RUNNER_TEMP:-$(mktemp -d)}/sitepush-action
mkdir -p "$work"

# annotate prints a GitHub annotation of level $1 (error, warning) with the message $2. The
# message may hold an input: %, CR and LF are escaped as GitHub's workflow commands want, so that
# an input cannot end the command and start another.
annotate() {
	local msg=$2
	msg=${msg//%/%25}
	msg=${msg//$'\r'/%0D}
	msg=${msg//$'\n'/%0A}
	echo "::$1 title=sitepush::$msg" >&2
}

# die prints an error annotation and exits 2, as sitepush does on bad input.
die() {
	annotate error "$*"
	exit 2
}

# literal prints its argument as a single-quoted YAML string that sitepush reads back unchanged:
# ' is doubled, as YAML wants, and every ${ becomes $${, sitepush's literal "${", so that text
# from an input or a sitemap is never expanded from the environment (nor can it end the string
# and add settings).
literal() {
	local v=${1//\'/\'\'}
	v=${v//\$\{/\$\$\{}
	printf "'%s'" "$v"
}

# install puts the sitepush binary in $work/bin and prints its path.
install() {
	if [[ -n ${SITEPUSH_BINARY:-} ]]; then
		[[ -x $SITEPUSH_BINARY ]] || die "SITEPUSH_BINARY=$SITEPUSH_BINARY is not an executable sitepush binary"
		echo "$SITEPUSH_BINARY"
		return
	fi
	local version=${SITEPUSH_VERSION:-latest} bin=$work/bin
	mkdir -p "$bin"
	if [[ ${SITEPUSH_INSTALL:-release} == go ]]; then
		command -v go >/dev/null || die "install: go needs Go 1.26 on the runner (actions/setup-go), or use install: release"
		GOBIN=$bin go install "github.com/$repo/cmd/sitepush@$version" >&2 || die "go install github.com/$repo/cmd/sitepush@$version failed"
		echo "$bin/sitepush"
		return
	fi
	[[ ${SITEPUSH_INSTALL:-release} == release ]] || die "install must be release or go, got ${SITEPUSH_INSTALL}"
	local os arch ext=tar.gz exe=sitepush
	case ${RUNNER_OS:-$(uname -s)} in
	Linux) os=linux ;;
	macOS | Darwin) os=darwin ;;
	Windows | MINGW* | MSYS*) os=windows ext=zip exe=sitepush.exe ;;
	*) die "no sitepush release for the runner's OS ${RUNNER_OS:-$(uname -s)}: use install: go" ;;
	esac
	case ${RUNNER_ARCH:-$(uname -m)} in
	X64 | x86_64 | amd64) arch=amd64 ;;
	ARM64 | arm64 | aarch64) arch=arm64 ;;
	*) die "no sitepush release for the runner's architecture ${RUNNER_ARCH:-$(uname -m)}: use install: go" ;;
	esac
	if [[ $version == latest ]]; then
		version=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "https://github.com/$repo/releases/latest" | sed 's#.*/tag/##')
		[[ $version == v* ]] || die "the latest sitepush release could not be found on github.com/$repo/releases"
	fi
	local base=https://github.com/$repo/releases/download/$version
	local archive=sitepush_${version#v}_${os}_${arch}.$ext
	curl -fsSL --retry 3 -o "$work/$archive" "$base/$archive" || die "downloading $base/$archive failed"
	curl -fsSL --retry 3 -o "$work/checksums.txt" "$base/checksums.txt" || die "downloading $base/checksums.txt failed"
	(cd "$work" && grep " ${archive}\$" checksums.txt | sha256sum -c - >&2) ||
		die "$archive does not match its sha256 in checksums.txt: not installed"
	if [[ $ext == zip ]]; then
		unzip -o -q "$work/$archive" "$exe" -d "$bin"
	else
		tar -xzf "$work/$archive" -C "$bin" "$exe"
	fi
	echo "$bin/$exe"
}

# origin prints the scheme and host of the first URL a sitemap lists: what comes before its path,
# query or fragment.
origin() {
	local first
	first=$("$sitepush" urls "$1" 2>/dev/null | head -n 1) || true
	[[ $first =~ ^(https?://[^/?#]+) ]] || die "the sitemap $1 lists no http(s) URL: is it the built sitemap?"
	echo "${BASH_REMATCH[1]}"
}

# configure writes the configuration of the inputs to $work/sitepush.yaml and prints its path.
configure() {
	local sitemap=${SITEPUSH_SITEMAP:-} key=${SITEPUSH_INDEXNOW_KEY:-}
	[[ -n $sitemap ]] || die "the input sitemap is required (the sitemap just built), unless config is given"
	[[ -n $key ]] || die "the input indexnow-key is required (its key file must be published as https://your.site/KEY.txt), unless config is given"
	# The key is checked here, before it is written into the configuration, as sitepush checks
	# it: an input that is no key (YAML, a ${VAR}) is refused, and is not echoed back.
	[[ $key =~ ^[A-Za-z0-9-]{8,128}$ ]] ||
		die "the input indexnow-key is not an IndexNow key: it must be 8–128 characters of A–Z, a–z, 0–9 and \"-\" (the name of its key file, KEY.txt); check the secret it comes from"
	[[ $sitemap != *[[:cntrl:]]* ]] || die "the input sitemap holds a control character (a line break?): give one path or URL"
	local site
	site=$(origin "$sitemap")
	case $sitemap in
	http://* | https://*) ;;
	*) sitemap=$(cd "$(dirname "$sitemap")" && pwd)/$(basename "$sitemap") ;;
	esac
	{
		if [[ -n $state ]]; then
			echo "state: $(literal "sqlite:$state")"
		else
			echo "state: memory"
		fi
		echo "sites:"
		echo "  - id: site"
		echo "    sitemaps: [$(literal "$sitemap")]"
		echo "    baseUrl: $(literal "$site")"
		echo "    indexnow: {enabled: true, key: $(literal "$key")}"
		if [[ -n ${SITEPUSH_SITE_DIR:-} ]]; then
			echo "    changes: {dir: $(literal "$SITEPUSH_SITE_DIR")}"
		fi
		if [[ -n ${SITEPUSH_BING_API_KEY:-} ]]; then
			echo "    bing: {enabled: true, apiKey: \"\${SITEPUSH_BING_API_KEY}\"}"
		fi
	} >"$work/sitepush.yaml"
	echo "$work/sitepush.yaml"
}

# output writes one output, in GitHub's multi-line form.
output() {
	local to=${GITHUB_OUTPUT:-/dev/stdout} delim
	delim=EOF_$RANDOM$RANDOM
	printf '%s<<%s\n%s\n%s\n' "$1" "$delim" "$2" "$delim" >>"$to"
}

# records prints the records without their lists of URLs: a step's outputs are limited (1 MB a
# job), and the lists are on the job's summary page.
records() {
	if command -v jq >/dev/null; then
		jq -c 'del(.urls)' "$record"
	else
		python3 -c "import json,sys; [print(json.dumps({k: v for k, v in json.loads(l).items() if k != 'urls'}, separators=(',', ':'), ensure_ascii=False)) for l in open(sys.argv[1]) if l.strip()]" "$record"
	fi
}

# total sums a field of every channel of every record.
total() {
	if command -v jq >/dev/null; then
		jq -s "[.[].channels[]?.$1] | add // 0" "$record"
	else
		python3 -c "import json,sys; print(sum(c.get('$1', 0) for l in open(sys.argv[1]) if l.strip() for c in json.loads(l)['channels'].values()))" "$record"
	fi
}

# sitedir makes the input site-dir absolute, as the workspace has it, so that it means the same
# to a configuration in another directory; it must be the directory the build wrote.
sitedir() {
	local dir=${SITEPUSH_SITE_DIR:-}
	[[ -z $dir ]] && return
	[[ $dir != *[[:cntrl:]]* ]] || die "the input site-dir holds a control character (a line break?): give one directory"
	[[ -d $dir ]] || die "the input site-dir $dir is not a directory: give the directory the site was built into (like public), and run the action after the build"
	(cd "$dir" && pwd)
}

# statefile prints the path of the state the Actions cache keeps, and makes its directory; nothing
# when there is none to keep.
statefile() {
	[[ -n ${SITEPUSH_STATE_DIR:-} && ${SITEPUSH_CACHE:-true} != false ]] || return 0
	[[ ${SITEPUSH_CACHE:-true} == true ]] || die "cache must be true or false, got ${SITEPUSH_CACHE}"
	mkdir -p "$SITEPUSH_STATE_DIR"
	echo "$SITEPUSH_STATE_DIR/sitepush.db"
}

sitepush=$(install)
# A release older than the action lacks the flags the run below gives it: say so, not "flag
# provided but not defined".
[[ $("$sitepush" run --help 2>/dev/null) == *--step-summary* ]] ||
	die "the sitepush installed (version ${SITEPUSH_VERSION:-latest}) is older than this action: it lacks run --json-out, --github and --step-summary; give version: latest, or use the action of that release"
SITEPUSH_SITE_DIR=$(sitedir)
state=$(statefile)
[[ -n $SITEPUSH_SITE_DIR ]] && export SITEPUSH_SITE_DIR
[[ -n $state ]] && export SITEPUSH_STATE_FILE=$state
config=${SITEPUSH_CONFIG_FILE:-}
[[ -z $config ]] && config=$(configure)
[[ -f $config ]] || die "config $config is not a file"
if [[ -n $SITEPUSH_SITE_DIR && -n ${SITEPUSH_CONFIG_FILE:-} ]] && ! grep -q 'SITEPUSH_SITE_DIR' "$config"; then
	annotate warning "site-dir is not read: the config input names no \${SITEPUSH_SITE_DIR}; give its site changes: {dir: \"\${SITEPUSH_SITE_DIR}\"}"
fi
baseline=${SITEPUSH_BASELINE:-}
if [[ -n $state && -s $state ]]; then
	annotate notice "sitepush's state was restored from the cache: the earlier runs' record says what was sent, so no baseline is read"
	baseline=
elif [[ -z $baseline && -n ${SITEPUSH_SITEMAP:-} ]]; then
	live=$(origin "$SITEPUSH_SITEMAP")/$(basename "${SITEPUSH_SITEMAP%%\?*}")
	if curl -fsSL --retry 2 -o "$work/live-sitemap.xml" "$live"; then
		baseline=$work/live-sitemap.xml
	else
		annotate warning "no live sitemap at $live (a first deploy?): every URL of the sitemap is taken as new"
	fi
elif [[ -n $baseline && $baseline != http://* && $baseline != https://* && ! -e $baseline ]]; then
	annotate warning "the baseline $baseline does not exist (a first deploy?): every URL of the sitemap is taken as new"
	baseline=
fi
# One pass tells it all: the summary and an annotation per error and per URLs held back in the
# log, the record (the outputs) in a file, the account in Markdown on the job's summary page.
record=$work/record.jsonl
args=(run --config "$config" --json-out "$record" --github)
[[ -n ${GITHUB_STEP_SUMMARY:-} ]] && args+=(--step-summary "$GITHUB_STEP_SUMMARY")
[[ -n $baseline ]] && args+=(--baseline "$baseline")
[[ ${SITEPUSH_DRY_RUN:-false} == true ]] && args+=(--dry-run)
rm -f "$record"
echo "sitepush ${args[*]}" >&2
status=0
"$sitepush" "${args[@]}" || status=$?
# Whatever the run's outcome: what it sent before it failed is known, and is not sent again.
if [[ -n $state && -e $state && ${SITEPUSH_DRY_RUN:-false} != true ]]; then
	output state "$SITEPUSH_STATE_DIR"
fi
if [[ ! -s $record ]]; then
	# No site ran (bad input, a configuration refused): sitepush said why above.
	exit "$status"
fi
output submitted "$(total submitted)"
output failed "$(total failed)"
output record "$(records)"
exit "$status"
