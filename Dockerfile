# syntax=docker/dockerfile:1
# Build: docker build -t tree-sessions .
# Run:   docker run --rm -p 8080:8080 -v tree-sessions-data:/data tree-sessions
#
# Stage 1 builds tree-server in release mode with the Swift runtime linked in
# statically (the same `swift build -c release` the README uses, plus
# --static-swift-stdlib); stage 2 is a slim Debian with that one binary.

FROM swift:6.3-bookworm AS build
WORKDIR /src
# The manifest names every target, tests included, so all of their folders must exist
# (nothing under Tests is built for the tree-server product).
# openapi.yaml and the TypeScript client's modules are compiled into the binary through the
# links Sources/TreeService/openapi.yaml and Sources/TreeService/Demo/client/*.js, which COPY
# keeps as links: the files they point to must be there too.
COPY Package.swift openapi.yaml ./
COPY clients/typescript/dist ./clients/typescript/dist
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product tree-server --static-swift-stdlib \
 && install -D "$(swift build -c release --show-bin-path)/tree-server" /out/tree-server

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl libstdc++6 tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin tree
COPY --from=build /out/tree-server /app/tree-server
# Sessions and every accepted change are stored here (snapshots and journals; README,
# "Durability"): mount a volume on it to keep them across containers.
RUN mkdir -p /data && chown tree /data
WORKDIR /app
USER tree
# Large blocks on transparent huge pages, set here so that tree-server need not execute
# itself again to ask for them (docs/OPERATIONS.md, "Huge pages"; =0 keeps 4 KiB pages).
ENV TREE_HOST=0.0.0.0 \
    TREE_PORT=8080 \
    TREE_DATA_DIR=/data \
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${TREE_PORT}/healthz" || exit 1
# SIGTERM (docker stop) drains in-flight requests, makes every journal durable, then exits 0
# (1 when a journal could not be made durable).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/tree-server"]
