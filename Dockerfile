# syntax=docker/dockerfile:1
#
# One image per platform, built on the build machine's own platform and
# cross-compiled (no emulation):
#
#   docker buildx build --platform linux/amd64,linux/arm64 -t mintlify_exporter \
#     --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) \
#     --build-arg BUILD_DATE=$(date -u -d @$(git log -1 --format=%ct) +%Y-%m-%dT%H:%M:%SZ) .
#   docker run -p 9863:9863 mintlify_exporter --demo
#
# Both base images are pinned by the digest of their multi-platform index,
# the tag kept for people. They were taken from public Dockerfiles that pin
# the same tags (golang:1.26-bookworm, distroless static-debian12:nonroot),
# since no registry can be reached where this file was written; check and
# update them with:
#   docker buildx imagetools inspect golang:1.26-bookworm
#   docker buildx imagetools inspect gcr.io/distroless/static-debian12:nonroot

FROM --platform=$BUILDPLATFORM golang:1.26-bookworm@sha256:b305420a68d0f229d91eb3b3ed9e519fcf2cf5461da4bef997bf927e8c0bfd2b AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Set by buildx for each --platform.
ARG TARGETOS TARGETARCH
# The stamp of make build and the release archives (as scripts/ldflags.sh writes it; no .git
# here, so give them): VERSION without its v, the build user "release", and SOURCE_DATE_EPOCH,
# the commit's time, as the build date.
ARG VERSION=unknown
ARG REVISION=unknown
ARG BRANCH=unknown
ARG SOURCE_DATE_EPOCH=0
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -o /out/mintlify_exporter \
      -ldflags "-s -w \
        -X github.com/prometheus/common/version.Version=${VERSION#v} \
        -X github.com/prometheus/common/version.Revision=${REVISION} \
        -X github.com/prometheus/common/version.Branch=${BRANCH} \
        -X github.com/prometheus/common/version.BuildUser=release \
        -X github.com/prometheus/common/version.BuildDate=$(date -u -d @${SOURCE_DATE_EPOCH} +%Y%m%d-%H:%M:%S)" \
      . \
    && mkdir -p /out/state

# Static binary, no shell, user "nonroot" (65532).
FROM gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab
ARG VERSION=unknown
ARG REVISION=unknown
ARG BUILD_DATE=unknown
LABEL org.opencontainers.image.title="mintlify_exporter" \
      org.opencontainers.image.description="Prometheus exporter for Mintlify documentation analytics and agent jobs" \
      org.opencontainers.image.source="https://github.com/mintlify-exporter/mintlify_exporter" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${BUILD_DATE}"
COPY --from=build /out/mintlify_exporter /bin/mintlify_exporter
# An empty directory owned by nonroot for --cache.file: a volume mounted here
# starts with this ownership.
COPY --from=build --chown=65532:65532 /out/state /var/lib/mintlify_exporter
USER nonroot:nonroot
EXPOSE 9863
ENTRYPOINT ["/bin/mintlify_exporter"]
