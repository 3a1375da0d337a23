# sparkglance's one image: the exporter (`serve`, the default) and the node
# agent (`serve --collector.process ...`) are the same binary.
#
# Built by `make image`, the way the Prometheus projects build theirs: make
# cross-builds the static, version-stamped binary into
# .build/linux-<arch>/sparkglance and prepares .build/rootfs/ (the build
# host's CA certificates, a passwd entry for the non-root user, an empty
# /tmp), and this file only copies them. Nothing is compiled or downloaded
# here, so no base image is pulled. For a multi-arch image, build the
# binaries first (`make crossbuild PLATFORMS="linux/amd64 linux/arm64"`
# and `make image-rootfs`), then e.g.
# `docker buildx build --platform linux/amd64,linux/arm64 .`: TARGETARCH
# picks each platform's binary.
FROM scratch

ARG TARGETARCH
ARG VERSION=unknown
ARG REVISION=unknown
ARG CREATED=unknown

LABEL org.opencontainers.image.title="sparkglance" \
      org.opencontainers.image.description="Prometheus/OpenTelemetry exporter showing where Apache Spark applications' time and energy go" \
      org.opencontainers.image.source="https://github.com/sparkglance/sparkglance" \
      org.opencontainers.image.url="https://github.com/sparkglance/sparkglance" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"

# /etc/passwd and /etc/group (root and nobody), the CA bundle for HTTPS
# Spark targets and the OTLP push, and /tmp (1777) where `serve --demo`
# writes its simulated event log.
COPY .build/rootfs/ /
COPY .build/linux-${TARGETARCH}/sparkglance /bin/sparkglance

# A scratch image has no PATH of its own; the entrypoint is looked up in it.
ENV PATH=/bin
# nobody:nobody, numeric so that Kubernetes' runAsNonRoot can verify it.
USER 65534:65534
EXPOSE 18090
ENTRYPOINT ["sparkglance"]
CMD ["serve"]
