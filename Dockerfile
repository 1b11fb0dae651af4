# syntax=docker/dockerfile:1
# Multi-stage: dependencies are installed once with the lock file; the runtime image holds production
# dependencies, the sources and the locales only, and runs as a non-root user.
FROM node:20.19-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20.19-bookworm-slim AS runtime
ENV NODE_ENV=production \
    LOG_FORMAT=json \
    PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY locales ./locales
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# tsx (a production dependency) runs the TypeScript sources directly; no build step to drift from the tests.
CMD ["node", "--import", "tsx", "src/main.ts"]
