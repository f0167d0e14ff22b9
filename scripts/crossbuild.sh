#!/usr/bin/env bash
# Builds release archives of mintlify_exporter the way Prometheus projects
# name them: .tarballs/mintlify_exporter-VERSION.OS-ARCH.tar.gz (.zip for
# Windows), each holding mintlify_exporter-VERSION.OS-ARCH/{mintlify_exporter[.exe],LICENSE,README.md},
# and .tarballs/sha256sums.txt. The version, revision, branch, user and date
# are stamped with -ldflags into github.com/prometheus/common/version
# (scripts/ldflags.sh, which make build uses too), so --version and
# mintlify_exporter_build_info show them.
#
# Reproducible: two runs on one commit with one Go toolchain write
# byte-identical archives. The build date is the commit's time
# (SOURCE_DATE_EPOCH), the build user is fixed, and the archives hold
# sorted entries with that time, owner 0 and normalised modes (gzip -n:
# no name or time in the gzip header; zip -X: no extra attributes).
#
#   scripts/crossbuild.sh                      # every platform below
#   PLATFORMS=linux/amd64 scripts/crossbuild.sh
# VERSION, REVISION, BRANCH, SOURCE_DATE_EPOCH, BUILD_USER and OUT override
# what git says, "release" and .tarballs.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}
OUT=${OUT:-.tarballs}
# shellcheck source=scripts/ldflags.sh
. scripts/ldflags.sh
export TZ=UTC LC_ALL=C
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
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
  chmod 0755 "$work/$name" "$work/$name/$exe"
  chmod 0644 "$work/$name/LICENSE" "$work/$name/README.md"
  touch -h -d "@$SOURCE_DATE_EPOCH" "$work/$name" "$work/$name"/*
  if [ "$os" = windows ]; then
    rm -f "$OUT/$name.zip"
    (cd "$work" && find "$name" | sort | zip -q -X -D -@ "$OUT/$name.zip")
  else
    tar -C "$work" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
      --format=gnu -cf - "$name" | gzip -n -9 > "$OUT/$name.tar.gz"
  fi
done
(cd "$OUT" && shopt -s nullglob && sha256sum -- *.tar.gz *.zip > sha256sums.txt)
echo "crossbuild: $OUT/sha256sums.txt" >&2
