#!/usr/bin/env bash
# Makes sure the real programs the end-to-end tests use are installed:
# prometheus and promtool (Debian package prometheus), the Alertmanager
# server (installed by Debian as prometheus-alertmanager), amtool (package
# prometheus-alertmanager) and the headless browser of the landing page's
# test (package chromium). Installs them when run as root. Builds the
# pinned Go tools (promtool 3.x, helm, versitygw) into .tools/bin.
set -euo pipefail
missing=()
for t in prometheus promtool; do command -v "$t" >/dev/null || missing+=(prometheus); done
command -v amtool >/dev/null || missing+=(prometheus-alertmanager)
command -v prometheus-alertmanager >/dev/null || command -v alertmanager >/dev/null || missing+=(prometheus-alertmanager)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
# promtool of Prometheus 3.x, pinned in tools/promtool3/go.mod, built from the Go module proxy
# into .tools/bin/promtool3 (about 5 minutes on 2 cores with an empty module and build cache,
# seconds after): the rule tests run under it as well as under Debian's promtool.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$root/.tools/bin/promtool3" ] || [ "$root/tools/promtool3/go.mod" -nt "$root/.tools/bin/promtool3" ]; then
  echo "ensure-tools: building promtool 3.x into .tools/bin/promtool3" >&2
  mkdir -p "$root/.tools/bin"
  (cd "$root/tools/promtool3" && go build -o "$root/.tools/bin/promtool3" github.com/prometheus/prometheus/cmd/promtool)
fi
# helm, pinned in tools/helm/go.mod, built from the Go module proxy into .tools/bin/helm (about
# 2.5 minutes on 2 cores with an empty module and build cache): the chart's tests run it.
if [ ! -x "$root/.tools/bin/helm" ] || [ "$root/tools/helm/go.mod" -nt "$root/.tools/bin/helm" ]; then
  echo "ensure-tools: building helm into .tools/bin/helm" >&2
  mkdir -p "$root/.tools/bin"
  (cd "$root/tools/helm" && go build -o "$root/.tools/bin/helm" helm.sh/helm/v3/cmd/helm)
fi
# syft, pinned in tools/syft/go.mod, built into .tools/bin/syft: make crossbuild writes an SBOM of
# every archive with it, and the crossbuild tests check them.
if [ ! -x "$root/.tools/bin/syft" ] || [ "$root/tools/syft/go.mod" -nt "$root/.tools/bin/syft" ]; then
  echo "ensure-tools: building syft into .tools/bin/syft" >&2
  mkdir -p "$root/.tools/bin"
  (cd "$root/tools/syft" && go build -o "$root/.tools/bin/syft" github.com/anchore/syft/cmd/syft)
fi
# versitygw, pinned in tools/versitygw/go.mod, built from the Go module proxy into
# .tools/bin/versitygw (about 24 minutes on 2 shared cores under heavy load with an empty
# build cache: it links several cloud SDKs; seconds after): the event stream's end-to-end tests
# run it as a real S3-compatible server that enforces SigV4.
if [ ! -x "$root/.tools/bin/versitygw" ] || [ "$root/tools/versitygw/go.mod" -nt "$root/.tools/bin/versitygw" ]; then
  echo "ensure-tools: building versitygw into .tools/bin/versitygw" >&2
  mkdir -p "$root/.tools/bin"
  (cd "$root/tools/versitygw" && go build -o "$root/.tools/bin/versitygw" github.com/versity/versitygw/cmd/versitygw)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-tools: missing Debian packages: $pkgs" >&2
  echo "ensure-tools: run 'sudo apt-get update && sudo apt-get install -y $pkgs' (tests needing them skip outside CI)" >&2
  exit 0
fi
echo "ensure-tools: installing $pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
