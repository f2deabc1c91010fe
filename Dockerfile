# issuesmith: `bot serve` in a container.
#
#   docker build -t issuesmith .          (or: podman build -t issuesmith .)
#   docker run --env-file issuesmith.env -v issuesmith:/var/lib/issuesmith -p 8080:8080 issuesmith
#
# The base images are build arguments so a build without a registry (CI here
# builds them locally) or with a mirror can name its own; the defaults are
# the usual public ones.
ARG BUILD_IMAGE=docker.io/library/golang:1.26-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
# The tree-sitter grammars are C: the build needs cgo and a C compiler
# (the golang image has gcc).
ENV CGO_ENABLED=1
ARG GOPROXY=https://proxy.golang.org,direct
ARG GOFLAGS=-mod=readonly
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/root/go/pkg/mod GOPROXY=$GOPROXY go mod download
COPY . .
# A build context has no .git (see .dockerignore): pass the revision, e.g.
#   --build-arg VCS_REVISION=$(git rev-parse HEAD)$(git diff --quiet HEAD || echo -dirty)
ARG VCS_REVISION=
ARG VERSION=
RUN --mount=type=cache,target=/root/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOPROXY=$GOPROXY go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/issuesmith/issuesmith/internal/buildinfo.Revision=${VCS_REVISION} -X github.com/issuesmith/issuesmith/internal/buildinfo.Version=${VERSION}" \
      -o /out/bot ./cmd/bot

FROM ${RUNTIME_IMAGE}
# git for large repositories, bubblewrap to sandbox model-written code,
# curl for the health check, CA certificates for GitHub and the model.
RUN if ! command -v git >/dev/null || ! command -v bwrap >/dev/null || ! command -v curl >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends ca-certificates git bubblewrap curl && \
      rm -rf /var/lib/apt/lists/*; fi && \
    useradd --system --uid 10001 --user-group --home-dir /var/lib/issuesmith --create-home --shell /usr/sbin/nologin issuesmith
COPY --from=build /out/bot /usr/local/bin/bot
USER issuesmith:issuesmith
# Database (SQLite unless ISSUESMITH_DATABASE_URL says postgres://) and the
# git cache live in the state directory: keep it on a volume.
ENV ISSUESMITH_STATE_DIR=/var/lib/issuesmith ISSUESMITH_LISTEN_ADDR=:8080
VOLUME ["/var/lib/issuesmith"]
WORKDIR /var/lib/issuesmith
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["curl", "--fail", "--silent", "--show-error", "--max-time", "4", "http://127.0.0.1:8080/readyz"]
ENTRYPOINT ["bot"]
CMD ["serve"]
