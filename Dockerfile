# svc-harness as a container image: the CLI, run as the image's entrypoint, for pipelines that run
# containers rather than Node. It tests an implementation named by a target file:
#
#   docker build -t svc-harness .
#   docker run --rm --network host -v "$PWD:/work" svc-harness run --target target.json
#
# --network host lets the harness reach an implementation on the host's loopback, and lets that
# implementation call back the harness's sink (messaging deliveries and callbacks); on another network,
# give the sink a URL the implementation reaches (--sink-host, --sink-url). Reports go to /work/reports.
# The image holds no Redis, so the embedded reference needs --redis-url when run inside it.
#
# NODE_IMAGE is any image with Node 22.19+, npm and a POSIX shell. Where no registry is reachable,
# scripts/node-base-image.sh builds one from this machine's files (test/package/image.test.ts does).
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the harness needs none, and esbuild finds its binary package without its own.
RUN npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error

FROM ${NODE_IMAGE}
WORKDIR /opt/svc-harness
COPY --from=build /src/package.json ./
COPY --from=build /src/bin ./bin
COPY --from=build /src/dist ./dist
COPY --from=build /src/node_modules ./node_modules
ENV NODE_ENV=production
WORKDIR /work
ENTRYPOINT ["node", "/opt/svc-harness/bin/svc-harness.js"]
CMD ["--help"]
