# syntax=docker/dockerfile:1
# The helper image (ghcr.io/getkerf/kerf-gitops): the CLI and the in-cluster helper as one bundle (a file and its chunks) on
# distroless Node.js. Built by .github/workflows/release.yml for linux/amd64 and linux/arm64. The runtime
# stage's COPY lines are read by test/integration/image-layer.test.ts, which lays the layer out and runs it.

# The bundle is plain JavaScript, so it is built once on the build machine's own platform for every target.
FROM --platform=$BUILDPLATFORM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# No shell, no package manager, no node_modules: the bundle, its chunks (each command loads those it needs) and the licence.
FROM gcr.io/distroless/nodejs20-debian12:nonroot AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="kerf-gitops" \
      org.opencontainers.image.description="Rightsize Kubernetes workloads the GitOps way: the reconciler CLI and the in-cluster helper for in-place resizes." \
      org.opencontainers.image.source="https://github.com/getkerf/kerf-gitops" \
      org.opencontainers.image.url="https://github.com/getkerf/kerf-gitops" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.vendor="kerf" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
WORKDIR /app
COPY --from=build /src/lib/kerf-gitops.mjs /app/kerf-gitops.mjs
COPY --from=build /src/lib/kerf-gitops-chunks /app/kerf-gitops-chunks
COPY --from=build /src/LICENSE /app/LICENSE
# The Deployment's uid (templates/install/deployment.yaml). The helper writes no file, so the root filesystem
# may be read-only; it keeps its certificate in memory and the Kubernetes API.
USER 65532:65532
ENTRYPOINT ["/nodejs/bin/node", "/app/kerf-gitops.mjs"]
CMD ["--help"]
