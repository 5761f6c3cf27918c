# One image for the api (which serves the built web app) and the worker.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
# The CSV loader's SQLite extension (.tools/lib/lf_rows.so), with the compiler better-sqlite3 was built with.
RUN node scripts/build-native.mjs && node node_modules/vite/bin/vite.js build --config web/vite.config.mts && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
# MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ and --max-semi-space-size: as npm start runs the services (scripts/lib/services.mjs).
ENV NODE_ENV=production HOST=0.0.0.0 MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
COPY --from=build /app /app
# DATA_DIR: generated local secrets, the worker's cached workflow bundle (a named volume
# mounted here takes this ownership).
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=4", "--require", "tsx/cjs", "api/main.ts"]
