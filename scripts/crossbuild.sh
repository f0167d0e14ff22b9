#!/usr/bin/env bash
# Builds release archives of mintlify_exporter the way Prometheus projects
# name them: .tarballs/mintlify_exporter-VERSION.OS-ARCH.tar.gz, each holding
# mintlify_exporter-VERSION.OS-ARCH/{mintlify_exporter[.exe],LICENSE,README.md},
# and .tarballs/sha256sums.txt. The version, revision, branch, user and date
# are stamped with -ldflags into github.com/prometheus/common/version, so
# --version and mintlify_exporter_build_info show them.
#
#   scripts/crossbuild.sh                      # every platform below
#   PLATFORMS=linux/amd64 scripts/crossbuild.sh
# VERSION, REVISION, BRANCH and OUT override what git says and .tarballs.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
VERSION=${VERSION#v}
REVISION=${REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
BRANCH=${BRANCH:-$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)}
OUT=${OUT:-.tarballs}
VPKG=github.com/prometheus/common/version
LDFLAGS="-s -w -X $VPKG.Version=$VERSION -X $VPKG.Revision=$REVISION -X $VPKG.Branch=$BRANCH -X $VPKG.BuildUser=$(id -un)@$(hostname) -X $VPKG.BuildDate=$(date -u +%Y%m%d-%H:%M:%S)"
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in $PLATFORMS; do
  os=${p%/*} arch=${p#*/}
  name=mintlify_exporter-$VERSION.$os-$arch
  exe=mintlify_exporter
  [ "$os" = windows ] && exe=mintlify_exporter.exe
  mkdir -p "$work/$name"
  echo "crossbuild: $name" >&2
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -ldflags "$LDFLAGS" -o "$work/$name/$exe" .
  cp LICENSE README.md "$work/$name/"
  tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "$OUT/$name.tar.gz" "$name"
done
(cd "$OUT" && sha256sum -- *.tar.gz > sha256sums.txt)
echo "crossbuild: $OUT/sha256sums.txt" >&2
