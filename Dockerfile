# The karmada-ts image: every component (`karmada apiserver|controller-manager|scheduler|agent|
# member-sim|up`) and karmadactl. `karmadactl register` runs it in the member as the
# karmada-agent Deployment, whose command is upstream's `/bin/karmada-agent --karmada-kubeconfig=...`.
#
#   docker build -t karmada-ts/karmada:v0.1.0 .
#
# (`karmadactl register --karmada-agent-image` names another image.) Nothing in the tests or
# in `karmada up` needs it: simulated members run no containers.
FROM node:22-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# better-sqlite3 is compiled here for this image's Node.
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src

FROM node:22-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
# One binary per component, as upstream's images have (karmada-operator's Deployments call them).
RUN for c in agent apiserver controller-manager scheduler operator; do \
      printf '#!/bin/sh\nexec node /app/bin/karmada %s "$@"\n' "$c" > "/bin/karmada-$c"; \
      chmod 0755 "/bin/karmada-$c"; \
    done \
    && printf '#!/bin/sh\nexec node /app/bin/karmadactl "$@"\n' > /bin/karmadactl \
    && chmod 0755 /bin/karmadactl
USER 65532:65532
ENTRYPOINT ["node", "/app/bin/karmada"]
