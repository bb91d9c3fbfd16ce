# syntax=docker/dockerfile:1
#
# The liquidator daemon as a container image.
#
#   docker build -t liquidator:$(node -p 'require("./package.json").version') \
#     --build-arg GIT_COMMIT=$(git rev-parse --short HEAD) .
#
# Images are tagged with package.json's version (semver: CHANGELOG.md says what each one changes;
# deploy/kubernetes/base/kustomization.yaml pins the same tag), never only `latest`.
#
# Simulator mode (the embedded default: a simulated venue in-process, generated keys):
#   docker run --rm -p 9464:9464 liquidator
#
# Live mode (the secret from a file, e.g. a mounted container secret; never in the config file):
#   docker run -d --name liquidator --restart unless-stopped -p 9464:9464 \
#     -e LIQUIDATOR_VENUE=live \
#     -e LIQUIDATOR_BASE_URL=https://api.example.org \
#     -e LIQUIDATOR_WS_URL=wss://ws.example.org \
#     -e LIQUIDATOR_WS_PRIVATE_URL=wss://ws-private.example.org \
#     -e LIQUIDATOR_ACCOUNT_ID=0x... \
#     -e LIQUIDATOR_SECRET_FILE=/run/secrets/liquidator_secret \
#     -v "$PWD/secrets/liquidator_secret:/run/secrets/liquidator_secret:ro" \
#     -v "$PWD/my-config:/app/config:ro" -e LIQUIDATOR_CONFIG=/app/config/liquidator.yaml \
#     -v liquidator-data:/data \
#     liquidator
#
# Other commands: docker run --rm liquidator check-config | keygen | epochs --json | ...
#
# Signals: node runs as PID 1 and the daemon installs its own SIGTERM/SIGINT handlers (drain claims,
# flush the journal, close sockets, exit 0), so `docker stop` shuts it down cleanly. `--init` (tini)
# is optional: the daemon starts no child processes that would need reaping.
# The HEALTHCHECK calls /healthz on LIQUIDATOR_METRICS_PORT (default 9464) on loopback: if the port
# is changed in a config file instead of the environment, set LIQUIDATOR_METRICS_PORT as well.

# Any Debian-based image with node, npm and a `node` user can stand in (the image test builds FROM a
# local one: --build-arg NODE_IMAGE=...).
ARG NODE_IMAGE=node:22-bookworm-slim

# ── build: full dependencies, compile TypeScript to dist/ ─────────────────────────────────────────
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ── runtime: production dependencies only, non-root ───────────────────────────────────────────────
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
RUN mkdir -p /data && chown node:node /data

ARG GIT_COMMIT=unknown
ENV LIQUIDATOR_BUILD_COMMIT=${GIT_COMMIT} \
    LIQUIDATOR_CONFIG=/app/config/default.yaml \
    LIQUIDATOR_STATE_DIR=/data \
    LIQUIDATOR_METRICS_HOST=0.0.0.0 \
    LIQUIDATOR_METRICS_PORT=9464

USER node
# Config (read-only is fine) and the claims journal (must persist across restarts).
VOLUME ["/app/config", "/data"]
EXPOSE 9464
STOPSIGNAL SIGTERM
# No curl in the slim image: Node's own fetch asks /healthz (200 while every loop is alive).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.LIQUIDATOR_METRICS_PORT||9464}/healthz`,{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["run"]
