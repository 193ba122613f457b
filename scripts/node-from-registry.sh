#!/usr/bin/env bash
# Fetches a Node release from the npm registry into a folder and prints that release's folder
# (bin/node, include/ for node-gyp): `scripts/node-from-registry.sh 24 .tmp/node-24`.
# CI machines reach only the npm registry, where the packages node-linux-<arch> carry the
# official binaries (the `node` package installs them the same way); nodejs.org is not reachable.
set -euo pipefail
major=${1:?usage: scripts/node-from-registry.sh <node major> <folder>}
folder=${2:?usage: scripts/node-from-registry.sh <node major> <folder>}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "no Node $major build in the npm registry for $(uname -m)" >&2; exit 1 ;;
esac
mkdir -p "$folder"
folder=$(cd "$folder" && pwd)
if [ ! -x "$folder/package/bin/node" ]; then
  (cd "$folder" && rm -f node-linux-*.tgz && npm pack --silent "node-linux-$arch@$major" > /dev/null && tar xzf node-linux-*.tgz)
fi
echo "$folder/package"
