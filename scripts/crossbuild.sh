#!/usr/bin/env bash
# Builds release archives of mintlify_exporter the way Prometheus projects
# name them: .tarballs/mintlify_exporter-VERSION.OS-ARCH.tar.gz (.zip for
# Windows), each holding mintlify_exporter-VERSION.OS-ARCH/{mintlify_exporter[.exe],LICENSE,README.md},
# an SPDX SBOM of each archive (ARCHIVE.spdx.json, by syft, pinned in tools/syft) and
# .tarballs/sha256sums.txt over archives and SBOMs. The version, revision, branch, user and date
# are stamped with -ldflags into github.com/prometheus/common/version
# (scripts/ldflags.sh, which make build uses too), so --version and
# mintlify_exporter_build_info show them.
#
# Reproducible: two runs on one commit with one Go toolchain write
# byte-identical archives. The build date is the commit's time
# (SOURCE_DATE_EPOCH), the build user is fixed, and the archives hold
# sorted entries with that time, owner 0 and normalised modes (gzip -n:
# no name or time in the gzip header; zip -X: no extra attributes). The SBOMs too: syft's two
# fields that change from run to run, creationInfo.created and documentNamespace (a random UUID),
# become SOURCE_DATE_EPOCH and a name derived from the archive's sha256.
#
#   scripts/crossbuild.sh                      # every platform below
#   PLATFORMS=linux/amd64 scripts/crossbuild.sh
# VERSION, REVISION, BRANCH, SOURCE_DATE_EPOCH, BUILD_USER and OUT override
# what git says, "release" and .tarballs. SYFT is the syft to run; by default .tools/bin/syft, built
# from tools/syft/go.mod on first use (a few minutes with a cold module cache).
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
SYFT=${SYFT:-$PWD/.tools/bin/syft}
if [ ! -x "$SYFT" ] || { [ "$SYFT" = "$PWD/.tools/bin/syft" ] && [ tools/syft/go.mod -nt "$SYFT" ]; }; then
  echo "crossbuild: building syft (tools/syft/go.mod) into $SYFT" >&2
  mkdir -p "$(dirname "$SYFT")"
  (cd tools/syft && go build -o "$SYFT" github.com/anchore/syft/cmd/syft)
fi
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
  # The SBOM of what the archive holds: syft reads the Go modules from the binary's build info.
  archive=$name.tar.gz
  [ "$os" = windows ] && archive=$name.zip
  sum=$(sha256sum "$OUT/$archive" | cut -d' ' -f1)
  SYFT_CHECK_FOR_APP_UPDATE=false "$SYFT" scan "dir:$work/$name" --quiet --source-name "$archive" \
    --source-version "$VERSION" -o "spdx-json=$work/$archive.spdx.json"
  created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
  jq --sort-keys --arg created "$created" --arg ns "https://github.com/mintlify-exporter/mintlify_exporter/releases/sbom/$archive-$sum" \
    '.creationInfo.created = $created | .documentNamespace = $ns' "$work/$archive.spdx.json" > "$OUT/$archive.spdx.json"
done
(cd "$OUT" && shopt -s nullglob && sha256sum -- *.tar.gz *.zip *.spdx.json > sha256sums.txt)
echo "crossbuild: $OUT/sha256sums.txt" >&2
