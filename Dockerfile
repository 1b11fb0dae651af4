# syntax=docker/dockerfile:1
# Node 24 LTS (package.json engines: >=24.11), pinned to an exact release.
# Multi-stage: the build stage compiles the TypeScript with tsc (scripts/build.mjs → dist/); the runtime image holds
# production dependencies, the compiled code and the locales only, and runs as a non-root user. Compiled code loads
# in ~40 MB less RSS than running the sources through tsx (bench/README.md, part 4).
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# npm runs the root package's preinstall (scripts/check-node.mjs, the Node version check) on `npm ci` too.
COPY scripts/check-node.mjs ./scripts/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN node scripts/build.mjs

FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts/check-node.mjs ./scripts/
# --omit=optional keeps TypeScript out (i18next's optional peer, which npm marks "devOptional" because it is also our
# devDependency, so --omit=dev alone installs it) and msgpackr-extract (a native speed-up msgpackr does without).
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund

FROM node:24.21.0-bookworm-slim AS runtime
# jemalloc in place of glibc's malloc. Its background thread gives freed pages back to the system within a second
# (dirty_decay_ms) wherever they are, where glibc can only trim the top of its heap and kept what a burst of users
# fragmented: `npm run bench:rss` (which reads these lines and measures with them) settles at 116-117 MB after 10,000
# sessions with it, 135-138 MB with a tuned glibc (one arena, 16 KB mmap threshold, 64 KB trim) and 178 MB with
# glibc's defaults, and the process spends ~10% less CPU per update. The symlink gives the library one path on every
# architecture.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjemalloc2=5.3.0-1 \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(dpkg -L libjemalloc2 | grep '/libjemalloc.so.2$')" /usr/local/lib/libjemalloc.so.2
ENV NODE_ENV=production \
    LOG_FORMAT=json \
    PORT=8080 \
    LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY scripts/check-node.mjs ./scripts/
# dist/i18n reads ../../locales and dist/sandbox/data holds the bank registry: keep dist/ beside locales/.
COPY --from=build /app/dist ./dist
COPY locales ./locales
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# The process exits at most 8 s after SIGTERM, inside Docker's default 10 s stop timeout (docs/production.md).
STOPSIGNAL SIGTERM
# The Node version check first, as `npm run start:prod` runs it: one sentence, not a crash, if FROM names an older Node.
CMD ["node", "--import", "./scripts/check-node.mjs", "dist/main.js"]
