# Smoke test for `docker build` FROM the local Node base (scripts/build-images.sh builds and removes it).
ARG BASE=federa/base-node:local
FROM ${BASE}
RUN mkdir -p /app && echo 'console.log("smoke-node " + (require("node:os").platform() === "linux" ? "ok" : "bad"))' > /app/main.cjs
WORKDIR /app
CMD ["node", "/app/main.cjs"]
