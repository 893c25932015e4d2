# Kade's container image. Multi-stage: the toolchain, dev dependencies and sources stay in the
# build stages; the final stage holds the compiled server and interface, the production
# node_modules and the tools Kade runs (git, compose, zstd). Started through docker/entrypoint.sh,
# which prepares the folders and drops to SVC_UID:SVC_GID (docs/install.md).
#
#   docker build -t kade .                                          # production base
#   docker build --build-arg BASE_IMAGE=kade-test/node:20 -t kade . # tests (test/helpers/kade-image.ts)
#
# Every stage starts from BASE_IMAGE, so the native modules built in one run in the other.
ARG BASE_IMAGE=node:20-bookworm-slim

# ---- deps: every dependency installed once; a copy pruned to the production ones ----
FROM ${BASE_IMAGE} AS deps
# better-sqlite3 compiles from source when no prebuilt binary can be fetched.
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends python3 make g++; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
# node-gyp compiles against the headers beside the node binary (no download from nodejs.org).
RUN set -eux; \
    prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")"); \
    if [ -f "$prefix/include/node/node.h" ]; then export npm_config_nodedir="$prefix"; fi; \
    npm ci --no-audit --no-fund; \
    mkdir /prod; \
    cp -a package.json package-lock.json node_modules /prod/; \
    cd /prod; \
    npm prune --omit=dev --no-audit --no-fund; \
    # Only the compiled module is loaded at run time; the objects and the sqlite sources are not.
    cd node_modules/better-sqlite3; \
    find build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +; \
    find build/Release -mindepth 1 -maxdepth 1 ! -name better_sqlite3.node -exec rm -rf {} +; \
    rm -rf deps src; \
    node -e "new (require('/prod/node_modules/better-sqlite3'))(':memory:').close()"

# ---- build: the server (tsc, then one bundle for its entry) and the interface (vite) ----
FROM deps AS build
COPY tsconfig.json tsconfig.build.json VERSION ./
COPY scripts/bundle-server.mjs ./scripts/
COPY src ./src
RUN set -eux; \
    npm run build; \
    rm -f dist/.tsbuildinfo; \
    find dist -name '*.map' -delete

# ---- the image ----
FROM ${BASE_IMAGE}
# git for the template repos (https and ssh), compose for the apps (Debian's docker-compose talks
# to the engine socket without the docker CLI), zstd for compressed backups, setpriv (util-linux,
# part of every Debian base) for the entrypoint's drop of privileges.
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates git openssh-client zstd docker-compose; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/*; \
    command -v setpriv; \
    docker-compose version
WORKDIR /app
# MALLOC_MMAP_THRESHOLD_ and the node flags in CMD: scripts/node-runtime.json says why (resident memory).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=131072 \
    SVC_DATA=/data \
    SVC_BIND=0.0.0.0 \
    SVC_PORT=8420
COPY docker/entrypoint.sh /usr/local/bin/kade-entrypoint
COPY --from=deps /prod/node_modules ./node_modules
COPY package.json VERSION ./
COPY --from=build /src/dist ./dist
EXPOSE 8420
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SVC_PORT||8420)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/kade-entrypoint"]
CMD ["node", "--optimize-for-size", "--max-semi-space-size=1", "--v8-pool-size=1", "dist/server/main.js"]
