#!/bin/sh
# Builds the Worker's WebAssembly and copies Go's JS support next to it, into build/, with
# build.js: the build's checksum, in the fingerprint the schedule is planned under.
# HTTP/2 is left out of Go's net/http: the Workers runtime's fetch speaks it for the Worker.
set -eu
cd "$(dirname "$0")"
mkdir -p build
GOOS=js GOARCH=wasm go build -tags nethttpomithttp2 -trimpath -ldflags="-s -w" -o build/sitepush.wasm ../cmd/sitepush-worker
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" build/wasm_exec.js
echo "export const build = \"$(cksum < build/sitepush.wasm | tr ' ' '-')\";" > build/build.js
echo "built build/sitepush.wasm ($(wc -c < build/sitepush.wasm) bytes)"
