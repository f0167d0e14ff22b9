#!/usr/bin/env bash
# The -ldflags that stamp the version into github.com/prometheus/common/version,
# one definition for make build and scripts/crossbuild.sh (the Dockerfile, without
# git, writes the same from its build arguments): run, it
# prints them; sourced, it sets VERSION, REVISION, BRANCH, SOURCE_DATE_EPOCH,
# BUILD_USER and LDFLAGS.
#
# VERSION is git describe's without the leading v (v0.3.0-2-gabc -> 0.3.0-2-gabc),
# as Prometheus projects print it. The build date is SOURCE_DATE_EPOCH, the
# last commit's time by default, and the build user BUILD_USER ("release"):
# neither depends on the machine or the hour, so a build can be reproduced.
# Each of them, given in the environment, wins.
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
VERSION=${VERSION#v}
REVISION=${REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
BRANCH=${BRANCH:-$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
BUILD_USER=${BUILD_USER:-release}
_vpkg=github.com/prometheus/common/version
LDFLAGS="-s -w -X $_vpkg.Version=$VERSION -X $_vpkg.Revision=$REVISION -X $_vpkg.Branch=$BRANCH -X $_vpkg.BuildUser=$BUILD_USER -X $_vpkg.BuildDate=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d-%H:%M:%S 2>/dev/null || date -u -r "$SOURCE_DATE_EPOCH" +%Y%m%d-%H:%M:%S)"
export VERSION REVISION BRANCH SOURCE_DATE_EPOCH BUILD_USER
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  printf '%s\n' "$LDFLAGS"
fi
