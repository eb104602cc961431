#!/usr/bin/env bash
# Builds the OpenTelemetry Collector the OTLP output's tests export to (test/support/otelcol.ts), once,
# from the Go module proxy, the way the harness builds k6 (src/engines/load/k6/k6-binary.ts): a
# throwaway module that requires pinned releases, `go build` in it, the binary renamed into a cache
# that later runs reuse. Prints the binary's path on its last line. Safe to run again: a cached
# binary is reused at once.
#
# Only what the tests need, to keep a cold build short on a 2-core machine: the OTLP receiver
# (core) and contrib's file exporter (JSON lines), the file and env config providers, and telemetry
# of its own that logs warnings to stderr and nothing else (the stock one links the Go SDK's
# exporters: 33 MB and about 40% more CPU to build, against 26 MB). Pinned at
# collector v0.161.0 (core v1.67.0): the newest release whose fileexporter the Go module proxy
# serves with every package it needs (go-partial.tsv: fileexporter v0.161.0; newer failed).
#
# Where: $SVC_HARNESS_CACHE, else $XDG_CACHE_HOME/svc-harness, else ~/.cache/svc-harness, then
# otelcol/v0.161.0/otelcol (the k6 build's cache folder, cacheDir() in k6-binary.ts).
set -euo pipefail

release=0.161.0 # collector core v0.x and contrib
stable=1.67.0   # collector core v1.x modules of the same release
cache="${SVC_HARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-harness}"
target="$cache/otelcol/v$release/otelcol"

say() { printf 'otelcol: %s\n' "$*" >&2; }

if [ -x "$target" ]; then
  echo "$target"
  exit 0
fi
go=$(command -v go || true)
[ -n "$go" ] || { [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go; }
if [ -z "$go" ]; then
  say "no Go (go on PATH or /usr/local/go/bin/go): cannot build the collector the OTLP tests use"
  exit 2
fi

module=$(mktemp -d "${TMPDIR:-/tmp}/svc-harness-otelcol-build-XXXXXX")
trap 'rm -rf "$module"' EXIT
cat >"$module/go.mod" <<MOD
module svcharness/otelcol

go 1.24

require (
	github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter v$release
	go.opentelemetry.io/collector/component v$stable
	go.opentelemetry.io/collector/confmap v$stable
	go.opentelemetry.io/collector/confmap/provider/envprovider v$stable
	go.opentelemetry.io/collector/confmap/provider/fileprovider v$stable
	go.opentelemetry.io/collector/exporter v$stable
	go.opentelemetry.io/collector/otelcol v$release
	go.opentelemetry.io/collector/receiver v$stable
	go.opentelemetry.io/collector/receiver/otlpreceiver v$release
	go.opentelemetry.io/collector/service v$release
)
MOD
cat >"$module/main.go" <<'GO'
// A collector of two components: OTLP in (gRPC and HTTP), JSON lines out to a file.
package main

import (
	"context"
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry"
	"go.uber.org/zap"
)

func factories() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{Receivers: receivers, Exporters: exporters, Telemetry: quietTelemetry()}, nil
}

// The collector's own telemetry, smallest: warnings and errors to stderr, no metrics or traces of its
// own (no :8888 listener). The stock otelconftelemetry factory links the Go SDK's exporters: a quarter
// more binary and build time for nothing the tests read. A config's service::telemetry is left out.
func quietTelemetry() telemetry.Factory {
	return telemetry.NewFactory(
		func() component.Config { return &struct{}{} },
		telemetry.WithCreateLogger(func(context.Context, telemetry.LoggerSettings, component.Config) (*zap.Logger, component.ShutdownFunc, error) {
			config := zap.NewProductionConfig()
			config.Level = zap.NewAtomicLevelAt(zap.WarnLevel)
			logger, err := config.Build()
			return logger, nil, err
		}),
	)
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol", Description: "svc-harness test collector", Version: "RELEASE"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				// env: the collector's default scheme for ${VAR} in a config.
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}
GO
sed -i "s/RELEASE/$release/" "$module/main.go"

mkdir -p "$(dirname "$target")"
say "building collector v$release (otlp receiver, file exporter) from the Go module proxy into $target (once; a first build takes minutes)"
started=$(date +%s)
partial="$target.$$.partial"
(cd "$module" && GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-local}" "$go" build -trimpath -ldflags='-s -w' -o "$partial" .)
mv "$partial" "$target"
say "built in $(($(date +%s) - started)) s, $(du -h "$target" | cut -f1)"
echo "$target"
