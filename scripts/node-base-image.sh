#!/usr/bin/env bash
# Builds a Node.js base image from files on this machine, for machines that reach no container registry
# (ours, and CI's): the image the Dockerfile's NODE_IMAGE build argument names in place of node:24-slim.
# It holds what the Dockerfile's stages run: node (the newest on this machine that the harness supports),
# npm, a POSIX shell for npm's scripts, CA certificates for the npm registry, and the shared libraries
# they need; the certificates are this machine's bundle (with its egress CA), trusted by node and npm. Built the way ../shared/tools/container-engine.sh builds its images (a root filesystem
# imported with podman), so it needs that script's environment (eval "$(container-engine.sh start)").
#
#   scripts/node-base-image.sh [NAME]      prints the image's name (default localhost/svc-node:local)
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-localhost/svc-node:local}
if podman image exists "$name" 2>/dev/null; then echo "$name"; exit 0; fi

# The Node that npm scripts here use: node_modules/.bin/node (set-up's Node 24) or the machine's.
node_bin=$(PATH="$PWD/node_modules/.bin:$PATH" command -v node)
node_bin=$(readlink -f "$node_bin")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$npm_dir/bin/npm-cli.js" ] || { echo "node-base-image: no npm found beside $(command -v npm)" >&2; exit 2; }

root=$(mktemp -d)
trap 'rm -rf "$root" "$root.tar"' EXIT
mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/bin" "$root/etc" "$root/tmp" "$root/root"
chmod 1777 "$root/tmp"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
cp -L "$node_bin" "$root/usr/local/bin/node"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
cp -L /bin/sh "$root/bin/sh"
# npm's own scripts start with #!/usr/bin/env node.
mkdir -p "$root/usr/bin"
cp -L /usr/bin/env "$root/usr/bin/env"
# npm tells glibc from musl by reading /usr/bin/ldd; without it, it skips glibc-only optional packages
# (the native bindings of vitest's bundler among them).
cp -L /usr/bin/ldd "$root/usr/bin/ldd"
mkdir -p "$root/etc/ssl/certs"
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
# All of glibc (as a Debian slim image has it), for native addons that need more of it than node does.
for lib in $(dpkg -L libc6 | grep -E '/lib[^/]*\.so[.0-9]*$'); do
  [ -e "$lib" ] && { mkdir -p "$root$(dirname "$lib")"; cp -a "$lib" "$root$lib"; }
done
for f in "$root/usr/local/bin/node" "$root/bin/sh" "$root/usr/bin/env"; do
  for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
    [ -e "$root$lib" ] || { mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; }
  done
done
tar -C "$root" -cf "$root.tar" .
podman import --quiet \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["/usr/local/bin/node"]' "$root.tar" "$name" >/dev/null
echo "$name"
