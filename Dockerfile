# syntax=docker/dockerfile:1
#
# docker build -t mintlify_exporter \
#   --build-arg VERSION=$(git describe --tags --always) \
#   --build-arg REVISION=$(git rev-parse HEAD) .
# docker run -p 9863:9863 mintlify_exporter --demo

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=unknown
ARG REVISION=unknown
ARG BRANCH=unknown
ARG BUILD_DATE=unknown
RUN CGO_ENABLED=0 go build -trimpath -o /out/mintlify_exporter \
      -ldflags "-s -w \
        -X github.com/prometheus/common/version.Version=${VERSION} \
        -X github.com/prometheus/common/version.Revision=${REVISION} \
        -X github.com/prometheus/common/version.Branch=${BRANCH} \
        -X github.com/prometheus/common/version.BuildUser=docker \
        -X github.com/prometheus/common/version.BuildDate=${BUILD_DATE}" \
      . \
    && mkdir -p /out/state

# Static binary, no shell, user "nonroot" (65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mintlify_exporter /bin/mintlify_exporter
# An empty directory owned by nonroot for --cache.file: a volume mounted here
# starts with this ownership.
COPY --from=build --chown=65532:65532 /out/state /var/lib/mintlify_exporter
USER nonroot:nonroot
EXPOSE 9863
ENTRYPOINT ["/bin/mintlify_exporter"]
